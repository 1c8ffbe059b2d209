//go:build unix

package fsguard

import (
	"io/fs"
	"syscall"
)

// fileKey returns the device, inode and link count of fi.
func fileKey(fi fs.FileInfo) (dev, ino, nlink uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), true
}
