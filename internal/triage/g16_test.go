package triage_test

import (
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/shell/shelltest"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// TestG16_FirstPassNeverAllowsWhatBashReadsDifferently: the first pass
// passes on or denies every script bash reads differently from the parser
// (`A=1<CR>ls rm -rf victim` is rm to bash), with or without a rule
// forbidding rm -rf; a script allowed would run, and the victim must
// survive.
func TestG16_FirstPassNeverAllowsWhatBashReadsDifferently(t *testing.T) {
	set, err := rules.Parse([]byte(`prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")`), "g16.rules")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range shelltest.Attacks {
		dir := t.TempDir()
		v := shelltest.Victim(t, dir)
		for _, s := range []*rules.Set{nil, set} {
			act := action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", a}, Cwd: dir}
			if verdict := triage.Judge(act, s); verdict.Decision == vocab.Allow {
				t.Errorf("Judge(%q) = allow: %s", a, verdict.Reason)
				shelltest.Run(t, dir, a)
			}
		}
		if !shelltest.Exists(v) {
			t.Errorf("%q deleted the victim", a)
		}
	}
	// The same words without the disagreement stay routine.
	act := action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", "A=1 ls"}, Cwd: project}
	if v := triage.Judge(act, nil); v.Decision != vocab.Allow {
		t.Errorf("Judge(A=1 ls) = %s: %s", v.Decision, v.Reason)
	}
}
