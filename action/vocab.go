package action

// Risk is a rating of how bad an action could be (SPEC G6).
type Risk string

// The risk levels, from the least to the most severe.
const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// risks are the risk levels by rank: the one ranking of risk in warden.
var risks = [...]Risk{RiskLow, RiskMedium, RiskHigh, RiskCritical}

// Level returns the rank of r, 0 for low to 3 for critical, or -1 when r
// is not one of the four levels.
func (r Risk) Level() int {
	for i, x := range risks {
		if x == r {
			return i
		}
	}
	return -1
}

// RiskAt returns the risk level of rank level (Level's inverse), clamped
// to low and critical.
func RiskAt(level int) Risk {
	return risks[min(max(level, 0), len(risks)-1)]
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
