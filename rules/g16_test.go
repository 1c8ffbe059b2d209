package rules_test

import (
	"testing"

	"github.com/wardenhq/warden/internal/shell/shelltest"
	"github.com/wardenhq/warden/rules"
)

// TestG16_ForbiddenRuleHoldsWhereBashReadsDifferently: with `rm -rf`
// forbidden and ls, cat and shopt allowed, no script bash reads
// differently from the parser is allowed, whether given as a script or as
// the argv ["bash","-c",SCRIPT]; a script allowed would run, and the
// victim must survive.
func TestG16_ForbiddenRuleHoldsWhereBashReadsDifferently(t *testing.T) {
	set := load(t, "g16.rules", `
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = [["ls", "cat", "shopt", "alias"]], decision = "allow")
`)
	for _, a := range shelltest.Attacks {
		dir := t.TempDir()
		v := shelltest.Victim(t, dir)
		for _, res := range []rules.Result{rules.Evaluate(set, a), rules.EvaluateArgv(set, []string{"bash", "-c", a})} {
			if res.Decision == rules.Allow {
				t.Errorf("%q allowed:\n%s", a, res.Report())
				shelltest.Run(t, dir, a)
			}
			if res.Decision < rules.Prompt {
				t.Errorf("%q: %s, want prompt or forbidden", a, res.Decision)
			}
		}
		if !shelltest.Exists(v) {
			t.Errorf("%q deleted the victim", a)
		}
	}
	// What the parser and bash agree on keeps its decision.
	if res := rules.Evaluate(set, "ls -la; cat x"); res.Decision != rules.Allow {
		t.Errorf("ls -la; cat x: %s\n%s", res.Decision, res.Report())
	}
	if res := rules.Evaluate(set, "ls; rm -rf victim"); res.Decision != rules.Forbidden {
		t.Errorf("ls; rm -rf victim: %s\n%s", res.Decision, res.Report())
	}
}
