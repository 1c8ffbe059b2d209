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
	// DefaultRisk is the risk of a verdict without risk_level: high, so
	// an allow that rates no risk stands only with an authorization of at
	// least medium; see Verdict.
	DefaultRisk = action.RiskHigh
	// DefaultAuthorization is the authorization of a verdict without
	// user_authorization.
	DefaultAuthorization = action.AuthUnknown
)

// Verdict is the reviewer's answer (SPEC G6).
//
// Only outcome is required. A missing risk_level reads as DefaultRisk
// (high), a missing user_authorization as DefaultAuthorization (unknown),
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
//
// An authorization of medium or high must quote the person's words it
// rests on (user_authorization_quote); Reviewer.Review checks the quote
// against the person's requests with RequireEvidence, which lowers an
// authorization without evidence to unknown before the rule applies again.
type Verdict struct {
	// Outcome is the final outcome, after the outcome rule.
	Outcome vocab.Decision `json:"outcome"`
	// RiskLevel is the risk the reviewer rated, or DefaultRisk.
	RiskLevel action.Risk `json:"risk_level"`
	// UserAuthorization is how clearly the person authorised the action,
	// as the reviewer rated it, or DefaultAuthorization.
	UserAuthorization action.Authorization `json:"user_authorization"`
	// UserAuthorizationQuote is the person's words the reviewer quoted as
	// the evidence of an authorization of medium or high (see
	// RequireEvidence).
	UserAuthorizationQuote string `json:"user_authorization_quote,omitempty"`
	// StatedAuthorization is the authorization the reviewer rated, set
	// only when RequireEvidence lowered it.
	StatedAuthorization action.Authorization `json:"stated_user_authorization,omitempty"`
	// AuthorizationLowered says why RequireEvidence lowered the
	// authorization to unknown; empty when it did not.
	AuthorizationLowered string `json:"authorization_lowered,omitempty"`
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

// ErrAmbiguousVerdict is the error of an answer that is not one verdict
// object standing alone: a verdict inside prose or nested in another
// object, verdict objects that could be read more than one way (repeated
// names, names that are variants of a field's), an answer too long to
// read. Such an answer is not an answer (SPEC G6, G10), whichever reading
// an injected object was meant to win.
var ErrAmbiguousVerdict = errors.New("the answer is ambiguous")

// maxVerdictText bounds the answer read for a verdict.
const maxVerdictText = 256 << 10

// ParseVerdict reads the reviewer's answer, which must be one JSON verdict
// object and nothing else: alone, or alone in a single code fence (SPEC
// G6). A verdict quoted in prose, wrapped in words ("My decision:" …),
// nested in another object or followed by a second one is no answer
// (ErrAmbiguousVerdict), so neither a verdict quoted from the transcript
// nor one injected into the reviewer's reasoning can stand for the
// reviewer's own. Nor is an object with a repeated name (or two names that
// differ only by case), or with a name that differs from a verdict field's
// only by case, separators or naming style ("RISK_LEVEL", "riskLevel"):
// the model meant that field, and the verdict is not read without it.
// Other names are ignored. Values are matched without regard to case and
// surrounding space; an unknown value, a value of the wrong type or a
// missing outcome is an error. Missing optional fields take their
// defaults and the outcome rule is applied (see Verdict).
func ParseVerdict(text string) (Verdict, error) {
	return parseVerdict(text, "", false)
}

// parseVerdict is ParseVerdict that also checks the verdict's "nonce"
// against nonce (see checkNonce).
func parseVerdict(text, nonce string, nonceRequired bool) (Verdict, error) {
	if len(text) > maxVerdictText {
		return Verdict{}, fmt.Errorf("%w: an answer longer than %d bytes is not read", ErrAmbiguousVerdict, maxVerdictText)
	}
	body, err := wholeAnswer(text)
	if err != nil {
		return Verdict{}, err
	}
	raw := json.RawMessage(body)
	if err := argjson.CheckNames(raw); err != nil {
		return Verdict{}, fmt.Errorf("%w: %w", ErrAmbiguousVerdict, err)
	}
	var found []map[string]json.RawMessage
	if err := collectVerdicts(raw, &found, 0); err != nil {
		return Verdict{}, err
	}
	switch {
	case len(found) == 0:
		return Verdict{}, ErrNoVerdict
	case len(found) > 1:
		return Verdict{}, fmt.Errorf("%w: a verdict object nested in the verdict", ErrAmbiguousVerdict)
	}
	if !hasOutcome(raw) {
		return Verdict{}, fmt.Errorf("%w: a verdict nested in another object is no answer; answer with the verdict object itself", ErrAmbiguousVerdict)
	}
	if err := checkNonce(raw, nonce, nonceRequired); err != nil {
		return Verdict{}, err
	}
	return verdictOf(found[0])
}

// wholeAnswer returns the JSON object that is the whole of text, alone or
// alone in a single code fence (its info string empty or "json"), with the
// surrounding space removed. Anything else is ErrAmbiguousVerdict when
// text holds an object with an "outcome" key somewhere, ErrNoVerdict when
// it does not.
func wholeAnswer(text string) (string, error) {
	body := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(body, "```"); ok {
		info, inner, _ := strings.Cut(rest, "\n")
		inner, closed := strings.CutSuffix(strings.TrimRight(inner, " \t\r\n"), "```")
		if lang := strings.TrimSpace(info); !closed || strings.Contains(inner, "```") || lang != "" && !strings.EqualFold(lang, "json") {
			return "", notAlone(text)
		}
		body = strings.TrimSpace(inner)
	}
	if !strings.HasPrefix(body, "{") || objectEnd(body, 0) != len(body) || !json.Valid([]byte(body)) {
		return "", notAlone(text)
	}
	return body, nil
}

// notAlone is the error of an answer that is not one JSON object alone.
func notAlone(text string) error {
	if strings.Contains(strings.ToLower(text), `"outcome"`) {
		return fmt.Errorf("%w: the answer must be the JSON verdict object alone (or alone in one code fence), with no other text", ErrAmbiguousVerdict)
	}
	return ErrNoVerdict
}

// hasOutcome reports whether the object raw has an "outcome" member of its
// own.
func hasOutcome(raw json.RawMessage) bool {
	found := false
	_ = argjson.Each(raw, func(k string, _ json.RawMessage) bool {
		found = k == "outcome"
		return !found
	})
	return found
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
	// userauthorizationquote is the evidence of an authorization.
	"userauthorizationquote": "user_authorization_quote",
	// nonce is the review's nonce (see VerdictTool).
	"nonce": "nonce",
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

// levelField reads the verdict's field key (with field, see verdictOf)
// as one of the levels of L, which want lists for the error: def when the
// field is absent, noted in v.Defaulted.
func levelField[L interface {
	~string
	Level() int
}](v *Verdict, field func(key string) (string, bool, error), key string, def L, want string) (L, error) {
	s, given, err := field(key)
	if err != nil {
		var zero L
		return zero, err
	}
	if !given {
		v.Defaulted = append(v.Defaulted, key)
		return def, nil
	}
	if l := L(strings.ToLower(strings.TrimSpace(s))); l.Level() >= 0 {
		return l, nil
	}
	return def, fmt.Errorf("verdict: %s %q is not %s", key, s, want)
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

	if v.RiskLevel, err = levelField(&v, field, "risk_level", DefaultRisk, "low, medium, high or critical"); err != nil {
		return v, err
	}
	if v.UserAuthorization, err = levelField(&v, field, "user_authorization", DefaultAuthorization, "unknown, low, medium or high"); err != nil {
		return v, err
	}

	s, _, err = field("user_authorization_quote")
	if err != nil {
		return v, err
	}
	v.UserAuthorizationQuote = s

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
