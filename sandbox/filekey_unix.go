//go:build unix

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// keyOf returns the identity of the file at path, without following a last
// link.
func keyOf(path string) (fileKey, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileKey{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
