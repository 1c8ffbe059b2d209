package task_test

import (
	"slices"
	"testing"

	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/sandbox"
)

func TestG1_ConfigPolicy(t *testing.T) {
	p, err := task.SandboxConfig{WritableRoots: []string{"cache", "/abs"}, NetworkAccess: true}.Policy("/work", "/tasks")
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != sandbox.WorkspaceWrite || p.Workdir != "/work" || !p.NetworkAccess ||
		!slices.Equal(p.WritableRoots, []string{"/tasks/cache", "/abs"}) {
		t.Errorf("policy = %+v", p)
	}
	if p, _ := (task.SandboxConfig{Mode: "read-only", WritableRoots: []string{"c"}}).Policy("/work", ""); p.Mode != sandbox.ReadOnly || p.WritableRoots[0] != "/work/c" {
		t.Errorf("policy = %+v", p)
	}
	if _, err := (task.SandboxConfig{Mode: "bogus"}).Policy("/work", ""); err == nil {
		t.Error("bad mode: no error")
	}
}
