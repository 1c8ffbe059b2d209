// Package hometest gives a test a warden home of its own, so that neither
// the user's home (~/.warden) nor the machine's managed configuration
// reaches it.
package hometest

import (
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
