package serve

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/runtoken"
	"github.com/wardenhq/warden/internal/wardenhome"
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

// An operator's credential shorter than 128 bits is refused with a clear
// error; WARDEN_TOKEN=1 above all (SPEC S4).
func TestS4_OperatorTokenStrength(t *testing.T) {
	for _, tc := range []struct {
		token string
		ok    bool
	}{
		{"1", false},
		{"t0k3n", false},
		{"s3-token", false},
		{"0123456789abcdef0123456789abcde", false}, // 31 hex: 124 bits
		{"0123456789abcdef0123456789abcdef", true}, // 32 hex: 128 bits
		{"abcdefghijklmnopqrstu", false},           // 21 base64url: 126 bits
		{"abcdefghijklmnopqrstuv", true},           // 22 base64url: 132 bits
		{"op-MvtPrcmVtBCGI8xjtB5xhW9uhvpdXDl5mA4FWuBXMPk", true},
		{"", true}, // unset: no operator of $WARDEN_TOKEN
	} {
		t.Setenv(EnvToken, tc.token)
		got, err := OperatorToken()
		if (err == nil) != tc.ok || (err == nil && got != tc.token) {
			t.Errorf("WARDEN_TOKEN=%q: %q, %v; want ok %v", tc.token, got, err, tc.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "128") || !strings.Contains(err.Error(), "$WARDEN_TOKEN")) {
			t.Errorf("WARDEN_TOKEN=%q: the error %q does not say why", tc.token, err)
		}
	}
}

// A run finds its credential where `warden serve` left it, and never an
// operator's: from $WARDEN_TOKEN it derives a run credential (SPEC S4).
func TestS4_RunCredentialWhere(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("WARDEN_HOME", home)
	t.Setenv(EnvToken, "")
	t.Setenv(wardenhome.EnvRunToken, "")
	if _, _, err := runtoken.Credential(); err == nil || !strings.Contains(err.Error(), "warden serve") {
		t.Fatalf("with no server's token file: %v, want an error naming warden serve", err)
	}
	file, err := RunToken() // what warden serve makes
	if err != nil {
		t.Fatal(err)
	}
	const op = "op-0123456789abcdefghijklmnopqrstuvwxyz"
	for _, tc := range []struct{ token, run, want, where string }{
		{"", "", file, filepath.Join(home, "token")},
		{"", "run-given", "run-given", "$WARDEN_RUN_TOKEN"},
		{op, "run-given", proof.RunCredential(proof.Hash(op)), "$WARDEN_TOKEN"},
	} {
		t.Setenv(EnvToken, tc.token)
		t.Setenv(wardenhome.EnvRunToken, tc.run)
		got, where, err := runtoken.Credential()
		if err != nil || got != tc.want || where != tc.where || got == op {
			t.Errorf("WARDEN_TOKEN=%q WARDEN_RUN_TOKEN=%q: %q from %q, %v; want %q from %q", tc.token, tc.run, got, where, err, tc.want, tc.where)
		}
	}
}
