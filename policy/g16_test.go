package policy

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/shell/shelltest"
)

// TestG16_QuickstartPatternRefusesWhatBashReadsDifferently: the
// quickstart's own approver (commands: [ls, cat]) approves none of the
// scripts bash reads differently from the parser (`A=1<CR>ls rm -rf
// victim` is rm to bash), and a call approved would run: the victim must
// survive whatever the approvers approve.
func TestG16_QuickstartPatternRefusesWhatBashReadsDifferently(t *testing.T) {
	data, err := os.ReadFile("../examples/quickstart/approval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data, "approval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var approvers []Matcher
	for _, e := range f.Entries {
		if d, _ := e.Params["decision"].(string); d != "" && d != "approve" {
			continue
		}
		m, err := e.Matcher()
		if err != nil {
			t.Fatal(err)
		}
		approvers = append(approvers, m)
	}
	if len(approvers) == 0 {
		t.Fatal("the quickstart has no approving entry")
	}
	for _, a := range shelltest.Attacks {
		dir := t.TempDir()
		v := shelltest.Victim(t, dir)
		for _, m := range approvers {
			if m.Match(NewTarget(call("bash", bashCall(a)), nil)) {
				t.Errorf("the quickstart approves %q", a)
				shelltest.Run(t, dir, a)
			}
		}
		if !shelltest.Exists(v) {
			t.Errorf("%q deleted the victim", a)
		}
	}
	// What the parser and bash agree on is still approved.
	for _, ok := range []string{"ls -la", "cat notes.txt; ls", "ls 'a b'"} {
		matched := false
		for _, m := range approvers {
			matched = matched || m.Match(NewTarget(call("bash", bashCall(ok)), nil))
		}
		if !matched {
			t.Errorf("the quickstart does not approve %q", ok)
		}
	}
}
