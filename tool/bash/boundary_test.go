package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// asker records the boundary requests it gets and answers approve.
type asker struct {
	mu       sync.Mutex
	approve  bool
	requests []*boundary.Request
}

func (a *asker) Decide(_ context.Context, req *boundary.Request) (boundary.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, req)
	return boundary.Answer{Approved: a.approve, Explanation: fmt.Sprintf("approve=%v", a.approve), By: "test"}, nil
}

func (a *asker) kinds() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var k []string
	for _, r := range a.requests {
		k = append(k, string(r.Permission))
	}
	return strings.Join(k, ",")
}

func sandboxed(t *testing.T, mode sandbox.Mode, set *rules.Set) (*shellTool, string) {
	t.Helper()
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no Landlock: %v", err)
	}
	work := t.TempDir()
	return newShell(Options{Dir: work, Sandbox: &sandbox.Policy{Mode: mode, Workdir: work}, Rules: set}), work
}

func runWith(t *testing.T, tl *shellTool, d boundary.Decider, args map[string]any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx := context.Background()
	if d != nil {
		ctx = boundary.WithDecider(ctx, d)
	}
	return tl.Run(ctx, raw)
}

func TestG2_WriteOutsideRootsFailsThenSucceedsAfterApproval(t *testing.T) {
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
	out := filepath.Join(sandboxtest.OutsideDir(t, work), "f")
	cmd := map[string]any{"cmd": "echo hi > " + out}

	denied := &asker{}
	res, err := runWith(t, tl, denied, cmd)
	if err != nil || !strings.Contains(res, "blocked by the sandbox") || !(strings.Contains(res, "Permission denied") || strings.Contains(res, "Read-only file system")) {
		t.Fatalf("denied escalation: %q, %v", res, err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Fatal("the write happened without approval")
	}
	if denied.kinds() != "write" || denied.requests[0].Paths[0] != out {
		t.Errorf("requests = %+v", denied.requests)
	}

	approved := &asker{approve: true}
	if res, err := runWith(t, tl, approved, cmd); err != nil || strings.Contains(res, "blocked") {
		t.Fatalf("approved escalation: %q, %v", res, err)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != "hi\n" {
		t.Errorf("after approval: %q, %v", data, err)
	}
	// The approval was for that one action: the next write is blocked again.
	other := filepath.Join(filepath.Dir(out), "..", filepath.Base(filepath.Dir(out))+"-sibling")
	t.Cleanup(func() { os.Remove(other) })
	res, _ = runWith(t, tl, &asker{}, map[string]any{"cmd": "echo x > " + other})
	if !strings.Contains(res, "blocked by the sandbox") {
		t.Errorf("a later write was not blocked: %q", res)
	}
}

func TestG2_RequireEscalatedAsksFirst(t *testing.T) {
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
	out := filepath.Join(sandboxtest.OutsideDir(t, work), "f")
	cmd := map[string]any{"cmd": "echo hi > " + out, "sandbox_permissions": "require_escalated", "justification": "install into the shared cache"}

	for _, d := range []boundary.Decider{nil, &asker{}} {
		_, err := runWith(t, tl, d, cmd)
		var te *tool.Error
		if !errors.As(err, &te) || te.Type != tool.ErrApproval {
			t.Fatalf("decider %v: err %v, want an approval error", d, err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Fatal("an escalated command ran without approval")
		}
	}
	a := &asker{approve: true}
	if _, err := runWith(t, tl, a, cmd); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("approved escalated command did not write: %v", err)
	}
	if r := a.requests[0]; r.Permission != boundary.Exec || !r.Escalated || r.Justification != "install into the shared cache" {
		t.Errorf("request = %+v", r)
	}
}

func TestG2_NetworkBlockedThenApproved(t *testing.T) {
	tl, _ := sandboxed(t, sandbox.WorkspaceWrite, nil)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "hello from the parent")
	}))
	defer srv.Close()
	cmd := map[string]any{"cmd": "curl -sS --max-time 5 " + srv.URL}
	a := &asker{}
	res, _ := runWith(t, tl, a, cmd)
	if a.kinds() != "network" || strings.Contains(res, "hello") {
		t.Fatalf("network off: %q, requests %s", res, a.kinds())
	}
	a = &asker{approve: true}
	if res, err := runWith(t, tl, a, cmd); err != nil || !strings.Contains(res, "hello from the parent") {
		t.Errorf("network approved: %q, %v", res, err)
	}
}

func TestG14_RulesDecideBeforeRunning(t *testing.T) {
	set := &rules.Set{}
	for _, r := range []rules.Rule{
		{Pattern: [][]string{{"rm"}}, Decision: rules.Forbidden, Justification: "use trash"},
		{Pattern: [][]string{{"git"}, {"push"}}, Decision: rules.Prompt},
	} {
		if err := set.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, set)
	marker := filepath.Join(work, "ran")

	a := &asker{approve: true}
	_, err := runWith(t, tl, a, map[string]any{"cmd": "touch " + marker + " && /bin/rm -f " + marker})
	var te *tool.Error
	if !errors.As(err, &te) || te.Type != tool.ErrPermission || !strings.Contains(te.Message, "use trash") {
		t.Errorf("forbidden: %v", err)
	}
	if _, serr := os.Stat(marker); serr == nil || a.kinds() != "" {
		t.Error("a script with a forbidden command ran, or asked")
	}

	if _, err := runWith(t, tl, a, map[string]any{"cmd": "git push origin main 2>/dev/null; touch " + marker}); err != nil {
		t.Fatal(err)
	}
	if a.kinds() != "exec" {
		t.Errorf("prompt rule: requests %s", a.kinds())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("an approved prompt command did not run")
	}

	quiet := &asker{}
	if res, err := runWith(t, tl, quiet, map[string]any{"cmd": "ls -la && echo ok"}); err != nil || !strings.Contains(res, "ok") || quiet.kinds() != "" {
		t.Errorf("routine command: %q, %v, asked %s", res, err, quiet.kinds())
	}
}

func TestG14_DangerousCommandAsks(t *testing.T) {
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
	victim := filepath.Join(work, "keep")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	a := &asker{}
	_, err := runWith(t, tl, a, map[string]any{"cmd": "sudo rm -fr " + victim})
	var te *tool.Error
	if !errors.As(err, &te) || te.Type != tool.ErrApproval || a.kinds() != "exec" {
		t.Fatalf("dangerous: %v, requests %s", err, a.kinds())
	}
	if _, err := os.Stat(victim); err != nil {
		t.Error("a denied dangerous command ran")
	}
}

// A .git the command creates where there was none (hooks run code the next
// time the person uses git there) does not stay in the workspace: it is
// moved to quarantine, and the result says so.
func TestG1_CreatedGitDirIsQuarantined(t *testing.T) {
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no sandbox: %v", err)
	}
	home := t.TempDir()
	t.Setenv(wardenhome.EnvHome, home)
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
	// The rules may ask first (a write into .git); approved, it runs in
	// the sandbox, which cannot refuse creating the .git.
	res, err := runWith(t, tl, &asker{approve: true}, map[string]any{"cmd": "mkdir -p .git/hooks sub/.git && printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && echo made"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res, "made") || !strings.Contains(res, "the command created the protected path "+filepath.Join(work, ".git")) {
		t.Errorf("result = %q", res)
	}
	for _, p := range []string{".git", "sub/.git"} {
		if _, err := os.Lstat(filepath.Join(work, p)); err == nil {
			t.Errorf("%s stayed in the workspace", p)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "quarantine")); err != nil {
		t.Errorf("quarantine: %v", err)
	}
}

// A write blocked through a link asks for the path it really goes to, and
// approval makes that directory writable, not the link's; a read that needs
// privileges asks to run outside the sandbox, not for a writable root.
func TestG2_BlockedRequestsNameResolvedPaths(t *testing.T) {
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
	out := sandboxtest.OutsideDir(t, work)
	if err := os.Symlink(out, filepath.Join(work, "cache")); err != nil {
		t.Fatal(err)
	}
	a := &asker{approve: true}
	res, err := runWith(t, tl, a, map[string]any{"cmd": "echo x > cache/f"})
	if err != nil {
		t.Fatal(err)
	}
	if a.kinds() != "write" || !slices.Equal(a.requests[0].Paths, []string{filepath.Join(out, "f"), out}) {
		t.Fatalf("requests = %+v (result %q)", a.requests, res)
	}
	if !strings.Contains(a.requests[0].Reason, "resolves to "+filepath.Join(out, "f")) {
		t.Errorf("reason = %q", a.requests[0].Reason)
	}
	if b, err := os.ReadFile(filepath.Join(out, "f")); err != nil || string(b) != "x\n" {
		t.Errorf("after approval: %q, %v", b, err)
	}

	r := &asker{}
	res, _ = runWith(t, tl, r, map[string]any{"cmd": "head -c 10 /proc/1/maps"})
	if r.kinds() != "exec" || !r.requests[0].Escalated || !strings.Contains(res, "a read that needs privileges") {
		t.Errorf("read: requests %+v, result %q", r.requests, res)
	}
}
