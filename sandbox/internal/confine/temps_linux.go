//go:build linux

package confine

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Temp is a temporary directory (/tmp, /dev/shm, $TMPDIR) that the command
// gets a private one at, so that nothing it writes there meets the person
// (or a command outside the sandbox) later, and nothing of theirs there is
// in its reach.
type Temp struct {
	// Path is the temporary directory, resolved.
	Path string
	// Source is the run's own directory bound at Path (resolved, made by
	// the parent), kept between the run's commands; empty for a new,
	// empty tmpfs that goes when the command ends. A Path inside an
	// earlier Temp's is made in that one instead (its Source unused).
	Source string
}

// privateTemps covers each of temps with its private directory, in this
// process's private mount namespace (after the read-only view and the
// protected paths' binds: the covers are new mounts, writable), and binds
// the writable roots that lay under a covered directory back at their own
// paths (the workspace under /tmp stays visible and writable, protected
// paths in it included). Everything is opened before anything is covered,
// by descriptors that follow no link. A temporary directory that does not
// exist is left out. It returns the paths covered or made, for Landlock.
//
// The program to execute, exe, when it lies under a covered directory
// outside the roots (a test binary, a program built there), is bound
// read-only at its path, alone: the command the caller chose can run.
func privateTemps(temps []Temp, roots []string, exe string, view bool) ([]string, error) {
	type cover struct {
		Temp
		target, source int
		st             syscall.Stat_t
	}
	var covers []cover
	var nested []string
	var keep []struct {
		path string
		fd   int
	}
	defer func() {
		for _, c := range covers {
			syscall.Close(c.target)
			if c.source >= 0 {
				syscall.Close(c.source)
			}
		}
		for _, k := range keep {
			syscall.Close(k.fd)
		}
	}()
	under := func(path string) bool {
		for _, c := range covers {
			if Within(c.Path, path) {
				return true
			}
		}
		return false
	}
	for _, t := range temps {
		if under(t.Path) {
			nested = append(nested, t.Path)
			continue
		}
		fd, st, err := openExact(t.Path)
		if errors.Is(err, syscall.ENOENT) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("temporary directory %s: %w", t.Path, err)
		}
		c := cover{Temp: t, target: fd, source: -1, st: st}
		covers = append(covers, c)
		if t.Source != "" {
			if covers[len(covers)-1].source, _, err = openExact(t.Source); err != nil {
				return nil, fmt.Errorf("private temporary directory %s: %w", t.Source, err)
			}
		}
	}
	for _, r := range roots {
		if !under(r) || inAnother(r, roots, under) {
			continue
		}
		fd, _, err := openExact(r)
		if errors.Is(err, syscall.ENOENT) {
			continue // gone since the parent looked: nothing to write to
		}
		if err != nil {
			return nil, fmt.Errorf("writable root %s: %w", r, err)
		}
		keep = append(keep, struct {
			path string
			fd   int
		}{r, fd})
	}
	prog := -1
	if exe != "" && under(exe) && !slices.ContainsFunc(roots, func(r string) bool { return Within(r, exe) }) {
		fd, st, err := openExact(exe)
		if err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			prog = fd
			defer syscall.Close(prog)
		} else if err == nil {
			syscall.Close(fd)
		}
	}
	var done []string
	for _, c := range covers {
		if err := coverTemp(c.target, c.source, view); err != nil {
			return nil, fmt.Errorf("covering %s: %w", c.Path, err)
		}
		fd, st, err := openExact(c.Path)
		if err != nil {
			return nil, fmt.Errorf("covering %s: %w", c.Path, err)
		}
		if st.Dev == c.st.Dev && st.Ino == c.st.Ino {
			syscall.Close(fd)
			return nil, fmt.Errorf("covering %s: the cover did not take effect", c.Path)
		}
		syscall.Close(fd)
		done = append(done, c.Path)
	}
	for _, n := range nested {
		fd, err := makeDirs(n, done)
		if err != nil {
			// $TMPDIR cannot be made: the command finds it missing.
			continue
		}
		syscall.Close(fd)
		done = append(done, n)
	}
	for _, k := range keep {
		mp, err := makeDirs(k.path, done)
		if err != nil {
			return nil, fmt.Errorf("writable root %s under a temporary directory: %w", k.path, err)
		}
		err = syscall.Mount("/proc/self/fd/"+strconv.Itoa(k.fd), "/proc/self/fd/"+strconv.Itoa(mp), "", syscall.MS_BIND|syscall.MS_REC, "")
		syscall.Close(mp)
		if err != nil {
			return nil, fmt.Errorf("binding writable root %s back: %w", k.path, err)
		}
		var want, got syscall.Stat_t
		if err := syscall.Fstat(k.fd, &want); err != nil {
			return nil, err
		}
		if err := syscall.Stat(k.path, &got); err != nil || got.Dev != want.Dev || got.Ino != want.Ino {
			return nil, fmt.Errorf("binding writable root %s back: it did not take effect", k.path)
		}
	}
	if prog >= 0 && !sameFile(prog, exe) {
		if err := bindProgram(prog, exe, done); err != nil {
			return nil, fmt.Errorf("program %s under a temporary directory: %w", exe, err)
		}
	}
	return done, chdirAgain()
}

// sameFile reports whether path names the file open as fd.
func sameFile(fd int, path string) bool {
	var a, b syscall.Stat_t
	if syscall.Fstat(fd, &a) != nil || syscall.Stat(path, &b) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

// bindProgram binds the open regular file prog read-only at path, inside a
// cover, over an empty file made there (what was there, the run's own, is
// removed).
func bindProgram(prog int, path string, covered []string) error {
	dir, err := makeDirs(filepath.Dir(path), covered)
	if err != nil {
		return err
	}
	defer syscall.Close(dir)
	name := filepath.Base(path)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
		if err := unix.Unlinkat(dir, name, 0); err != nil {
			if err := unix.Unlinkat(dir, name, unix.AT_REMOVEDIR); err != nil {
				return err
			}
		}
	}
	f, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o700)
	if err != nil {
		return err
	}
	defer syscall.Close(f)
	target := "/proc/self/fd/" + strconv.Itoa(f)
	if err := syscall.Mount("/proc/self/fd/"+strconv.Itoa(prog), target, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind mount: %w", err)
	}
	top, _, err := openExact(path)
	if err != nil {
		return err
	}
	defer syscall.Close(top)
	var want, got syscall.Stat_t
	if err := syscall.Fstat(prog, &want); err != nil {
		return err
	}
	if err := syscall.Fstat(top, &got); err != nil || got.Dev != want.Dev || got.Ino != want.Ino {
		return errors.New("the bind did not take effect")
	}
	var fs syscall.Statfs_t
	if err := syscall.Fstatfs(top, &fs); err != nil {
		return err
	}
	if fs.Flags&unix.ST_RDONLY != 0 {
		return nil
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
	for _, f := range keptMountFlags {
		if uintptr(fs.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := syscall.Mount("none", "/proc/self/fd/"+strconv.Itoa(top), "", flags, ""); err != nil {
		return fmt.Errorf("read-only remount: %w", err)
	}
	return nil
}

// inAnother reports whether root lies strictly inside another of roots that
// is itself under a cover (and so is bound back with it).
func inAnother(root string, roots []string, under func(string) bool) bool {
	for _, o := range roots {
		if o != root && Within(o, root) && under(o) {
			return true
		}
	}
	return false
}

// coverTemp mounts over the directory target (an O_PATH descriptor) the
// private directory source, or a new tmpfs when source is -1. With the
// read-only view, the source lies in a read-only mount: its bind is
// cloned and made writable before it is attached (the flag was set in this
// namespace, not inherited locked, so it may be cleared).
func coverTemp(target, source int, view bool) error {
	proc := "/proc/self/fd/" + strconv.Itoa(target)
	if source < 0 {
		return syscall.Mount("tmpfs", proc, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777")
	}
	if !view {
		return syscall.Mount("/proc/self/fd/"+strconv.Itoa(source), proc, "", syscall.MS_BIND, "")
	}
	tree, err := unix.OpenTree(source, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer syscall.Close(tree)
	attr := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return fmt.Errorf("making the private directory writable: %w", err)
	}
	if err := unix.MoveMount(tree, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// makeDirs opens the directory path (O_PATH), making what is missing of it
// below the first of covered that holds it (mode 0755). Nothing is
// followed: an entry there that is not a directory (a link or a file a
// command of the run left in its private directory) is removed and made a
// directory; above the cover, path is resolved already.
func makeDirs(path string, covered []string) (int, error) {
	base := ""
	for _, c := range covered {
		if Within(c, path) && len(c) > len(base) {
			base = c
		}
	}
	if base == "" {
		return -1, errors.New("not under a private temporary directory")
	}
	fd, _, err := openExact(base)
	if err != nil {
		return -1, err
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(path, base), "/")
	for _, name := range strings.Split(rest, "/") {
		if name == "" {
			continue
		}
		if name == "." || name == ".." {
			syscall.Close(fd)
			return -1, fmt.Errorf("%s is not clean", path)
		}
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
			// Not a directory: the run's own, in its own private directory.
			_ = unix.Unlinkat(fd, name, 0)
			err = syscall.ENOENT
		}
		if errors.Is(err, syscall.ENOENT) {
			if err = unix.Mkdirat(fd, name, 0o755); err == nil || errors.Is(err, syscall.EEXIST) {
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
