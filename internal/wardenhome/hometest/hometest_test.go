package hometest_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
)

// Warden reads the home New made, and a managed configuration that does
// not exist: neither the user's nor the machine's configuration reaches
// the test.
func TestNewIsolatesTheHome(t *testing.T) {
	t.Setenv(wardenhome.EnvHome, "/root/.warden")
	t.Setenv(wardenhome.EnvManagedConfig, wardenhome.DefaultManagedConfig)
	home := hometest.New(t)
	if got := wardenhome.Home(); got != home {
		t.Errorf("warden's home is %q, want %q", got, home)
	}
	managed := wardenhome.ManagedConfig()
	if managed == wardenhome.DefaultManagedConfig {
		t.Errorf("the managed configuration is still %s", managed)
	}
	if _, err := os.Stat(managed); !os.IsNotExist(err) {
		t.Errorf("the managed configuration %s exists (%v)", managed, err)
	}
}
