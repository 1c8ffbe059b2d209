package autoreview_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/autoreview"
)

// G16: the reviewer's read_file and list_dir run in warden's own process;
// with warden's home inside the workspace (a workspace equal to $HOME
// holds ~/.warden), an agent that talks the reviewer into reading the
// token — by its path, through a link inside the workspace, or through a
// hard link — gets nothing: the token's bytes are never returned, and a
// listing leaves the home out.
func TestG16_ReviewerToolsNeverReadWardensState(t *testing.T) {
	const secret = "rvw-0a1b2c3d4e5f-token"
	dir := t.TempDir()
	home := filepath.Join(dir, "wardenhome")
	if err := os.MkdirAll(filepath.Join(home, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, home, "token", secret)
	writeFile(t, home, "keys/override.key", secret+"-key")
	t.Setenv("WARDEN_HOME", home)
	t.Setenv("WARDEN_MANAGED_CONFIG", filepath.Join(t.TempDir(), "managed.toml"))
	if err := os.Symlink(filepath.Join(home, "token"), filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("wardenhome", filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(home, "token"), filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	tools := autoreview.ReadOnlyTools(dir)
	for _, p := range []string{"wardenhome/token", filepath.Join(home, "token"), "notes.txt", "docs/token", "docs/keys/override.key", "hard.txt", "wardenhome/../wardenhome/token"} {
		out, err := runTool(t, tools, "read_file", `{"path":`+strconv.Quote(p)+`}`)
		if strings.Contains(out, secret) || err == nil {
			t.Errorf("read_file %s: %q, %v; want a refusal without the token", p, out, err)
		}
	}
	for _, p := range []string{"wardenhome", "docs", "docs/keys", ""} {
		out, err := runTool(t, tools, "list_dir", `{"path":`+strconv.Quote(p)+`}`)
		if strings.Contains(out, "token") || strings.Contains(out, "override.key") || strings.Contains(out, "wardenhome") {
			t.Errorf("list_dir %q lists warden's state: %q, %v", p, out, err)
		}
	}
	// Control: the rest of the workspace reads.
	writeFile(t, dir, "plain.txt", "plain")
	if out, err := runTool(t, tools, "read_file", `{"path":"plain.txt"}`); err != nil || out != "plain" {
		t.Errorf("read_file plain.txt: %q, %v", out, err)
	}
}
