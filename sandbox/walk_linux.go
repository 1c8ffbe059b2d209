//go:build linux

package sandbox

import (
	"encoding/binary"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// walkNames adds to out the entries under dir named like protected paths,
// with their identity (their own, not a link's target), without
// descending into them. Directories it cannot read are left out. No link
// is followed: a link from the workspace leads, once the command has
// ended, where the person's own files are (the host's /tmp, not the
// command's private one), and what is there is not the command's.
//
// Every sandboxed command walks its roots (see Policy.Watch and the
// nested protected paths of Policy.Wrap), so the walk costs what a
// directory costs the kernel and no more: each is opened relative to its
// parent (no path lookup from the root, no length limit, no link followed
// on the way) and read with getdents64, whose entry types spare a stat per
// entry; only links are resolved.
func walkNames(dir string, out map[string]fileKey) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	w := nameWalk{out: out, buf: make([]byte, 32<<10)}
	w.dir(fd, dir)
}

// nameWalk is one walk of walkNames.
type nameWalk struct {
	out map[string]fileKey
	buf []byte // getdents64's, reused by every directory
}

// dirEntry is a directory entry's name and type (a DT_ constant).
type dirEntry struct {
	name string
	typ  uint8
}

// dir walks the open directory fd, whose path is path, and closes it.
func (w *nameWalk) dir(fd int, path string) {
	defer unix.Close(fd)
	entries := w.read(fd)
	for _, e := range entries {
		if slices.Contains(ProtectedNames, e.name) {
			if k, ok := keyAt(fd, e.name); ok {
				w.out[filepath.Join(path, e.name)] = k
			}
			continue
		}
		typ := e.typ
		if typ == unix.DT_UNKNOWN { // file systems that do not say
			var st unix.Stat_t
			if err := unix.Fstatat(fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			if st.Mode&unix.S_IFMT == unix.S_IFDIR {
				typ = unix.DT_DIR
			}
		}
		if typ == unix.DT_DIR {
			// Replaced by a link since it was read: not followed.
			sub, err := unix.Openat(fd, e.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err == nil {
				w.dir(sub, filepath.Join(path, e.name))
			}
		}
	}
}

// read returns the entries of the open directory fd but "." and "..", in
// directory order.
func (w *nameWalk) read(fd int) []dirEntry {
	var entries []dirEntry
	for {
		n, err := unix.Getdents(fd, w.buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return entries
		}
		// struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
		// (2), d_type (1), d_name (NUL-terminated, padded to reclen).
		for b := w.buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return entries // not a dirent: stop rather than misread
			}
			name := b[19:reclen]
			if i := slices.Index(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				entries = append(entries, dirEntry{name: s, typ: b[18]})
			}
			b = b[reclen:]
		}
	}
}

// keyAt returns the identity of the entry name of the open directory dir
// (AT_FDCWD: name is a path), without following a last link.
func keyAt(dir int, name string) (fileKey, bool) {
	var sx unix.Statx_t
	if err := unix.Statx(dir, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_BTIME, &sx); err != nil {
		return fileKey{}, false
	}
	k := fileKey{dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), ino: sx.Ino, typ: uint32(sx.Mode) & unix.S_IFMT}
	if sx.Mask&unix.STATX_BTIME != 0 {
		k.born = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	return k, true
}

// keyOf returns the identity of the file at path, without following a last
// link.
func keyOf(path string) (fileKey, bool) { return keyAt(unix.AT_FDCWD, path) }
