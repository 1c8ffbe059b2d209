//go:build !linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// walkNames adds to out the entries under dir named like protected paths,
// with their identity, without descending into them; see walk_linux.go.
func walkNames(dir string, out map[string]fileKey) {
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
		if e.IsDir() { // d_type: a link to a directory is not one, nor followed
			walkNames(path, out)
		}
	}
}
