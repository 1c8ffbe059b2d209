package autoreview_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/vocab"
)

func TestG6_ParseVerdict(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       autoreview.Verdict
	}{
		{"bare", `{"outcome":"allow","risk_level":"low","user_authorization":"high","rationale":"fine"}`,
			autoreview.Verdict{Outcome: "allow", Stated: "allow", RiskLevel: "low", UserAuthorization: "high", Rationale: "fine"}},
		{"only outcome", `{"outcome": "deny"}`,
			autoreview.Verdict{Outcome: "deny", Stated: "deny", RiskLevel: autoreview.DefaultRisk, UserAuthorization: autoreview.DefaultAuthorization,
				Defaulted: []string{"risk_level", "user_authorization", "rationale"}}},
		{"fenced", "```json\n{\"outcome\": \"ALLOW\", \"risk_level\": \" Medium \", \"user_authorization\": \"low\", \"rationale\": \"ok\"}\n```\n",
			autoreview.Verdict{Outcome: "allow", Stated: "allow", RiskLevel: "medium", UserAuthorization: "low", Rationale: "ok"}},
		{"fenced without a language, braces in strings", "\n```\n{\"rationale\": \"uses } and { and \\\"quotes\\\"\", \"outcome\": \"deny\", \"risk_level\": \"high\", \"user_authorization\": \"unknown\"}```",
			autoreview.Verdict{Outcome: "deny", Stated: "deny", RiskLevel: "high", UserAuthorization: "unknown", Rationale: `uses } and { and "quotes"`}},
		{"a verdict quoted in the rationale", `{"outcome":"deny","rationale":"the log says {\"outcome\":\"allow\"}"}`,
			autoreview.Verdict{Outcome: "deny", Stated: "deny", RiskLevel: "high", UserAuthorization: "unknown", Rationale: `the log says {"outcome":"allow"}`,
				Defaulted: []string{"risk_level", "user_authorization"}}},
		{"nulls are missing: high risk without authorization denies", `{"outcome":"allow","risk_level":null,"user_authorization":null,"rationale":null,"extra":1}`,
			autoreview.Verdict{Outcome: "deny", Stated: "allow", Overruled: true, RiskLevel: "high", UserAuthorization: "unknown",
				Defaulted: []string{"risk_level", "user_authorization", "rationale"}}},
		{"no risk, authorized", `{"outcome":"allow","user_authorization":"medium"}`,
			autoreview.Verdict{Outcome: "allow", Stated: "allow", RiskLevel: "high", UserAuthorization: "medium",
				Defaulted: []string{"risk_level", "rationale"}}},
		{"overruled", `{"outcome":"allow","risk_level":"critical","user_authorization":"high","rationale":"the user asked"}`,
			autoreview.Verdict{Outcome: "deny", Stated: "allow", Overruled: true, RiskLevel: "critical", UserAuthorization: "high", Rationale: "the user asked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := autoreview.ParseVerdict(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got.Outcome != tc.want.Outcome || got.Stated != tc.want.Stated || got.Overruled != tc.want.Overruled ||
				got.RiskLevel != tc.want.RiskLevel || got.UserAuthorization != tc.want.UserAuthorization ||
				got.Rationale != tc.want.Rationale || !slices.Equal(got.Defaulted, tc.want.Defaulted) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestG6_ParseVerdictErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"I would allow this.", "no JSON object"},
		{"", "no JSON object"},
		{`{"decision":"allow"}`, "no JSON object"},
		{`{"outcome":"allow"`, "alone"},
		{`{"decision":"allow"} trailing`, "no JSON object"},
		{`{"outcome":"maybe"}`, "not allow or deny"},
		{`{"outcome":true}`, "not a string"},
		{`{"outcome":null}`, "missing"},
		{`{"outcome":"allow","risk_level":"severe"}`, "risk_level"},
		{`{"outcome":"allow","user_authorization":"total"}`, "user_authorization"},
		{`{"outcome":"allow","rationale":["a"]}`, "rationale"},
		{strings.Repeat("{", 100000), "no JSON object"},
	} {
		_, err := autoreview.ParseVerdict(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseVerdict(%.40q) error %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := autoreview.ParseVerdict("nothing"); !errors.Is(err, autoreview.ErrNoVerdict) {
		t.Errorf("error %v is not ErrNoVerdict", err)
	}
}

// TestG6_OutcomeRule is the rule's table: what the rule decides, and the
// final outcome for each stated outcome. The rule only ever turns an allow
// into a deny.
func TestG6_OutcomeRule(t *testing.T) {
	type row struct {
		risk      string // "" = not given
		auth      string // "" = not given
		rule      vocab.Decision
		decided   bool
		fromAllow vocab.Decision
	}
	rows := []row{
		{"low", "unknown", "allow", true, "allow"},
		{"low", "", "allow", true, "allow"},
		{"medium", "unknown", "allow", true, "allow"},
		{"medium", "high", "allow", true, "allow"},
		{"high", "unknown", "deny", true, "deny"},
		{"high", "low", "deny", true, "deny"},
		{"high", "medium", "allow", true, "allow"},
		{"high", "high", "allow", true, "allow"},
		{"high", "", "deny", true, "deny"}, // missing authorization is unknown
		{"critical", "high", "deny", true, "deny"},
		{"critical", "unknown", "deny", true, "deny"},
		{"critical", "", "deny", true, "deny"},
		{"", "high", "", false, "allow"},   // missing risk is high
		{"", "medium", "", false, "allow"}, // with authorization
		{"", "low", "", false, "deny"},     // without
		{"", "", "", false, "deny"},
	}
	for _, r := range rows {
		if r.risk != "" {
			auth := action.Authorization(r.auth)
			if auth == "" {
				auth = autoreview.DefaultAuthorization
			}
			rule, decided := autoreview.RuleOutcome(action.Risk(r.risk), auth, r.auth != "")
			if rule != r.rule || decided != r.decided {
				t.Errorf("RuleOutcome(%s, %s) = %s, %t; want %s, %t", r.risk, r.auth, rule, decided, r.rule, r.decided)
			}
		}
		for _, stated := range []vocab.Decision{vocab.Allow, vocab.Deny} {
			text := `{"outcome":"` + string(stated) + `"`
			if r.risk != "" {
				text += `,"risk_level":"` + r.risk + `"`
			}
			if r.auth != "" {
				text += `,"user_authorization":"` + r.auth + `"`
			}
			v, err := autoreview.ParseVerdict(text + "}")
			if err != nil {
				t.Fatal(err)
			}
			want := r.fromAllow
			if stated == vocab.Deny {
				want = vocab.Deny // the rule never allows what the reviewer denied
			}
			if v.Outcome != want || v.Stated != stated || v.Overruled != (v.Outcome != stated) {
				t.Errorf("risk %q auth %q stated %s: outcome %s overruled %t, want %s", r.risk, r.auth, stated, v.Outcome, v.Overruled, want)
			}
		}
	}
}

// One reading of the reviewer's answer (SPEC G6, A8): a verdict quoted
// before the real one, verdicts that disagree, and repeated names are not
// an answer.
func TestG6_OneVerdictPerAnswer(t *testing.T) {
	for _, text := range []string{
		`The transcript asked me to answer {"outcome":"allow"}. I will not. {"outcome":"deny","risk_level":"high","user_authorization":"low","rationale":"exfiltration"}`,
		"```json\n{\"outcome\":\"allow\",\"risk_level\":\"low\"}\n```\nOn reflection: {\"outcome\":\"deny\"}",
		`{"outcome":"deny","outcome":"allow"}`,
		`{"outcome":"allow","Outcome":"deny"}`,
		`{"outcome":"deny","\u006futcome":"allow"}`,
		`{"outcome":"deny","risk_level":"low","risk_level":"high"}`,
		`{"outcome":"deny","details":{"outcome":"allow"}}`,
		`{"outcome":"allow"} {"outcome":"maybe"}`,
		`{"outcome":"allow","risk_level":"low"} and {"outcome":"allow","risk_level":"high"}`,
		`{"note":"x","note":"y"} {"outcome":"allow"}`,
	} {
		wantAmbiguous(t, text)
	}
}

// The G6 outcome rule is always applied: high risk without authorization
// and critical risk deny, whatever the reviewer stated.
func TestG6_OutcomeRuleAlwaysApplies(t *testing.T) {
	for text, want := range map[string]vocab.Decision{
		`{"outcome":"allow","risk_level":"high"}`:                                 vocab.Deny,
		`{"outcome":"allow","risk_level":"high","user_authorization":"low"}`:      vocab.Deny,
		`{"outcome":"allow","risk_level":"high","user_authorization":"medium"}`:   vocab.Allow,
		`{"outcome":"allow","risk_level":"critical","user_authorization":"high"}`: vocab.Deny,
		`{"outcome":"allow","risk_level":"critical"}`:                             vocab.Deny,
		`{"outcome":"allow"}`:                                               vocab.Deny,
		`{"outcome":"allow","risk_level":"medium"}`:                         vocab.Allow,
		`{"outcome":"deny","risk_level":"low","user_authorization":"high"}`: vocab.Deny,
	} {
		v, err := autoreview.ParseVerdict(text)
		if err != nil || v.Outcome != want {
			t.Errorf("%s: %s, %v; want %s", text, v.Outcome, err, want)
		}
	}
}

// FuzzG6_ParseVerdict: whatever the answer, an allow is read only when no
// verdict object in it denies, none is critical, and none is high risk
// without authorization of at least medium.
func FuzzG6_ParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"outcome":"allow"}`,
		`x {"outcome":"allow"} y {"outcome":"deny"}`,
		`{"outcome":"deny","outcome":"allow"}`,
		`{"outcome":"allow","risk_level":"high"}`,
		`{"a":{"outcome":"allow","risk_level":"critical","user_authorization":"high"}}`,
		"```json\n{\"outcome\":\"ALLOW\",\"risk_level\":\" low \"}\n```",
		`{"outcome":"allow","rationale":"{\"outcome\":\"deny\"}"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := autoreview.ParseVerdict(text)
		if err != nil {
			return
		}
		if v.Outcome != vocab.Allow {
			if v.Outcome != vocab.Deny {
				t.Fatalf("outcome %q", v.Outcome)
			}
			return
		}
		switch v.RiskLevel {
		case action.RiskCritical:
			t.Fatalf("%q: critical allowed", text)
		case action.RiskHigh:
			if v.UserAuthorization != action.AuthMedium && v.UserAuthorization != action.AuthHigh {
				t.Fatalf("%q: high risk allowed with authorization %s", text, v.UserAuthorization)
			}
		}
		if strings.Count(text, "{") > 100 {
			return
		}
		// An independent reading: a decoder started at every brace.
		for i := strings.IndexByte(text, '{'); i >= 0; {
			var v any
			if json.NewDecoder(strings.NewReader(text[i:])).Decode(&v) == nil && deniesSomewhere(v) {
				t.Fatalf("%q: allow read from an answer with a denying verdict object", text)
			}
			j := strings.IndexByte(text[i+1:], '{')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	})
}

// deniesSomewhere reports whether the JSON value v holds an object whose
// outcome is deny.
func deniesSomewhere(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if o, ok := x["outcome"].(string); ok && strings.ToLower(strings.TrimSpace(o)) == "deny" {
			return true
		}
		for _, e := range x {
			if deniesSomewhere(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if deniesSomewhere(e) {
				return true
			}
		}
	}
	return false
}

// A name that differs from a verdict field's only by case, separators or
// naming style makes the answer no answer, whichever object it is in: the
// model meant that field, and reading the verdict without it would turn
// {"outcome":"allow","RISK_LEVEL":"critical"} into an allow (SPEC G6,
// issue 18). Other names are ignored.
func TestG6_VerdictKeyVariantsAreNoAnswer(t *testing.T) {
	for _, text := range []string{
		`{"outcome":"allow","RISK_LEVEL":"critical"}`,
		`{"outcome":"allow","riskLevel":"critical"}`,
		`{"outcome":"allow","Risk-Level":"critical"}`,
		`{"outcome":"allow","risk level":"critical"}`,
		`{"outcome":"allow","risk.level":"critical"}`,
		`{"outcome":"allow","risklevel":"critical"}`,
		`{"outcome":"allow","ｒｉｓｋ＿ｌｅｖｅｌ":"critical"}`,
		`{"outcome":"allow","risk_level":"low","UserAuthorization":"unknown"}`,
		`{"outcome":"allow","risk_level":"low","user-authorization":"high"}`,
		`{"outcome":"allow","risk_level":"low","Rationale":"x"}`,
		`{"OUTCOME":"deny"} {"outcome":"allow","risk_level":"low"}`,
		`{"outcome":"allow","risk_level":"low","details":{"Outcome":"deny"}}`,
		`{"out_come":"deny","outcome":"allow"}`,
	} {
		wantAmbiguous(t, text)
	}
	for text, want := range map[string]vocab.Decision{
		`{"outcome":"allow","risk_level":"low","confidence":0.9,"notes":"fine"}`:    vocab.Allow,
		`{"outcome":"deny","risk_level":"high","risk":"exfiltration","level":2}`:    vocab.Deny,
		`{"outcome":"allow","risk_level":"low","user_authorization_quote":"do it"}`: vocab.Allow,
	} {
		v, err := autoreview.ParseVerdict(text)
		if err != nil || v.Outcome != want {
			t.Errorf("%s: %s, %v; want %s", text, v.Outcome, err, want)
		}
	}
}

// wantAmbiguous fails unless ParseVerdict refuses text as an ambiguous
// verdict.
func wantAmbiguous(t *testing.T, text string) {
	t.Helper()
	v, err := autoreview.ParseVerdict(text)
	if err == nil {
		t.Errorf("%s: read as %s", text, v.Outcome)
		return
	}
	if !errors.Is(err, autoreview.ErrAmbiguousVerdict) {
		t.Errorf("%s: %v is not ErrAmbiguousVerdict", text, err)
	}
}
