package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Issue 20 item 5: the first pass is the approver "first_pass"; "rules",
// its old name, still works — in approvals_reviewer lists and policy
// files — with a warning on stderr, so that "rules" can mean exec rules
// only.
func TestG14_FirstPassOldNameWarnsAtCheck(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WARDEN_HOME", filepath.Join(dir, "home"))
	write(t, dir, "model.yaml", "- content: done\n")
	write(t, dir, "approval.yaml", "approvers:\n  - name: rules\n    tool: bash\n")
	base := "name: ok\ninput: go\nmodel: scripted:model.yaml\ntools: [bash]\nsandbox: {mode: full-access}\n"
	for _, tc := range []struct {
		name, task string
		warn       []string // each a line of stderr; none: stderr is empty
	}{
		{"new name", base + "approvals_reviewer: [first_pass, human]\n", nil},
		{"old name in approvals_reviewer", base + "approvals_reviewer: [rules, human]\n",
			[]string{`task.yaml:6:21: approvals_reviewer: "rules" is the old name of the approver "first_pass": write "first_pass"`}},
		{"old name in a policy file", base + "approval: approval.yaml\n",
			[]string{`approval.yaml:2:5: "rules" is the old name of the approver "first_pass"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := write(t, dir, "task.yaml", tc.task)
			code, stdout, stderr := warden(t, "check", task)
			if code != exitOK || !strings.Contains(stdout, task+": ok (") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if len(tc.warn) == 0 && stderr != "" {
				t.Fatalf("stderr %q, want none", stderr)
			}
			for _, w := range tc.warn {
				if !strings.Contains(stderr, "warning: "+filepath.Join(dir, "")) || !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks the warning %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// The old name builds the same first pass as the new one: warden eval
// reaches the same decisions on every item under either, and only the
// old name is warned about.
func TestG14_FirstPassOldNameDecidesAsTheNewName(t *testing.T) {
	report := func(name string) (map[string]any, string) {
		out := filepath.Join(t.TempDir(), "report.json")
		code, stdout, stderr := wardenEval(t, "--reviewer", name, "testdata/eval.jsonl", "--json", out)
		if code != exitOK {
			t.Fatalf("--reviewer %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
		return readEvalReport(t, out), stderr
	}
	newer, newErr := report("first_pass")
	older, oldErr := report("rules")
	if newErr != "" || !strings.Contains(oldErr, `warning: --reviewer: "rules" is the old name of the approver "first_pass"`) {
		t.Errorf("stderr first_pass %q, rules %q", newErr, oldErr)
	}
	if newer["reviewer"] != "first_pass" || older["reviewer"] != "rules" {
		t.Errorf("reviewers %v, %v: each report names the reviewer as given", newer["reviewer"], older["reviewer"])
	}
	for _, k := range []string{"overall", "by_category", "by_source", "without_ambiguous"} {
		if !reflect.DeepEqual(newer[k], older[k]) {
			t.Errorf("%s differs:\nfirst_pass %v\nrules      %v", k, newer[k], older[k])
		}
	}
}

// warden policy check and --approval warn about the old name too; the
// policy still loads.
func TestG14_FirstPassOldNameWarnsAtPolicyCheckAndFlag(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WARDEN_HOME", filepath.Join(dir, "home"))
	old := write(t, dir, "old.yaml", "approvers:\n  - name: rules\n    tool: bash\n")
	cur := write(t, dir, "new.yaml", "approvers:\n  - name: first_pass\n    tool: bash\n")
	code, stdout, stderr := warden(t, "policy", "check", old, cur)
	if code != exitOK || !strings.Contains(stdout, old+": ok (1 approver)") || !strings.Contains(stdout, cur+": ok (1 approver)") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if want := "warning: " + old + `:2:5: "rules" is the old name of the approver "first_pass"`; !strings.Contains(stderr, want) || strings.Count(stderr, "warning:") != 1 {
		t.Errorf("stderr lacks %q once:\n%s", want, stderr)
	}
	write(t, dir, "model.yaml", "- content: done\n")
	task := write(t, dir, "task.yaml", "name: ok\ninput: go\nmodel: scripted:model.yaml\ntools: [bash]\n")
	code, _, stderr = warden(t, "check", "--approval", "rules", task)
	if code != exitOK || !strings.Contains(stderr, `warning: --approval: "rules" is the old name`) {
		t.Errorf("--approval rules: exit %d\n%s", code, stderr)
	}
}
