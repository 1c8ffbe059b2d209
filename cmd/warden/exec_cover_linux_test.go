//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// TestG16_ExecFullAccessCoversState: `warden exec --sandbox full-access`
// writes where it likes but cannot read or change warden's state.
func TestG16_ExecFullAccessCoversState(t *testing.T) {
	requireSandbox(t)
	state := filepath.Join(outsideDir(t), "state")
	t.Setenv(wardenhome.EnvHome, state)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, state, "token", "SECRET-TOKEN\n")
	token := filepath.Join(state, "token")
	w := project(t)
	code, stdout, stderr := wardenExec(t, w, "--sandbox", "full-access", "--", "sh", "-c",
		"cat "+token+"; ls "+state+"; echo planted > "+state+"/config.toml; echo x > "+filepath.Join(w, "out"))
	if code != 0 || strings.Contains(stdout+stderr, "SECRET") || strings.Contains(stdout, "token") {
		t.Errorf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(state, "config.toml")); err == nil {
		t.Error("the command planted warden's configuration")
	}
	if b, err := os.ReadFile(filepath.Join(w, "out")); err != nil || string(b) != "x\n" {
		t.Errorf("full access lost: %q, %v", b, err)
	}
}
