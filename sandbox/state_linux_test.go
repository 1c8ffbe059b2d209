//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// Warden's own state is protected in every mode even when it lies in a
// writable root and does not exist yet: a workspace equal to $HOME cannot
// plant ~/.warden/config.toml.
func TestG15_StateProtectedInWorkspace(t *testing.T) {
	requireNamespaces(t)
	w := mkdir(t, scratch(t), "home")
	home := filepath.Join(w, ".warden-state")
	t.Setenv(wardenhome.EnvHome, home)
	t.Setenv("HOME", w)
	managed := filepath.Join(w, "managed.toml")
	t.Setenv(wardenhome.EnvManagedConfig, managed)
	sp := statePaths()
	for _, want := range []string{home, filepath.Join(w, ".warden"), managed} {
		if !contains(sp, want) {
			t.Errorf("statePaths() = %v, lacks %s", sp, want)
		}
	}
	for _, m := range []Mode{WorkspaceWrite, ReadOnly} {
		p := Policy{Mode: m, Workdir: w}
		watch, err := p.Watch()
		if err != nil {
			t.Fatal(err)
		}
		got := run(t, p, "write|"+filepath.Join(home, "config.toml"), "write|"+filepath.Join(w, ".warden", "config.toml"), "write|"+managed)
		// Hidden behind an empty, read-only cover (EACCES), or bound
		// read-only (EROFS): either way nothing is written.
		if got[0] == "ok" || got[1] == "ok" {
			t.Errorf("%s: writing warden's state: %v", m, got)
		}
		moved, err := watch.Sweep()
		if err != nil {
			t.Fatal(err)
		}
		if m == WorkspaceWrite && (len(moved) != 1 || moved[0].Path != managed) {
			t.Errorf("%s: moved %v, want the planted managed config", m, moved)
		}
		for _, f := range []string{filepath.Join(home, "config.toml"), filepath.Join(w, ".warden", "config.toml"), managed} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s: %s was planted", m, f)
			}
		}
		if p.CanWrite(filepath.Join(home, "config.toml")) || p.CanWrite(managed) {
			t.Errorf("%s: CanWrite allows warden's state", m)
		}
	}
}

// TestG15_StateHiddenFromReads: a sandboxed command cannot read warden's
// own state — the key that authenticates a person's overrides, the
// transcripts — in any mode, also when the workspace is the home directory
// that holds it; with it, an agent could forge an override.
func TestG15_StateHiddenFromReads(t *testing.T) {
	requireNamespaces(t)
	for _, c := range []struct {
		name   string
		inside bool // the state home lies in the workspace
	}{{"state apart", false}, {"workspace is the home", true}} {
		w := mkdir(t, scratch(t), "work")
		home := filepath.Join(scratch(t), "state")
		if c.inside {
			home = filepath.Join(w, ".warden-state")
		}
		t.Setenv(wardenhome.EnvHome, home)
		t.Setenv("HOME", w)
		key := writeFile(t, filepath.Join(mkdir(t, home, "keys"), "override.key"), "SECRET-KEY\n")
		transcript := writeFile(t, filepath.Join(mkdir(t, home, "runs"), "r1.jsonl"), "{}\n")
		token := writeFile(t, filepath.Join(home, "token"), "SECRET-TOKEN\n")
		for _, m := range []Mode{WorkspaceWrite, ReadOnly} {
			p := Policy{Mode: m, Workdir: w}
			got := run(t, p, "read|"+key, "read|"+transcript, "read|"+token)
			for i, g := range got {
				if g == "ok" {
					t.Errorf("%s, %s: read %d of warden's state succeeded", c.name, m, i)
				}
			}
			// The effect a reader would want: the key's bytes.
			out, _ := exec.Command("cat", key).Output()
			if string(out) != "SECRET-KEY\n" {
				t.Fatalf("the key changed: %q", out)
			}
			cmd, err := p.Command(context.Background(), "cat", key, token)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Dir = w
			b, _ := cmd.CombinedOutput()
			if strings.Contains(string(b), "SECRET") {
				t.Errorf("%s, %s: a sandboxed cat printed warden's secrets: %s", c.name, m, b)
			}
		}
	}
}
