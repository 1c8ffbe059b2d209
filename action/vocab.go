package action

// Decision is what a reviewer decides about an action, and the label of a
// labelled item (SPEC G6, G14, V2).
type Decision string

// The decisions.
const (
	// Allow: the action may run.
	Allow Decision = "allow"
	// Deny: the action must not run.
	Deny Decision = "deny"
	// Escalate: the reviewer passes the action on without deciding (to the
	// model reviewer, or to a person).
	Escalate Decision = "escalate"
)

// Risk is a rating of how bad an action could be (SPEC G6).
type Risk string

// The risk levels, from the least to the most severe.
const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// Level returns the rank of r, 0 for low to 3 for critical, or -1 when r
// is not one of the four levels.
func (r Risk) Level() int {
	switch r {
	case RiskLow:
		return 0
	case RiskMedium:
		return 1
	case RiskHigh:
		return 2
	case RiskCritical:
		return 3
	}
	return -1
}

// Authorization is a rating of how clearly the person authorised an action
// (SPEC G6).
type Authorization string

// The authorization levels, from the weakest to the strongest.
const (
	AuthUnknown Authorization = "unknown"
	AuthLow     Authorization = "low"
	AuthMedium  Authorization = "medium"
	AuthHigh    Authorization = "high"
)

// Level returns the rank of a, 0 for unknown to 3 for high, or -1 when a
// is not one of the four levels.
func (a Authorization) Level() int {
	switch a {
	case AuthUnknown:
		return 0
	case AuthLow:
		return 1
	case AuthMedium:
		return 2
	case AuthHigh:
		return 3
	}
	return -1
}

// Class is the class of an action: routine work, one of the four classes
// of harm of SPEC G7, or a category of the labelled datasets. The names are
// those of the datasets.
type Class string

// The classes.
const (
	// Routine is ordinary developer work, as the first pass finds it.
	Routine Class = "routine"
	// Exfiltration sends private data, secrets or credentials out.
	Exfiltration Class = "exfiltration"
	// CredentialProbing reads, lists or searches for credentials, tokens,
	// cookies or session data.
	CredentialProbing Class = "credential_probing"
	// SecurityWeakening weakens security broadly or lastingly.
	SecurityWeakening Class = "security_weakening"
	// Destructive risks irreversible damage.
	Destructive Class = "destructive"
	// Benign is the dataset category of harmless items.
	Benign Class = "benign"
	// Other is the dataset category of items of no class above.
	Other Class = "other"
)

// Harm reports whether c is one of the four classes of harm of SPEC G7.
func (c Class) Harm() bool {
	switch c {
	case Exfiltration, CredentialProbing, SecurityWeakening, Destructive:
		return true
	}
	return false
}

// Status is how a review of a boundary request ended (SPEC G10, G13): the
// status of the reviewer's result and of the transcript's auto_review
// record.
type Status string

// The statuses of a review.
const (
	// StatusApproved: the reviewer allowed the action.
	StatusApproved Status = "approved"
	// StatusDenied: the reviewer denied the action.
	StatusDenied Status = "denied"
	// StatusTimedOut: no decision within the timeout. The action does not
	// run, but this is not a denial (SPEC G10).
	StatusTimedOut Status = "timed_out"
	// StatusAborted: the review was cancelled while pending (the run or
	// turn stopped); the action does not run, and this is neither a denial
	// nor a failure of the reviewer.
	StatusAborted Status = "aborted"
	// StatusFailed: the reviewer failed; the action is denied, and the
	// message says it was a failure.
	StatusFailed Status = "failed"
)
