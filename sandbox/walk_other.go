//go:build !linux

package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// walkNames adds to out the entries under dir named like protected paths,
// with their identity, without descending into them; see walk_linux.go.
func walkNames(dir string, out map[string]fileKey, follow bool) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	entries, _ := f.ReadDir(-1) // directory order: no sorting
	f.Close()
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if slices.Contains(ProtectedNames, name) {
			if k, ok := keyOf(path); ok {
				out[path] = k
			}
			continue
		}
		if e.IsDir() { // d_type: a link to a directory is not one
			walkNames(path, out, follow)
		} else if follow && e.Type()&fs.ModeSymlink != 0 {
			// A link from the root into a directory under a temporary
			// directory (which is writable but not walked): a .git made
			// there through the link (ln -s /tmp/x sub; mkdir -p
			// sub/.git/hooks) is one the person meets in the workspace.
			// Links are followed once, not further down; what is found
			// is named by where it is, so that it can be moved. (Only
			// links are resolved: resolving every file costs a lookup
			// per path component, a walk of a large tree many times.)
			if real := intoTemp(path); real != "" {
				walkNames(real, out, false)
			}
		}
	}
}
