package bash

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/sandbox"
)

// TestG15_RetryGetsTheResolvedPathApproved checks that a write blocked
// through a link planted in the workspace asks for, and on approval
// grants, the path the kernel reaches, and nothing above it: the request
// names the resolved path, and the retry's new writable root is exactly
// the one named.
func TestG15_RetryGetsTheResolvedPathApproved(t *testing.T) {
	tl, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
	out := sandboxtest.OutsideDir(t, work)
	if err := os.Mkdir(filepath.Join(out, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := map[string]any{"cmd": "ln -sfn " + filepath.Join(out, "sub") + " cache; echo x > cache/f"}
	denied := &asker{}
	if _, err := runWith(t, tl, denied, cmd); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(out, "sub", "f"), filepath.Join(out, "sub")}
	if len(denied.requests) != 1 || !slices.Equal(denied.requests[0].Paths, want) {
		t.Fatalf("requests = %+v, want paths %q", denied.requests, want)
	}
	if _, err := os.Stat(filepath.Join(out, "sub", "f")); err == nil {
		t.Fatal("the write happened without approval")
	}

	// Approved, the retry may write there, and only there.
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}
	wider, req := widen(p, sandbox.Block{Kind: sandbox.KindWrite, Path: filepath.Join(work, "cache", "f")})
	if !slices.Equal(req.Paths, want) || !slices.Equal(wider.WritableRoots, []string{filepath.Join(out, "sub")}) {
		t.Errorf("widen: paths %q, roots %q", req.Paths, wider.WritableRoots)
	}
	if wider.CanWrite(filepath.Join(out, "g")) {
		t.Error("the retry may write beside the approved directory")
	}
	approved := &asker{approve: true}
	if _, err := runWith(t, tl, approved, cmd); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(out, "sub", "f")); err != nil || string(data) != "x\n" {
		t.Errorf("approved retry: %q, %v", data, err)
	}
}
