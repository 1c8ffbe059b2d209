//go:build linux

package bash

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// TestG16_OutsideTheSandboxStateCovered: a command of a task without a
// sandbox, a full-access one, and an approved require_escalated one run
// outside the sandbox — they write where they like — but cannot read or
// change warden's state (SPEC G16).
func TestG16_OutsideTheSandboxStateCovered(t *testing.T) {
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces: %v", err)
	}
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv(wardenhome.EnvHome, state)
	if err := os.MkdirAll(filepath.Join(state, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(state, "token")
	for f, data := range map[string]string{token: "SECRET-TOKEN\n", filepath.Join(state, "keys", "k"): "SECRET-KEY\n", filepath.Join(state, "warden.db-wal"): "SECRET-WAL\n"} {
		if err := os.WriteFile(f, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		policy *sandbox.Policy
		args   map[string]any
	}{
		{"no sandbox", nil, nil},
		{"full-access", &sandbox.Policy{Mode: sandbox.FullAccess}, nil},
		{"escalated", &sandbox.Policy{Mode: sandbox.WorkspaceWrite}, map[string]any{"sandbox_permissions": "require_escalated", "justification": "needs the whole disk"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			if c.policy != nil {
				c.policy.Workdir = work
			}
			out := filepath.Join(sandboxtest.OutsideDir(t, work), "written")
			planted := filepath.Join(state, "config.toml")
			args := map[string]any{"cmd": "cat " + token + " " + state + "/keys/k " + state + "/warden.db-wal; ls -a " + state +
				"; echo planted > " + planted + "; echo done > " + out}
			for k, v := range c.args {
				args[k] = v
			}
			res, err := runWith(t, newShell(Options{Dir: work, Sandbox: c.policy}), &asker{approve: true}, args)
			if err != nil {
				t.Fatalf("%v: %s", err, res)
			}
			listed := false
			for _, line := range strings.Split(res, "\n") {
				listed = listed || line == "token" || line == "keys" || line == "warden.db-wal"
			}
			if strings.Contains(res, "SECRET") || listed {
				t.Errorf("the command saw warden's state: %s", res)
			}
			if _, err := os.Stat(planted); err == nil {
				t.Errorf("the command planted %s", planted)
			}
			if b, err := os.ReadFile(out); err != nil || string(b) != "done\n" {
				t.Errorf("the command could not write outside the sandbox: %q, %v (output %s)", b, err, res)
			}
			if b, _ := os.ReadFile(token); string(b) != "SECRET-TOKEN\n" {
				t.Errorf("the token changed: %q", b)
			}
		})
	}
}

// TestG16_EscalationFailsClosedWithoutCover: where warden's state cannot
// be covered (no user namespaces), an approved escalation does not run and
// says why; a command of a task without a sandbox runs, and says what it
// could reach.
func TestG16_EscalationFailsClosedWithoutCover(t *testing.T) {
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no Landlock: %v", err)
	}
	noUserNS := func(*exec.Cmd) error {
		return fmt.Errorf("sandbox: no user namespaces here (disabled), so warden's state is exposed: %w", sandbox.ErrUnsupported)
	}
	work := t.TempDir()
	marker := filepath.Join(work, "ran")
	tl := newShell(Options{Dir: work, Sandbox: &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}})
	tl.cover = noUserNS
	res, err := runWith(t, tl, &asker{approve: true}, map[string]any{"cmd": "touch " + marker, "sandbox_permissions": "require_escalated", "justification": "x"})
	var te *tool.Error
	if !errors.As(err, &te) || te.Type != tool.ErrPermission || !strings.Contains(te.Message, "no user namespaces") {
		t.Fatalf("escalation without cover: %q, %v", res, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the escalated command ran uncovered")
	}
	free := newShell(Options{Dir: work})
	free.cover = noUserNS
	res, err = runWith(t, free, nil, map[string]any{"cmd": "touch " + marker})
	if err != nil || !strings.Contains(res, "warden: warning") || !strings.Contains(res, "no user namespaces") {
		t.Fatalf("unsandboxed command without cover: %q, %v", res, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the unsandboxed command did not run: %v", err)
	}
}
