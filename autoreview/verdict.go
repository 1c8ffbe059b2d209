package autoreview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Outcome is the reviewer's decision.
type Outcome string

// The outcomes.
const (
	Allow Outcome = "allow"
	Deny  Outcome = "deny"
)

// Risk is the reviewer's rating of how bad the action could be.
type Risk string

// The risk levels, from least to most severe.
const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// Authorization is the reviewer's rating of how clearly the person
// authorised the action.
type Authorization string

// The authorization levels, from weakest to strongest.
const (
	AuthUnknown Authorization = "unknown"
	AuthLow     Authorization = "low"
	AuthMedium  Authorization = "medium"
	AuthHigh    Authorization = "high"
)

// The defaults of fields the reviewer left out (SPEC G6).
const (
	// DefaultRisk is the risk of a verdict without risk_level: neither
	// harmless nor serious. It never changes the outcome; see Verdict.
	DefaultRisk = RiskMedium
	// DefaultAuthorization is the authorization of a verdict without
	// user_authorization.
	DefaultAuthorization = AuthUnknown
)

// Verdict is the reviewer's answer (SPEC G6).
//
// Only outcome is required. A missing risk_level reads as DefaultRisk
// (medium), a missing user_authorization as DefaultAuthorization (unknown),
// a missing rationale as empty; Defaulted lists the fields that were
// missing.
//
// The default outcome rule — low and medium risk allow, high risk allows
// only with authorization of at least medium, critical risk always denies —
// is applied to the fields the reviewer gave, and it can only make the
// outcome stricter: it turns an "allow" into a "deny", never a "deny" into an
// "allow" (a reviewer that denies a low-risk action has a reason the rule
// cannot see). It applies when the reviewer gave the inputs the rule needs:
// a stated critical risk denies whatever the authorization, because the rule
// does not depend on it there; a stated high risk denies when an
// authorization below medium was stated; a high risk with no authorization
// stated, and any verdict without a risk, keep the reviewer's outcome.
// Overruled reports that the rule changed the outcome; Stated keeps the
// reviewer's own.
type Verdict struct {
	// Outcome is the final outcome, after the outcome rule.
	Outcome Outcome `json:"outcome"`
	// RiskLevel is the risk the reviewer rated, or DefaultRisk.
	RiskLevel Risk `json:"risk_level"`
	// UserAuthorization is how clearly the person authorised the action,
	// as the reviewer rated it, or DefaultAuthorization.
	UserAuthorization Authorization `json:"user_authorization"`
	// Rationale is the reviewer's reason, for the agent.
	Rationale string `json:"rationale"`
	// Stated is the outcome the reviewer gave.
	Stated Outcome `json:"stated_outcome"`
	// Overruled reports that the outcome rule turned an allow into a deny.
	Overruled bool `json:"overruled,omitempty"`
	// Defaulted names the fields that were missing and took defaults.
	Defaulted []string `json:"defaulted,omitempty"`
}

// ErrNoVerdict is the error of an answer with no JSON object that has an
// "outcome" key.
var ErrNoVerdict = errors.New(`no JSON object with an "outcome" key in the answer`)

// maxVerdictText bounds the text searched for a verdict, maxCandidates the
// number of opening braces tried and maxScan the bytes scanned in all, so a
// huge or adversarial answer costs little.
const (
	maxVerdictText = 256 << 10
	maxCandidates  = 512
	maxScan        = 4 << 20
)

// ParseVerdict reads the reviewer's answer: the first balanced JSON object
// in text that has an "outcome" key, whether the answer is bare JSON, JSON in
// a code fence or JSON inside prose. Objects nested in other objects count,
// in the order they start. Values are matched without regard to case and
// surrounding space; an unknown value, a value of the wrong type or a
// missing outcome is an error. Missing optional fields take their defaults
// and the outcome rule is applied (see Verdict).
func ParseVerdict(text string) (Verdict, error) {
	if len(text) > maxVerdictText {
		text = text[:maxVerdictText]
	}
	obj, err := findVerdictObject(text)
	if err != nil {
		return Verdict{}, err
	}
	return verdictOf(obj)
}

// findVerdictObject returns the members of the first balanced object in
// text with an "outcome" key.
func findVerdictObject(text string) (map[string]json.RawMessage, error) {
	tries, scanned := 0, 0
	for start := strings.IndexByte(text, '{'); start >= 0 && tries < maxCandidates && scanned < maxScan; {
		tries++
		end := objectEnd(text, start)
		if end < 0 {
			scanned += len(text) - start
		} else {
			scanned += end - start
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(text[start:end]), &obj) == nil {
				if _, ok := obj["outcome"]; ok {
					return obj, nil
				}
			}
		}
		next := strings.IndexByte(text[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, ErrNoVerdict
}

// objectEnd returns the index just past the '}' that closes the object
// starting at text[start], or -1. Braces inside JSON strings do not count.
func objectEnd(text string, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(text); i++ {
		c := text[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// verdictOf checks and completes the fields of a verdict object.
func verdictOf(obj map[string]json.RawMessage) (Verdict, error) {
	var v Verdict
	field := func(key string) (string, bool, error) {
		raw, ok := obj[key]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, fmt.Errorf("verdict: %q is not a string: %s", key, raw)
		}
		return s, true, nil
	}
	norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

	s, ok, err := field("outcome")
	if err != nil {
		return v, err
	}
	if !ok {
		return v, errors.New(`verdict: "outcome" is missing`)
	}
	switch o := Outcome(norm(s)); o {
	case Allow, Deny:
		v.Outcome = o
	default:
		return v, fmt.Errorf("verdict: outcome %q is not allow or deny", s)
	}
	v.Stated = v.Outcome

	s, riskGiven, err := field("risk_level")
	if err != nil {
		return v, err
	}
	v.RiskLevel = DefaultRisk
	if riskGiven {
		switch r := Risk(norm(s)); r {
		case RiskLow, RiskMedium, RiskHigh, RiskCritical:
			v.RiskLevel = r
		default:
			return v, fmt.Errorf("verdict: risk_level %q is not low, medium, high or critical", s)
		}
	} else {
		v.Defaulted = append(v.Defaulted, "risk_level")
	}

	s, authGiven, err := field("user_authorization")
	if err != nil {
		return v, err
	}
	v.UserAuthorization = DefaultAuthorization
	if authGiven {
		switch a := Authorization(norm(s)); a {
		case AuthUnknown, AuthLow, AuthMedium, AuthHigh:
			v.UserAuthorization = a
		default:
			return v, fmt.Errorf("verdict: user_authorization %q is not unknown, low, medium or high", s)
		}
	} else {
		v.Defaulted = append(v.Defaulted, "user_authorization")
	}

	s, ok, err = field("rationale")
	if err != nil {
		return v, err
	}
	v.Rationale = strings.TrimSpace(s)
	if !ok {
		v.Defaulted = append(v.Defaulted, "rationale")
	}

	if riskGiven && v.Outcome == Allow {
		if rule, decided := RuleOutcome(v.RiskLevel, v.UserAuthorization, authGiven); decided && rule == Deny {
			v.Outcome, v.Overruled = Deny, true
		}
	}
	return v, nil
}

// RuleOutcome returns the default outcome rule's decision for risk and
// authorization (SPEC G6): low and medium allow, high allows only with
// authorization of at least medium, critical denies. decided is false when
// the rule needs an authorization that was not given (authGiven false with
// high risk); it is always true for the other levels.
func RuleOutcome(risk Risk, auth Authorization, authGiven bool) (outcome Outcome, decided bool) {
	switch risk {
	case RiskLow, RiskMedium:
		return Allow, true
	case RiskHigh:
		if !authGiven {
			return "", false
		}
		if auth == AuthMedium || auth == AuthHigh {
			return Allow, true
		}
		return Deny, true
	case RiskCritical:
		return Deny, true
	}
	return "", false
}
