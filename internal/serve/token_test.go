package serve

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The token is $WARDEN_TOKEN, else generated once and kept in
// $WARDEN_HOME/token, readable by its owner only (SPEC S2).
func TestS2_TokenKeptInHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("WARDEN_HOME", home)
	t.Setenv(EnvToken, "")
	// Many processes may start at once: they all get the one token.
	var wg sync.WaitGroup
	toks := make([]string, 8)
	for i := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := Token()
			if err != nil {
				t.Error(err)
			}
			toks[i] = tok
		}()
	}
	wg.Wait()
	for _, tok := range toks {
		if tok != toks[0] || len(tok) < 40 {
			t.Fatalf("tokens %q", toks)
		}
	}
	fi, err := os.Stat(filepath.Join(home, "token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if di, err := os.Stat(home); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("home: %v %v", di.Mode(), err)
	}
	if again, err := Token(); err != nil || again != toks[0] {
		t.Fatalf("second Token: %q %v", again, err)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	t.Setenv(EnvToken, "from-env")
	if tok, err := Token(); err != nil || tok != "from-env" {
		t.Fatalf("with %s: %q %v", EnvToken, tok, err)
	}
	// A token file others can read is refused, not used.
	t.Setenv(EnvToken, "")
	if err := os.Chmod(filepath.Join(home, "token"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tok, err := Token(); err == nil {
		t.Fatalf("a world-readable token file was used: %q", tok)
	}
}

// G16: a token file with another name (a hard link, which the sandbox does
// not hide) is never used: Token makes a new token, and the old one, which
// the other name keeps, is no longer the server's.
func TestG16_LinkedTokenIsReplaced(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("WARDEN_HOME", home)
	t.Setenv(EnvToken, "")
	old, err := Token()
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(filepath.Dir(home), "planted")
	if err := os.Link(TokenPath(), planted); err != nil {
		t.Skipf("no hard links: %v", err)
	}
	tok, err := Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok == old || tok == "" {
		t.Errorf("the exposed token is still in use: %q", tok)
	}
	if again, err := Token(); err != nil || again != tok {
		t.Errorf("the new token is not kept: %q, %v", again, err)
	}
}
