package serve

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/sandbox"
)

// EnvToken names the environment variable that holds the API token.
const EnvToken = wardenhome.EnvToken

// TokenPath returns where the token is kept when $WARDEN_TOKEN is unset:
// $WARDEN_HOME/token; "" when warden has no home.
func TokenPath() string {
	h := sandbox.StateHome()
	if h == "" {
		return ""
	}
	return filepath.Join(h, "token")
}

// Token returns $WARDEN_TOKEN if set, else the token kept in
// $WARDEN_HOME/token (mode 0600, in a 0700 directory when it has to make
// it), generating it the first time. A token file others may read is
// refused; one with another name (a hard link) is replaced by a new token,
// and stderr says so: the old token is no longer accepted.
func Token() (string, error) {
	if t := strings.TrimSpace(os.Getenv(EnvToken)); t != "" {
		return t, nil
	}
	path := TokenPath()
	if path == "" {
		return "", errors.New("the API token: warden has no home directory (set WARDEN_HOME or WARDEN_TOKEN)")
	}
	for range 2 {
		t, err := readToken(path)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, errRetired) {
			return "", err
		}
		if err := createToken(path); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return readToken(path)
}

// errRetired is the error of a token file that had another name: it was
// removed, and a new token is to be made.
var errRetired = errors.New("the API token was exposed and removed")

// readToken reads the token file at path, refusing one others may read.
// A token file with another name (a hard link, wardenhome.Exposed) is
// never used: it is removed (errRetired), for a new token to replace it.
func readToken(path string) (string, error) {
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
		return "", errRetired
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

// createToken writes a new random token at path, atomically and only if
// no file is there (another process may be doing the same).
func createToken(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the API token: %w", err)
	}
	t, err := randomToken()
	if err != nil {
		return fmt.Errorf("the API token: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return fmt.Errorf("the API token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("the API token: %w", err)
	}
	if _, err := tmp.WriteString(t + "\n"); err != nil {
		tmp.Close()
		return fmt.Errorf("the API token: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("the API token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("the API token: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("the API token: %w", err)
	}
	return nil
}
