//go:build unix && !linux

package sandbox

import (
	"os"
	"path/filepath"
)

// renameNoFollow renames path to to, creating to's parent.
func renameNoFollow(path, to string, _ fileKey) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	return os.Rename(path, to)
}
