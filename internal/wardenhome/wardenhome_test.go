package wardenhome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// G16: the state covers $WARDEN_HOME, ~/.warden and the managed config,
// as written and resolved; a workspace or writable root in it — equal,
// below, reached through a link or through ".." after a link — is
// refused, and one that merely contains it is not.
func TestG16_CoversAndCheckRoot(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "real-home")
	if err := os.MkdirAll(filepath.Join(home, "runs", "deep"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "via-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvHome, link) // the home named through a link
	t.Setenv(EnvManagedConfig, filepath.Join(base, "managed.toml"))
	for p, want := range map[string]bool{
		home: true, link: true, filepath.Join(home, "runs"): true, filepath.Join(base, "managed.toml"): true,
		base: false, filepath.Join(base, "real-home2"): false, filepath.Join(base, "managed.toml.d"): false,
	} {
		if got := Covers(p); got != want {
			t.Errorf("Covers(%s) = %v, want %v", p, got, want)
		}
	}
	if err := os.Symlink(filepath.Join(home, "runs", "deep"), filepath.Join(base, "deep")); err != nil {
		t.Fatal(err)
	}
	for dir, refused := range map[string]bool{
		home: true, link: true, filepath.Join(link, "runs"): true, base + "/deep/..": true,
		base: false, filepath.Dir(base): false,
	} {
		err := CheckRoot("the workspace", dir)
		if (err != nil) != refused {
			t.Errorf("CheckRoot(%s) = %v, want refused %v", dir, err, refused)
		}
		if err != nil && !strings.Contains(err.Error(), "inside warden's own state") {
			t.Errorf("CheckRoot(%s): %v does not say why", dir, err)
		}
	}
	// Issue 21 (SPEC S4): WARDEN_HOME, which says where the credentials
	// are kept, no longer reaches tools either.
	if got := ToolEnv([]string{"A=1", EnvToken + "=t", EnvDB + "=d", "WARDEN_HOME=h", EnvRunToken + "=r", "WARDEN_SERVER=s"}); strings.Join(got, " ") != "A=1 WARDEN_SERVER=s" {
		t.Errorf("ToolEnv = %q", got)
	}
}

// G16: a state file with a second name is exposed; one whose second name
// goes away at once (a file linked into place from a temporary name) is
// not. Retire removes warden's name only, and only while it still names
// the file that was checked.
func TestG16_ExposedAndRetire(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "token")
	if err := os.WriteFile(secret, []byte("s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *os.File {
		f, err := os.Open(secret)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if exposed, err := Exposed(open()); err != nil || exposed {
		t.Fatalf("one name: exposed %v, %v", exposed, err)
	}
	tmp := filepath.Join(dir, ".token-tmp")
	if err := os.Link(secret, tmp); err != nil {
		t.Skipf("no hard links: %v", err)
	}
	go func() { time.Sleep(20 * time.Millisecond); os.Remove(tmp) }()
	if exposed, err := Exposed(open()); err != nil || exposed {
		t.Fatalf("a passing second name: exposed %v, %v", exposed, err)
	}
	other := filepath.Join(dir, "planted")
	if err := os.Link(secret, other); err != nil {
		t.Fatal(err)
	}
	f := open()
	if exposed, err := Exposed(f); err != nil || !exposed {
		t.Fatalf("a second name: exposed %v, %v", exposed, err)
	}
	if err := RetireExposed(secret); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(secret); !os.IsNotExist(err) {
		t.Errorf("the exposed name is still there: %v", err)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != "s\n" {
		t.Errorf("the other name changed: %q, %v", b, err)
	}
	// A new file at the name is not removed on the strength of the old
	// check.
	if err := os.WriteFile(secret, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Retire(secret, f, "the secret"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "new\n" {
		t.Errorf("the new secret was removed: %q, %v", b, err)
	}
}

// Rewrite replaces a state file's contents (shorter ones too), creates it
// 0600, and never writes through a link the agent planted at its name: the
// link's target is left unchanged.
func TestG16_RewriteNeverFollowsALink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state")
	for _, data := range []string{"a longer first content\n", "short\n"} {
		if err := Rewrite(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Errorf("after Rewrite(%q): %q", data, got)
		}
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "cursor")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(link, []byte("pwned")); err == nil {
		t.Error("Rewrite wrote through a link")
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Errorf("the link's target is now %q", got)
	}
}
