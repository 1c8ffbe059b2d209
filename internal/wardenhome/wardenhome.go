// Package wardenhome says where warden keeps its own state: its home
// directory ($WARDEN_HOME, default ~/.warden) and the managed
// (administrator) configuration file. Package sandbox protects both in every
// mode; sandbox.StateHome is Home.
package wardenhome

import (
	"os"
	"path/filepath"
	"strings"
)

// Where warden keeps its own state, as the rest of warden reads it (the
// sandbox protects it, task keeps runs and keys under the home directory,
// autoreview reads the managed configuration).
const (
	// EnvHome names warden's home directory; it defaults to ~/.warden.
	EnvHome = "WARDEN_HOME"
	// EnvManagedConfig names the managed (administrator) configuration
	// file; it defaults to DefaultManagedConfig.
	EnvManagedConfig = "WARDEN_MANAGED_CONFIG"
	// DefaultManagedConfig is the managed configuration file when
	// EnvManagedConfig is unset.
	DefaultManagedConfig = "/etc/warden/managed.toml"
	// EnvToken names the API token of `warden serve`: whoever holds it
	// decides requests, so the agent's commands never see it (ToolEnv).
	EnvToken = "WARDEN_TOKEN"
)

// EnvDB names the store's database URL, which may carry its password:
// whoever can write the store can decide the requests queued there.
const EnvDB = "WARDEN_DB"

// ToolEnv returns environ without warden's own credentials (EnvToken, the
// store's URL EnvDB), for the processes the agent's tools start.
func ToolEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); name == EnvToken || name == EnvDB {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Home returns warden's home directory: $WARDEN_HOME, or ~/.warden,
// absolute and clean; "" when neither can be found.
func Home() string {
	h := os.Getenv(EnvHome)
	if h == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		h = filepath.Join(home, ".warden")
	}
	a, err := filepath.Abs(h)
	if err != nil {
		return ""
	}
	return a
}

// ManagedConfig returns the managed (administrator) configuration file:
// $WARDEN_MANAGED_CONFIG, or DefaultManagedConfig, absolute and clean.
func ManagedConfig() string {
	m := os.Getenv(EnvManagedConfig)
	if m == "" {
		m = DefaultManagedConfig
	}
	a, err := filepath.Abs(m)
	if err != nil {
		return ""
	}
	return a
}
