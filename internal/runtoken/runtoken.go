// Package runtoken finds the run credential a run, a hook or a gateway
// presents to `warden serve` (SPEC S4), and reads the token file `warden
// serve` keeps it in. It is internal/serve's, apart: a hook process, which
// needs only this of the server's package, links none of the panel.
package runtoken

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// Path returns where the run credential is kept: $WARDEN_HOME/token; ""
// when warden has no home.
func Path() string {
	h := wardenhome.Home()
	if h == "" {
		return ""
	}
	return filepath.Join(h, "token")
}

// Credential returns the credential a run, a hook or a gateway presents
// (SPEC S4): the run credential derived from $WARDEN_TOKEN when an
// operator's credential is set (the run never holds the operator's
// power), else $WARDEN_RUN_TOKEN, else the one in $WARDEN_HOME/token,
// which `warden serve` made. where says where it came from, for messages.
func Credential() (cred, where string, err error) {
	if t := strings.TrimSpace(os.Getenv(wardenhome.EnvToken)); t != "" {
		return proof.RunCredential(proof.Hash(t)), "$" + wardenhome.EnvToken, nil
	}
	if t := strings.TrimSpace(os.Getenv(wardenhome.EnvRunToken)); t != "" {
		return t, "$" + wardenhome.EnvRunToken, nil
	}
	path := Path()
	if path == "" {
		return "", "", fmt.Errorf("the run credential: warden has no home directory (set WARDEN_HOME, %s or %s)", wardenhome.EnvRunToken, wardenhome.EnvToken)
	}
	t, err := Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("no run credential at %s: start `warden serve` with this WARDEN_HOME, or set %s to the content of its token file: %w", path, wardenhome.EnvRunToken, err)
	}
	return t, path, err
}

// ErrRetired is the error of a token file that had another name: it was
// removed, and a new token is to be made.
var ErrRetired = errors.New("the API token was exposed and removed")

// Read reads the token file at path, refusing one others may read. A
// token file with another name (a hard link, wardenhome.Exposed) is never
// used: it is removed (ErrRetired), for a new token to replace it.
func Read(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("the API token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("the API token: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("the API token %s can be read by others (mode %v); make it 0600", path, fi.Mode().Perm())
	}
	exposed, err := wardenhome.Exposed(f)
	if err != nil {
		return "", fmt.Errorf("the API token: %w", err)
	}
	if exposed {
		if err := wardenhome.Retire(path, f, "the API token"); err != nil {
			return "", err
		}
		return "", ErrRetired
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("the API token: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("the API token %s is empty", path)
	}
	return t, nil
}
