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
// to either: a directory replaced by a link since path was found cannot
// redirect the move to somewhere else (the person's own repository, say).
// Both are reached one directory at a time, so that paths longer than
// PATH_MAX (a tree an agent made deep on purpose) move too.
func renameNoFollow(path, to string) error {
	fail := func(err error) error { return &os.LinkError{Op: "rename", Old: path, New: to, Err: err} }
	from, err := openDirNoFollow(filepath.Dir(path), false)
	if err != nil {
		return fail(err)
	}
	defer syscall.Close(from)
	into, err := openDirNoFollow(filepath.Dir(to), true)
	if err != nil {
		return fail(err)
	}
	defer syscall.Close(into)
	if err := unix.Renameat(from, filepath.Base(path), into, filepath.Base(to)); err != nil {
		return fail(err)
	}
	return nil
}

// openDirNoFollow opens the directory at the absolute path dir (O_PATH)
// one component at a time from the root, following no symbolic link;
// with create, missing directories are made (mode 0700).
func openDirNoFollow(dir string, create bool) (int, error) {
	if !filepath.IsAbs(dir) {
		return -1, fmt.Errorf("%s is not absolute", dir)
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
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
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if create && errors.Is(err, syscall.ENOENT) {
			if err = unix.Mkdirat(fd, name, 0o700); err == nil || errors.Is(err, syscall.EEXIST) {
				next, err = unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
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
