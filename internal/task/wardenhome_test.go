package task_test

import (
	"os"
	"path/filepath"
)

// Tests that run tasks without setting WARDEN_HOME keep warden's state —
// transcripts and the key that authenticates overrides — out of the real
// home directory. (An init function, not TestMain, so that other files of
// the package may have their own TestMain.)
func init() {
	if os.Getenv("WARDEN_HOME") == "" {
		_ = os.Setenv("WARDEN_HOME", filepath.Join(os.TempDir(), "warden-test-home"))
	}
}
