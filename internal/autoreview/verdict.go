package autoreview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/internal/vocab"
)

// The defaults of fields the reviewer left out (SPEC G6).
const (
	// DefaultRisk is the risk of a verdict without risk_level: neither
	// harmless nor serious. It never changes the outcome; see Verdict.
	DefaultRisk = action.RiskMedium
	// DefaultAuthorization is the authorization of a verdict without
	// user_authorization.
	DefaultAuthorization = action.AuthUnknown
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
// is always applied, to the fields as given or defaulted, and it can only
// make the outcome stricter: it turns an "allow" into a "deny", never a
// "deny" into an "allow" (a reviewer that denies a low-risk action has a
// reason the rule cannot see). So a high risk without a stated
// authorization denies (unknown is below medium), and a critical risk
// always denies. Overruled reports that the rule changed the outcome;
// Stated keeps the reviewer's own.
type Verdict struct {
	// Outcome is the final outcome, after the outcome rule.
	Outcome vocab.Decision `json:"outcome"`
	// RiskLevel is the risk the reviewer rated, or DefaultRisk.
	RiskLevel action.Risk `json:"risk_level"`
	// UserAuthorization is how clearly the person authorised the action,
	// as the reviewer rated it, or DefaultAuthorization.
	UserAuthorization action.Authorization `json:"user_authorization"`
	// Rationale is the reviewer's reason, for the agent.
	Rationale string `json:"rationale"`
	// Stated is the outcome the reviewer gave.
	Stated vocab.Decision `json:"stated_outcome"`
	// Overruled reports that the outcome rule turned an allow into a deny.
	Overruled bool `json:"overruled,omitempty"`
	// Defaulted names the fields that were missing and took defaults.
	Defaulted []string `json:"defaulted,omitempty"`
}

// ErrNoVerdict is the error of an answer with no JSON object that has an
// "outcome" key.
var ErrNoVerdict = errors.New(`no JSON object with an "outcome" key in the answer`)

// ErrAmbiguousVerdict is the error of an answer with more than one verdict
// object whose outcomes disagree, or a verdict object whose names repeat:
// such an answer is not an answer (SPEC G6, G10), whichever reading an
// injected object was meant to win.
var ErrAmbiguousVerdict = errors.New("the answer is ambiguous")

// maxVerdictText bounds the answer read for a verdict, maxCandidates the
// number of opening braces tried and maxScan the bytes scanned in all, so a
// huge or adversarial answer costs little; an answer beyond them is not
// read as a verdict.
const (
	maxVerdictText = 256 << 10
	maxCandidates  = 512
	maxScan        = 4 << 20
)

// ParseVerdict reads the reviewer's answer: bare JSON, JSON in a code fence
// or JSON inside prose. Every verdict object of the answer — each balanced
// JSON object with an "outcome" key, whether it stands in the prose or is
// nested in another object — is read, and there must be one reading: an
// object with a repeated name (or two names that differ only by case), an
// invalid verdict object, or verdict objects whose final outcomes disagree
// make the answer ErrAmbiguousVerdict, so a verdict quoted from the
// transcript cannot outvote the reviewer's own. So does a name, in any
// object of the answer, that differs from a verdict field's only by case,
// separators or naming style ("RISK_LEVEL", "riskLevel"): the model meant
// that field, and the verdict is not read without it; other names are
// ignored. When several verdict objects
// agree, the last one is the verdict. Values are matched without regard to
// case and surrounding space; an unknown value, a value of the wrong type or
// a missing outcome is an error. Missing optional fields take their
// defaults and the outcome rule is applied (see Verdict).
func ParseVerdict(text string) (Verdict, error) {
	if len(text) > maxVerdictText {
		return Verdict{}, fmt.Errorf("%w: an answer longer than %d bytes is not read", ErrAmbiguousVerdict, maxVerdictText)
	}
	objs, err := findVerdictObjects(text)
	if err != nil {
		return Verdict{}, err
	}
	var out Verdict
	for i, obj := range objs {
		v, err := verdictOf(obj)
		if err != nil {
			if len(objs) > 1 {
				return Verdict{}, fmt.Errorf("%w: verdict object %d of %d: %w", ErrAmbiguousVerdict, i+1, len(objs), err)
			}
			return Verdict{}, err
		}
		if i > 0 && v.Outcome != out.Outcome {
			return Verdict{}, fmt.Errorf("%w: %d verdict objects, one with outcome %s and one with %s", ErrAmbiguousVerdict, len(objs), out.Outcome, v.Outcome)
		}
		out = v
	}
	return out, nil
}

// findVerdictObjects returns the members of every verdict object of text
// (an object with an "outcome" key), in the order they start: each
// balanced JSON object standing in the text, and every object nested in
// one. An object with repeated names (or names that differ only by case)
// is ErrAmbiguousVerdict.
func findVerdictObjects(text string) ([]map[string]json.RawMessage, error) {
	var found []map[string]json.RawMessage
	tries, scanned, broken := 0, 0, false
	start := strings.IndexByte(text, '{')
	for start >= 0 && tries < maxCandidates && scanned < maxScan {
		tries++
		end := objectEnd(text, start)
		next := start + 1
		if end < 0 {
			scanned += len(text) - start
			// A verdict cut short (an answer that ran out of tokens) or
			// broken: what it says is unknown, so another verdict, perhaps
			// quoted from the transcript, cannot stand alone.
			broken = broken || startsVerdict(text[start:])
		} else {
			scanned += end - start
			raw := []byte(text[start:end])
			broken = broken || !json.Valid(raw) && startsVerdict(text[start:end])
			if json.Valid(raw) {
				if err := argjson.CheckNames(raw); err != nil {
					return nil, fmt.Errorf("%w: %w", ErrAmbiguousVerdict, err)
				}
				if err := collectVerdicts(raw, &found, 0); err != nil {
					return nil, err
				}
				next = end // a whole object was read, nested ones included
			}
		}
		i := strings.IndexByte(text[next:], '{')
		if i < 0 {
			start = -1
			break
		}
		start = next + i
	}
	if len(found) == 0 {
		return nil, ErrNoVerdict
	}
	if broken {
		return nil, fmt.Errorf("%w: a verdict object that does not end or is not valid JSON", ErrAmbiguousVerdict)
	}
	if start >= 0 {
		// The budget ran out before the end: a later object could disagree.
		return nil, fmt.Errorf("%w: too many objects to read the whole answer", ErrAmbiguousVerdict)
	}
	return found, nil
}

// startsVerdict reports whether the text, which starts with '{', opens an
// object whose first name is "outcome" (in any case, escapes aside).
func startsVerdict(text string) bool {
	rest := strings.TrimLeft(text[1:], " \t\r\n")
	return len(rest) > len(`"outcome"`) && strings.EqualFold(rest[:len(`"outcome"`)], `"outcome"`)
}

// collectVerdicts appends to found the verdict objects of the JSON value
// raw, outermost first, in the order they start.
func collectVerdicts(raw json.RawMessage, found *[]map[string]json.RawMessage, depth int) error {
	if depth > 64 {
		return fmt.Errorf("%w: objects nested too deep", ErrAmbiguousVerdict)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '{':
		var members []argjson.Arg
		_ = argjson.Each(raw, func(k string, v json.RawMessage) bool {
			members = append(members, argjson.Arg{Key: strings.Clone(k), Value: v})
			return true
		})
		obj := make(map[string]json.RawMessage, len(members))
		for _, m := range members {
			if err := checkVerdictKey(m.Key); err != nil {
				return err
			}
			obj[m.Key] = m.Value
		}
		if _, ok := obj["outcome"]; ok {
			*found = append(*found, obj)
		}
		for _, m := range members {
			if err := collectVerdicts(m.Value, found, depth+1); err != nil {
				return err
			}
		}
	case '[':
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) == nil {
			for _, e := range elems {
				if err := collectVerdicts(e, found, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// verdictKeys are the names of a verdict object's fields (SPEC G6), keyed
// by their skeleton (see keySkeleton).
var verdictKeys = map[string]string{
	"outcome":           "outcome",
	"risklevel":         "risk_level",
	"userauthorization": "user_authorization",
	"rationale":         "rationale",
}

// checkVerdictKey returns an ErrAmbiguousVerdict error for a name that is
// not one of a verdict's field names but differs from one only by case,
// separators or naming style ("RISK_LEVEL", "riskLevel", "Risk-Level"):
// the model meant that field, so ignoring it would read the verdict without
// it (SPEC G6; issue 18, item 7). Other names are ignored.
func checkVerdictKey(key string) error {
	want, ok := verdictKeys[keySkeleton(key)]
	if !ok || key == want {
		return nil
	}
	return fmt.Errorf("%w: the name %q is not %q", ErrAmbiguousVerdict, key, want)
}

// keySkeleton returns key's letters and digits in lower case, after
// compatibility normalisation (NFKC: a fullwidth "ｒｉｓｋ" is "risk"), with
// case, spaces, '_', '-', '.' and other separators set aside.
func keySkeleton(key string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(key) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
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
	switch o := vocab.Decision(norm(s)); o {
	case vocab.Allow, vocab.Deny:
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
		if r := action.Risk(norm(s)); r.Level() >= 0 {
			v.RiskLevel = r
		} else {
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
		if a := action.Authorization(norm(s)); a.Level() >= 0 {
			v.UserAuthorization = a
		} else {
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

	if v.Outcome == vocab.Allow {
		if rule, _ := RuleOutcome(v.RiskLevel, v.UserAuthorization, true); rule == vocab.Deny {
			v.Outcome, v.Overruled = vocab.Deny, true
		}
	}
	return v, nil
}

// RuleOutcome returns the default outcome rule's decision for risk and
// authorization (SPEC G6): low and medium allow, high allows only with
// authorization of at least medium, critical denies. An authorization that
// was not given (authGiven false) is unknown, so high risk then denies.
// decided is false only for a risk that is not one of the four levels.
func RuleOutcome(risk action.Risk, auth action.Authorization, authGiven bool) (outcome vocab.Decision, decided bool) {
	if !authGiven {
		auth = action.AuthUnknown
	}
	switch risk {
	case action.RiskLow, action.RiskMedium:
		return vocab.Allow, true
	case action.RiskHigh:
		if auth.Level() >= action.AuthMedium.Level() {
			return vocab.Allow, true
		}
		return vocab.Deny, true
	case action.RiskCritical:
		return vocab.Deny, true
	}
	return "", false
}
