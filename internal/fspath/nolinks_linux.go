package fspath

import "golang.org/x/sys/unix"

// withoutLinks asks the kernel, in one call, whether no component of the
// plain absolute path p is a symbolic link (ok), and then whether p exists:
// openat2 with RESOLVE_NO_SYMLINKS fails with ELOOP on the first link (the
// last component too: no O_NOFOLLOW, which would open a link itself),
// and with ENOENT or ENOTDIR on a missing component before any link, below
// which a walk would look up nothing more. ok is false when the kernel
// cannot tell (a link, no openat2, any other error): the caller walks p.
func withoutLinks(p string) (exists, ok bool) {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	switch err {
	case nil:
		unix.Close(fd)
		return true, true
	case unix.ENOENT, unix.ENOTDIR:
		return false, true
	}
	return false, false
}
