package task_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/task"
)

// approvals_reviewer is a policy like any other (SPEC G3, P3): one name
// keeps its meaning, and a list names approvers asked in order.
func TestG3_ApprovalsReviewerList(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WARDEN_HOME", filepath.Join(dir, "home"))
	t.Setenv("WARDEN_MANAGED_CONFIG", filepath.Join(dir, "none.toml"))
	m := "scripted:" + write(t, dir, "m.yaml", "- content: done\n")
	for _, tc := range []struct {
		file, flag string
		want       []string
	}{
		{"", "", []string{"human"}},
		{"approvals_reviewer: user\n", "", []string{"human"}},
		{"approvals_reviewer: auto_review\n", "", []string{"auto_review"}},
		{"approvals_reviewer: [rules, auto_review, human]\n", "", []string{"rules", "auto_review", "human"}},
		{"approvals_reviewer: [rules, user]\n", "", []string{"rules", "human"}},
		{"approvals_reviewer: [rules, auto_review, human]\n", "rules,human", []string{"rules", "human"}},
		{"", "[rules, auto_review]", []string{"rules", "auto_review"}},
		{"approvals_reviewer: [rules, human]\n", "auto_review", []string{"auto_review"}},
	} {
		tk := mustLoad(t, dir, "t.yaml", "input: go\n"+tc.file)
		tk.Model = m
		p, err := tk.Prepare(task.Options{Transcript: filepath.Join(dir, "t.jsonl"), ApprovalsReviewer: tc.flag})
		if err != nil {
			t.Errorf("%q %q: %v", tc.file, tc.flag, err)
			continue
		}
		var got []string
		for _, e := range p.Boundary.Entries() {
			got = append(got, e.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q %q: boundary approvers %v, want %v", tc.file, tc.flag, got, tc.want)
		}
		p.Close()
	}
	for _, bad := range []struct{ src, want string }{
		{"input: go\napprovals_reviewer: [rules, robot]\n", `approvals_reviewer "robot"`},
		{"input: go\napprovals_reviewer: [rules, rules]\n", "listed twice"},
		{"input: go\napprovals_reviewer: {a: b}\n", "a name or a list of names"},
	} {
		if _, err := load(t, dir, "t.yaml", bad.src); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.src, err, bad.want)
		}
	}
	if _, err := task.ParseApprovalsReviewer("rules,,human"); err == nil {
		t.Error("an empty name in the flag was accepted")
	}
}
