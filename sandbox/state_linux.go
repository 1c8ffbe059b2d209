//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// renameNoFollow renames path, whose directories are resolved already, to
// to without following a symbolic link on the way to path: a directory
// replaced by a link since path was found cannot redirect the move to
// somewhere else (the person's own repository, say).
func renameNoFollow(path, to string) error {
	dir, err := unix.Openat2(unix.AT_FDCWD, filepath.Dir(path), &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if errors.Is(err, syscall.ENOSYS) {
		return os.Rename(path, to) // before Linux 5.6
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: path, New: to, Err: err}
	}
	defer syscall.Close(dir)
	if err := unix.Renameat(dir, filepath.Base(path), unix.AT_FDCWD, to); err != nil {
		return &os.LinkError{Op: "rename", Old: path, New: to, Err: err}
	}
	return nil
}
