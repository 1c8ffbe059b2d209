//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// renameNoFollow renames path, whose directories are resolved already, to
// to, creating to's parent, without following a symbolic link on the way
// to path: a directory replaced by a link since path was found cannot
// redirect the move to somewhere else (the person's own repository, say).
// The way to to lies in warden's own state, which no sandboxed command can
// change, and is followed as os.MkdirAll would (a home under a linked
// /home). Both are reached one directory at a time, so that paths longer
// than PATH_MAX (a tree an agent made deep on purpose) move too. The entry
// moved must still be the file key identifies (a zero key: any).
func renameNoFollow(path, to string, key fileKey) error {
	fail := func(err error) error { return &os.LinkError{Op: "rename", Old: path, New: to, Err: err} }
	from, err := openDirStepwise(filepath.Dir(path), false)
	if err != nil {
		return fail(err)
	}
	defer syscall.Close(from)
	if key != (fileKey{}) {
		if now, ok := keyAt(from, filepath.Base(path)); !ok || now != key {
			return fail(errors.New("it changed since it was found"))
		}
	}
	into, err := openDirStepwise(filepath.Dir(to), true)
	if err != nil {
		return fail(err)
	}
	defer syscall.Close(into)
	if err := unix.Renameat(from, filepath.Base(path), into, filepath.Base(to)); err != nil {
		return fail(err)
	}
	return nil
}

// openDirStepwise opens the directory at the absolute path dir (O_PATH)
// one component at a time from the root. Without create, it follows no
// symbolic link; with create, it follows them and makes missing directories
// (mode 0700), as os.MkdirAll does.
func openDirStepwise(dir string, create bool) (int, error) {
	if !filepath.IsAbs(dir) {
		return -1, fmt.Errorf("%s is not absolute", dir)
	}
	flags := unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !create {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open("/", flags, 0)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(dir, "/") {
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			syscall.Close(fd)
			return -1, fmt.Errorf("%s is not clean", dir)
		}
		next, err := unix.Openat(fd, name, flags, 0)
		if create && errors.Is(err, syscall.ENOENT) {
			if err = unix.Mkdirat(fd, name, 0o700); err == nil || errors.Is(err, syscall.EEXIST) {
				next, err = unix.Openat(fd, name, flags, 0)
			}
		}
		syscall.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}
