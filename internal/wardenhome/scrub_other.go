//go:build !linux

package wardenhome

import "os"

// ScrubEnv unsets the variables names; only Linux also overwrites them in
// the environment block the process started with.
func ScrubEnv(names ...string) error {
	for _, n := range names {
		os.Unsetenv(n)
	}
	return nil
}
