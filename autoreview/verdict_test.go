package autoreview_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/autoreview"
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
		{"fenced in prose", "Here is my verdict:\n```json\n{\"outcome\": \"ALLOW\", \"risk_level\": \" Medium \", \"user_authorization\": \"low\", \"rationale\": \"ok\"}\n```\nDone.",
			autoreview.Verdict{Outcome: "allow", Stated: "allow", RiskLevel: "medium", UserAuthorization: "low", Rationale: "ok"}},
		{"braces in strings and an earlier object", `Options {a, b}. {"note": "x"} then {"rationale": "uses } and { and \"quotes\"", "outcome": "deny", "risk_level": "high", "user_authorization": "unknown"}`,
			autoreview.Verdict{Outcome: "deny", Stated: "deny", RiskLevel: "high", UserAuthorization: "unknown", Rationale: `uses } and { and "quotes"`}},
		{"nested", `{"verdict": {"outcome": "deny", "rationale": "nested"}}`,
			autoreview.Verdict{Outcome: "deny", Stated: "deny", RiskLevel: "medium", UserAuthorization: "unknown", Rationale: "nested",
				Defaulted: []string{"risk_level", "user_authorization"}}},
		{"first of two", `{"outcome":"deny","rationale":"one"} {"outcome":"allow","rationale":"two"}`,
			autoreview.Verdict{Outcome: "deny", Stated: "deny", RiskLevel: "medium", UserAuthorization: "unknown", Rationale: "one",
				Defaulted: []string{"risk_level", "user_authorization"}}},
		{"nulls are missing", `{"outcome":"allow","risk_level":null,"user_authorization":null,"rationale":null,"extra":1}`,
			autoreview.Verdict{Outcome: "allow", Stated: "allow", RiskLevel: "medium", UserAuthorization: "unknown",
				Defaulted: []string{"risk_level", "user_authorization", "rationale"}}},
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
		{`{"outcome":"allow"`, "no JSON object"},
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
		rule      autoreview.Outcome
		decided   bool
		fromAllow autoreview.Outcome
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
		{"high", "", "", false, "allow"},
		{"critical", "high", "deny", true, "deny"},
		{"critical", "unknown", "deny", true, "deny"},
		{"critical", "", "deny", true, "deny"},
		{"", "high", "", false, "allow"},
		{"", "", "", false, "allow"},
	}
	for _, r := range rows {
		if r.risk != "" {
			auth := autoreview.Authorization(r.auth)
			if auth == "" {
				auth = autoreview.DefaultAuthorization
			}
			rule, decided := autoreview.RuleOutcome(autoreview.Risk(r.risk), auth, r.auth != "")
			if rule != r.rule || decided != r.decided {
				t.Errorf("RuleOutcome(%s, %s) = %s, %t; want %s, %t", r.risk, r.auth, rule, decided, r.rule, r.decided)
			}
		}
		for _, stated := range []autoreview.Outcome{autoreview.Allow, autoreview.Deny} {
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
			if stated == autoreview.Deny {
				want = autoreview.Deny // the rule never allows what the reviewer denied
			}
			if v.Outcome != want || v.Stated != stated || v.Overruled != (v.Outcome != stated) {
				t.Errorf("risk %q auth %q stated %s: outcome %s overruled %t, want %s", r.risk, r.auth, stated, v.Outcome, v.Overruled, want)
			}
		}
	}
}
