//go:build !unix

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
)

// keyOf returns the identity of the file at path as well as this system
// offers it: its size and modification time.
func keyOf(path string) (fileKey, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(fi.ModTime().UnixNano()), ino: uint64(fi.Size())}, true
}

func isCrossDevice(err error) bool { return errors.Is(err, errors.ErrUnsupported) }

// renameNoFollow renames path to to, creating to's parent.
func renameNoFollow(path, to string, _ fileKey) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	return os.Rename(path, to)
}
