package autoreview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reviewer's shell reads but cannot write, even inside the workspace
// (SPEC G4).
func TestG4_ReviewerShellIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	sh := ShellTool(dir)
	if sh == nil {
		t.Skip("no Landlock here")
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sh.Run(context.Background(), []byte(`{"cmd":"cat notes.txt"}`))
	if err != nil || !strings.Contains(out, "the plan") {
		t.Fatalf("read: %q, %v", out, err)
	}
	out, _ = sh.Run(context.Background(), []byte(`{"cmd":"echo x > made.txt"}`))
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("the reviewer's shell wrote a file: %q", out)
	}
	if !strings.Contains(out, "blocked by the sandbox") {
		t.Errorf("a blocked write is not reported: %q", out)
	}
}
