package bash

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// G4: a shell kept inside (Options.Inside) asks nobody, whatever approver
// the context holds: a command a rule sends for approval, one that asks
// for escalated permissions, a write and a network request the sandbox
// blocks are refused or reported blocked; nothing outside changes and the
// approver is never called, though it would approve everything.
func TestG4_InsideNeverAsks(t *testing.T) {
	set := &rules.Set{}
	if err := set.Add(rules.Rule{Pattern: [][]string{{"touch"}}, Decision: rules.Prompt}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			if _, err := sandbox.Supported(); err != nil {
				t.Skipf("no Landlock: %v", err)
			}
			work := t.TempDir()
			tl := newShell(Options{Dir: work, Sandbox: &sandbox.Policy{Mode: mode, Workdir: work}, Rules: set, Inside: true})
			outside := filepath.Join(sandboxtest.OutsideDir(t, work), "f")
			a := &asker{approve: true}
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
			defer srv.Close()
			for _, tc := range []struct {
				args    map[string]any
				refused bool // a permission error, not run at all
			}{
				{map[string]any{"cmd": "touch " + outside}, true},
				{map[string]any{"cmd": "echo x > " + outside, "sandbox_permissions": "require_escalated"}, true},
				{map[string]any{"cmd": "echo x > " + outside}, false},
				{map[string]any{"cmd": "curl -sS -m 3 " + srv.URL + " && echo sent"}, false},
			} {
				out, err := runWith(t, tl, a, tc.args)
				var te *tool.Error
				switch {
				case tc.refused && (!errors.As(err, &te) || te.Type != tool.ErrPermission || !strings.Contains(te.Message, "cannot cross")):
					t.Errorf("%v: %q, %v; want a refusal", tc.args["cmd"], out, err)
				case !tc.refused && (err != nil || !strings.Contains(out, "blocked by the sandbox") || strings.Contains(out, "sent")):
					t.Errorf("%v: %q, %v; want it blocked", tc.args["cmd"], out, err)
				}
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("a shell kept inside wrote outside")
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("a shell kept inside reached the network %d times", n)
			}
			if k := a.kinds(); k != "" {
				t.Errorf("the approver was asked: %s", k)
			}
		})
	}
}

// G4: a shell kept inside without a sandbox to keep it there runs nothing.
func TestG4_InsideWithoutSandboxRunsNothing(t *testing.T) {
	work := t.TempDir()
	for _, p := range []*sandbox.Policy{nil, {Mode: sandbox.FullAccess, Workdir: work}} {
		tl := newShell(Options{Dir: work, Sandbox: p, Inside: true})
		_, err := runWith(t, tl, &asker{approve: true}, map[string]any{"cmd": "touch made"})
		var te *tool.Error
		if !errors.As(err, &te) || te.Type != tool.ErrPermission {
			t.Errorf("sandbox %v: %v, want a refusal", p, err)
		}
		if _, err := os.Stat(filepath.Join(work, "made")); err == nil {
			t.Fatalf("sandbox %v: the command ran", p)
		}
	}
}
