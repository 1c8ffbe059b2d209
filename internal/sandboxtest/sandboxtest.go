// Package sandboxtest gives tests of sandboxed tools a place the sandbox
// must not write to.
package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/sandbox"
)

// OutsideDir returns a new directory outside every writable root of a
// workspace-write sandbox on work (so not under the temporary directories,
// where a test's checkout may well be), removed when the test ends. The
// test is skipped when there is none.
func OutsideDir(t testing.TB, work string) string {
	t.Helper()
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}
	bases := []string{"/var/tmp"}
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, d)
	}
	if d, err := os.UserHomeDir(); err == nil {
		bases = append(bases, d)
	}
	for _, b := range bases {
		dir, err := os.MkdirTemp(b, "warden-test-outside-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if !p.CanWrite(filepath.Join(dir, "f")) {
			return dir
		}
	}
	t.Skip("no writable directory outside the sandbox's writable roots")
	return ""
}
