// Package hometest gives a test a warden home of its own, so that neither
// the user's home (~/.warden) nor the machine's managed configuration
// reaches it.
package hometest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// Use points $WARDEN_HOME at home and $WARDEN_MANAGED_CONFIG at a file
// that does not exist, until the test ends.
func Use(t testing.TB, home string) {
	t.Helper()
	t.Setenv(wardenhome.EnvHome, home)
	t.Setenv(wardenhome.EnvManagedConfig, filepath.Join(t.TempDir(), "managed.toml"))
}

// New is Use with a new home, not yet created, in a temporary directory;
// it returns the home's path.
func New(t testing.TB) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	Use(t, home)
	return home
}

// InHome returns a new directory in the user's own home directory,
// removed when the test ends: outside the sandbox's writable roots, and not
// a temporary place that the first pass lets commands write to without
// asking. The test is skipped where there is no home directory or it
// cannot be written.
func InHome(t testing.TB) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	dir, err := os.MkdirTemp(home, "warden-test-")
	if err != nil {
		t.Skipf("cannot write in the home directory: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
