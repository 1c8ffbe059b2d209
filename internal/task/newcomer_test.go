package task_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/task"
	_ "github.com/wardenhq/warden/model/openai"
	"github.com/wardenhq/warden/policy"
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
