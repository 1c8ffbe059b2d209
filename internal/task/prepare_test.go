package task_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
	_ "github.com/wardenhq/warden/model/openai"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/sandbox"
)

// Issue 10 item 5: Check resolves what Prepare resolves — here a scripted
// model file that does not load and an auto-review model without its key —
// and creates nothing: no working directory, no transcript.
func TestNewcomer5_CheckIsPrepareWithoutSideEffects(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.MkdirAll(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("OPENAI_API_KEY", "")
	write(t, dir, "ok.yaml", "- content: hi\n")
	write(t, dir, "bad.yaml", "- content: [1]\n")
	tr := filepath.Join(dir, "t.jsonl")
	ok := mustLoad(t, dir, "task.yaml", "input: go\nmodel: scripted:ok.yaml\ntools: [bash, text_editor]\n")
	if err := ok.Check(task.Options{Transcript: tr}); err != nil {
		t.Errorf("valid task: %v", err)
	}
	bad := mustLoad(t, dir, "bad-task.yaml", "input: go\nmodel: scripted:bad.yaml\n")
	if err := bad.Check(task.Options{Transcript: tr}); err == nil || !strings.Contains(err.Error(), "bad.yaml:1:12: ") {
		t.Errorf("bad model file: %v", err)
	}
	ar := mustLoad(t, dir, "ar.yaml", "input: go\nmodel: scripted:ok.yaml\napprovals_reviewer: auto_review\n")
	if err := ar.Check(task.Options{Transcript: tr, AutoReviewModel: "openai/r"}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("auto-review model without a key: %v", err)
	}
	if es, _ := os.ReadDir(tmp); len(es) != 0 {
		t.Errorf("Check made %v in TMPDIR", es)
	}
	if _, err := os.Stat(tr); !os.IsNotExist(err) {
		t.Errorf("Check created the transcript")
	}
	// Prepare of the same tasks: an error removes the temporary workdir
	// it made.
	if _, err := ar.Prepare(task.Options{Transcript: tr, AutoReviewModel: "openai/r"}); err == nil {
		t.Error("Prepare accepted a model without its key")
	}
	if es, _ := os.ReadDir(tmp); len(es) != 0 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("a failed Prepare left %v in TMPDIR", names)
	}
}

// Issue 10 item 8: Cleanup removes the temporary workdir Prepare made
// unless KeepWorkdir, and never a workdir the task names.
func TestNewcomer8_CleanupRemovesOnlyTemporaryWorkdir(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ok.yaml", "- content: hi\n")
	for _, tc := range []struct {
		name, src string
		keep      bool
		removed   bool
	}{
		{"temporary", "input: go\nmodel: scripted:ok.yaml\n", false, true},
		{"temporary, kept", "input: go\nmodel: scripted:ok.yaml\n", true, false},
		{"the task's", "input: go\nmodel: scripted:ok.yaml\nworkdir: .\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tk := mustLoad(t, dir, "task.yaml", tc.src)
			p, err := tk.Prepare(task.Options{Transcript: filepath.Join(t.TempDir(), "t.jsonl"), KeepWorkdir: tc.keep})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if p.TempWorkdir {
					os.RemoveAll(p.Workdir)
				}
			})
			os.Mkdir(filepath.Join(p.Workdir, "ro"), 0o500) // a directory a tool left read-only
			p.Close()
			removed, err := p.Cleanup()
			if err != nil || removed != tc.removed {
				t.Errorf("Cleanup = %v, %v; want %v", removed, err, tc.removed)
			}
			if _, err := os.Stat(p.Workdir); os.IsNotExist(err) != tc.removed {
				t.Errorf("workdir %s exists: %v", p.Workdir, err == nil)
			}
		})
	}
}

// Issue 10 item 8: an input over MaxInput is an error at its position that
// says the size and the limit.
func TestNewcomer8_InputLimit(t *testing.T) {
	dir := t.TempDir()
	_, err := load(t, dir, "task.yaml", "name: big\ninput: "+strings.Repeat("x", task.MaxInput+1)+"\n")
	var pe *policy.Error
	if !errors.As(err, &pe) || pe.Pos.Line != 2 || pe.Pos.Col != 8 || !strings.Contains(err.Error(), "limit is 1 MiB") {
		t.Errorf("input over the limit: %v", err)
	}
	if _, err := load(t, dir, "task.yaml", "name: ok\ninput: "+strings.Repeat("x", task.MaxInput)+"\n"); err != nil {
		t.Errorf("input at the limit: %v", err)
	}
}

// SPEC G16: a run's sandboxed commands share private temporary
// directories kept in warden's home under the run's ID: what one writes to
// /tmp the next reads, nothing of it (a repository with a hook, say) is in
// the host's /tmp, and it goes with the run.
func TestG16_RunTempDirGoesWithTheRun(t *testing.T) {
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no Landlock: %v", err)
	}
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces: %v", err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	t.Setenv(wardenhome.EnvHome, home)
	name := "warden-g16-" + filepath.Base(dir)
	write(t, dir, "model.yaml", `- tool_calls:
    - function: bash
      arguments: {cmd: "mkdir -p /tmp/`+name+`/.git/hooks && echo kept-`+name+` > /tmp/`+name+`/note"}
- tool_calls:
    - function: bash
      arguments: {cmd: "cat /tmp/`+name+`/note"}
- content: Done.
`)
	tk := mustLoad(t, dir, "task.yaml", `name: g16
input: go
model: scripted:model.yaml
tools: [bash]
sandbox: {mode: workspace-write}
approval: [{name: auto, tools: "*"}]
`)
	tr := filepath.Join(dir, "t.jsonl")
	p, err := tk.Prepare(task.Options{Transcript: tr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(p.Workdir); os.RemoveAll("/tmp/" + name) })
	res := p.Execute(context.Background())
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s (%v)", res.Status, res.Err)
	}
	if data, _ := os.ReadFile(tr); strings.Count(string(data), "kept-"+name) < 2 {
		t.Errorf("the second command did not read what the first wrote:\n%s", data)
	}
	if _, err := os.Lstat("/tmp/" + name); err == nil {
		t.Errorf("/tmp/%s is in the host's /tmp", name)
	}
	if p.TempDir == "" || !strings.HasPrefix(p.TempDir, home+"/") {
		t.Fatalf("TempDir = %q, want one under %s", p.TempDir, home)
	}
	if _, err := os.Stat(filepath.Join(p.TempDir, "tmp", name, ".git", "hooks")); err != nil {
		t.Errorf("not kept with the run: %v", err)
	}
	if _, err := p.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p.TempDir); !os.IsNotExist(err) {
		t.Errorf("%s outlived the run (%v)", p.TempDir, err)
	}
}

// approvals_reviewer is a policy like any other (SPEC G3, P3): one name
// keeps its meaning, and a list names approvers asked in order.
func TestG3_ApprovalsReviewerList(t *testing.T) {
	dir := t.TempDir()
	hometest.Use(t, filepath.Join(dir, "home"))
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
