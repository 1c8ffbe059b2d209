//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// readOnlyView makes every mount of this process's private mount namespace
// read-only, except the writable roots, which are bound writable again at
// their own paths: outside the roots nothing changes, neither contents nor
// metadata (chmod, chown, utime, extended attributes, links, renames all
// fail with EROFS), whatever Landlock covers. The roots are cloned with
// their submounts before the rest turns read-only, so they keep the
// mounts' own flags; mounts that were read-only stay so.
func readOnlyView(roots []string) error {
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	type clone struct {
		path string
		fd   int
	}
	var clones []clone
	defer func() {
		for _, c := range clones {
			syscall.Close(c.fd)
		}
	}()
	for _, r := range roots {
		fd, _, err := openExact(r)
		if errors.Is(err, syscall.ENOENT) {
			continue // gone since the parent looked: nothing to write to
		}
		if err != nil {
			return fmt.Errorf("writable root %s: %w", r, err)
		}
		tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		syscall.Close(fd)
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", r, err)
		}
		clones = append(clones, clone{r, tree})
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("making the file system read-only (mount_setattr): %w", err)
	}
	for _, c := range clones {
		fd, _, err := openExact(c.path)
		if err != nil {
			return fmt.Errorf("writable root %s: %w", c.path, err)
		}
		err = unix.MoveMount(c.fd, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		syscall.Close(fd)
		if err != nil {
			return fmt.Errorf("binding writable root %s: %w", c.path, err)
		}
	}
	return chdirAgain()
}

// chdirAgain enters the working directory again by its path, so that it
// lies in the mounts just made rather than in those they cover.
func chdirAgain() error {
	wd, err := os.Getwd()
	if err != nil {
		return nil // not reachable by a path: stays where it is
	}
	if err := os.Chdir(wd); err != nil {
		return fmt.Errorf("entering the working directory again: %w", err)
	}
	return nil
}
