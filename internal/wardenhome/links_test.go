package wardenhome

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

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
