package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/runtoken"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// EnvToken names the environment variable that holds an operator's
// credential (SPEC S4).
const EnvToken = wardenhome.EnvToken

// EnvOperator names the operator of $WARDEN_TOKEN in the decisions made
// with it; unset, decisions record the surface (api, panel).
const EnvOperator = "WARDEN_OPERATOR"

// minBits is the least strength of an operator's credential.
const minBits = 128

// CheckStrength refuses a credential that cannot hold minBits of
// randomness: its length times the bits of a character of the smallest
// alphabet it is written in (digits, hex, base64url, printable ASCII).
func CheckStrength(token string) error {
	per := 3.32 // decimal digits
	for _, c := range token {
		switch {
		case c >= '0' && c <= '9':
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
			per = max(per, 4)
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_':
			per = max(per, 6)
		default:
			per = max(per, 6.55)
		}
	}
	if bits := float64(len(token)) * per; bits < minBits {
		return fmt.Errorf("$%s holds at most %.0f bits (%d characters); an operator's credential needs at least %d: make one with `openssl rand -base64 32`, or let `warden operator add NAME` make it", EnvToken, bits, len(token), minBits)
	}
	return nil
}

// OperatorToken returns the operator's credential of $WARDEN_TOKEN, ""
// when it is unset, and an error for one weaker than 128 bits.
func OperatorToken() (string, error) {
	t := strings.TrimSpace(os.Getenv(EnvToken))
	if t == "" {
		return "", nil
	}
	if err := CheckStrength(t); err != nil {
		return "", err
	}
	return t, nil
}

// RunToken returns the run credential `warden serve` accepts from runs
// (SPEC S4): the one kept in $WARDEN_HOME/token, made (0600, in a 0700
// directory) the first time.
func RunToken() (string, error) {
	path := TokenPath()
	if path == "" {
		return "", errors.New("the run credential: warden has no home directory (set WARDEN_HOME)")
	}
	return fileToken(path, true)
}

// TokenPath returns where the run credential is kept: $WARDEN_HOME/token;
// "" when warden has no home.
func TokenPath() string { return runtoken.Path() }

// Token returns $WARDEN_TOKEN if set (an operator's credential, unchecked),
// else the run credential of RunToken: the token kept in
// $WARDEN_HOME/token (mode 0600, in a 0700 directory when it has to make
// it), generating it the first time. A token file others may read is
// refused; one with another name (a hard link) is replaced by a new token,
// and stderr says so: the old token is no longer accepted. Since SPEC S4
// the two are told apart: `warden serve` takes OperatorToken and RunToken,
// a run runtoken.Credential.
func Token() (string, error) {
	if t := strings.TrimSpace(os.Getenv(EnvToken)); t != "" {
		return t, nil
	}
	return RunToken()
}

// fileToken reads the token file at path, making it first when create
// says so and it is missing.
func fileToken(path string, create bool) (string, error) {
	if !create {
		return runtoken.Read(path)
	}
	for range 2 {
		t, err := runtoken.Read(path)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, runtoken.ErrRetired) {
			return "", err
		}
		if err := createToken(path); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return runtoken.Read(path)
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
	if err := wardenhome.CreateSecret(path, ".token-*", []byte(t+"\n")); err != nil {
		return fmt.Errorf("the API token: %w", err)
	}
	return nil
}
