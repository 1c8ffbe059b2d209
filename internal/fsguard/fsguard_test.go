package fsguard

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome/hometest"
)

// G16: the checks Opened makes on a file already open catch what a path
// check made before the open could not: the path was innocent when
// checked, then swapped for a link into warden's state (here: opened
// through the link directly, as a race would), or the file is a hard link
// to a file of the state. An ordinary file, and one with a hard link
// elsewhere, pass (the control).
func TestG16_OpenedFilesAreJudgedWhereTheKernelOpenedThem(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(filepath.Join(home, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	hometest.Use(t, home)
	token := filepath.Join(home, "keys", "token")
	if err := os.WriteFile(token, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	plain := filepath.Join(work, "plain")
	if err := os.WriteFile(plain, []byte("plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustLink := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	mustLink(os.Symlink(token, filepath.Join(work, "swapped")))
	mustLink(os.Symlink(home, filepath.Join(work, "dir")))
	mustLink(os.Link(token, filepath.Join(work, "hard")))
	mustLink(os.Link(plain, filepath.Join(work, "plain2")))
	for name, refused := range map[string]bool{"swapped": true, "dir": true, "dir/keys": true, "hard": true, "plain": false, "plain2": false} {
		f, err := os.Open(filepath.Join(work, name))
		if err != nil {
			t.Fatal(err)
		}
		err = Opened(f)
		f.Close()
		if got := err != nil; got != refused || (err != nil && !errors.Is(err, ErrOutOfReach)) {
			t.Errorf("Opened(%s) = %v, want refused %v", name, err, refused)
		}
	}
	for p, refused := range map[string]bool{home: true, token: true, "/proc/self/environ": true, "/proc": true, work: false, filepath.Dir(home): false, "/procfs": false} {
		if got := Check(p) != nil; got != refused {
			t.Errorf("Check(%s) refused %v, want %v", p, got, refused)
		}
	}
}
