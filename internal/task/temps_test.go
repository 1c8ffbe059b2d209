package task_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/sandbox"
)

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
