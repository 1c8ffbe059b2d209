//go:build unix && !linux

package sandbox

import (
	"os"
	"syscall"
)

// keyOf returns the identity of the file at path, without following a last
// link (no birth time: see walk_linux.go for Linux).
func keyOf(path string) (fileKey, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileKey{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino), typ: uint32(st.Mode) & syscall.S_IFMT}, true
}
