//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The /dev a command gets (Spec.Dev), SPEC G16.
const (
	// DevMinimal is the /dev of sandboxed commands: the null, zero,
	// full, random and terminal devices, a devpts instance of their own
	// and /dev/shm.
	DevMinimal = "minimal"
	// DevAll is the /dev of commands run outside the sandbox: every
	// device of the host's /dev but block devices and other terminals
	// (GPUs, /dev/kvm, /dev/fuse and /dev/net/tun stay), a devpts
	// instance of their own, and the host's /dev/shm, /dev/mqueue and
	// /dev/hugepages.
	DevAll = "all"
)

// minimalDevices are the devices of DevMinimal, besides /dev/ptmx (a link to
// the private devpts instance's).
var minimalDevices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devLinks are the symbolic links every fresh /dev holds.
var devLinks = [][2]string{
	{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"}, {"ptmx", "pts/ptmx"},
}

// freshDev mounts a /dev of this process's own over the host's, in its
// private mount namespace: an empty tmpfs holding bind mounts of the
// devices that mode (DevMinimal or DevAll) keeps, a new devpts instance
// (its own ptys: none of the person's terminals, whose /dev/pts/N a
// command could otherwise open by name and draw on), and /dev/shm (the
// mount found there, which may be the sandbox's own). Block devices are
// never kept: reading one bypasses every file permission and cover above
// it. With readOnly, everything but /dev/pts and /dev/shm is read-only,
// like the rest of the read-only view.
func freshDev(mode string, readOnly bool) error {
	all := mode == DevAll
	if !all && mode != DevMinimal {
		return fmt.Errorf("unknown /dev mode %q", mode)
	}
	old, err := syscall.Open("/dev", unix.O_PATH|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("/dev: %w", err)
	}
	defer syscall.Close(old)
	carried, err := carriedDevMounts(old, all)
	defer func() {
		for _, c := range carried {
			syscall.Close(c.fd)
		}
	}()
	if err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", "/dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=755,size=256k"); err != nil {
		return fmt.Errorf("mounting a /dev of its own: %w", err)
	}
	if all {
		if err := copyDevDir(old, ""); err != nil {
			return err
		}
	} else {
		for _, name := range minimalDevices {
			var st unix.Stat_t
			if err := unix.Fstatat(old, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
				continue // missing here: missing there
			}
			if err := bindDevNode(old, name); err != nil {
				return err
			}
		}
	}
	for _, l := range devLinks {
		if err := os.Symlink(l[1], "/dev/"+l[0]); err != nil && !errors.Is(err, syscall.EEXIST) {
			return fmt.Errorf("/dev/%s: %w", l[0], err)
		}
	}
	for _, dir := range append([]string{"pts", "shm"}, carriedNames(carried)...) {
		if err := os.Mkdir("/dev/"+dir, 0o755); err != nil && !errors.Is(err, syscall.EEXIST) {
			return fmt.Errorf("/dev/%s: %w", dir, err)
		}
	}
	if readOnly {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("making /dev read-only: %w", err)
		}
	}
	// ptmxmode: the instance's pts/ptmx, which /dev/ptmx leads to, is
	// for everyone, as the host's /dev/ptmx is.
	if err := syscall.Mount("devpts", "/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mounting a devpts instance of its own: %w", err)
	}
	for _, c := range carried {
		target, err := syscall.Open("/dev/"+c.name, unix.O_PATH|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("/dev/%s: %w", c.name, err)
		}
		err = unix.MoveMount(c.fd, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		syscall.Close(target)
		if err != nil {
			return fmt.Errorf("carrying /dev/%s over: %w", c.name, err)
		}
	}
	return chdirAgain()
}

// devMount is a mount found under the host's /dev, cloned (open_tree(2))
// to attach in the fresh one.
type devMount struct {
	name string // under /dev
	fd   int
}

func carriedNames(c []devMount) []string {
	var out []string
	for _, m := range c {
		out = append(out, m.name)
	}
	return out
}

// carriedFSTypes are the file systems, by statfs(2) magic number, mounted
// directly under /dev that a fresh /dev keeps (DevAll): shared memory and
// message queues, nothing that holds devices.
var carriedFSTypes = map[int64]bool{unix.TMPFS_MAGIC: true, mqueueMagic: true, unix.HUGETLBFS_MAGIC: true}

// mqueueMagic is the message queue file system's (linux/magic.h).
const mqueueMagic = 0x19800202

// carriedDevMounts clones the mounts directly under the host's /dev
// (reached through old) that a fresh /dev keeps: /dev/shm (whether a mount
// or a directory), and with all the other mounts of carriedFSTypes.
func carriedDevMounts(old int, all bool) ([]devMount, error) {
	names := []string{"shm"}
	if all {
		var dirSt unix.Stat_t
		if err := unix.Fstat(old, &dirSt); err != nil {
			return nil, fmt.Errorf("/dev: %w", err)
		}
		dfd, err := unix.Openat(old, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("listing /dev: %w", err)
		}
		f := os.NewFile(uintptr(dfd), "/dev")
		entries, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("listing /dev: %w", err)
		}
		for _, name := range entries {
			var st unix.Stat_t
			if name == "shm" || unix.Fstatat(old, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil ||
				st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Dev == dirSt.Dev {
				continue
			}
			var fs unix.Statfs_t
			if err := unix.Statfs("/proc/self/fd/"+strconv.Itoa(old)+"/"+name, &fs); err == nil && carriedFSTypes[int64(fs.Type)] {
				names = append(names, name)
			}
		}
	}
	var out []devMount
	for _, name := range names {
		fd, err := unix.OpenTree(old, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			if errors.Is(err, syscall.ENOSYS) {
				break // before Linux 5.2: an empty /dev/shm of the command's own
			}
			return out, fmt.Errorf("cloning /dev/%s: %w", name, err)
		}
		out = append(out, devMount{name, fd})
	}
	return out, nil
}

// copyDevDir reproduces the host's /dev directory rel ("" for /dev
// itself, reached through old, a descriptor of the host's /dev) in the
// fresh /dev, for DevAll: directories and symbolic links are made again,
// devices, sockets and FIFOs bound, except block devices, terminals
// (isTerminal), and mounts (devpts, /dev/shm: see freshDev).
func copyDevDir(old int, rel string) error {
	dirPath := "."
	if rel != "" {
		dirPath = rel
	}
	dfd, err := unix.Openat(old, dirPath, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("listing /dev/%s: %w", rel, err)
	}
	var dirSt unix.Stat_t
	if err := unix.Fstat(dfd, &dirSt); err != nil {
		syscall.Close(dfd)
		return fmt.Errorf("/dev/%s: %w", rel, err)
	}
	f := os.NewFile(uintptr(dfd), "/dev/"+rel)
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("listing /dev/%s: %w", rel, err)
	}
	for _, name := range names {
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		var st unix.Stat_t
		if err := unix.Fstatat(old, r, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // gone
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			if st.Dev != dirSt.Dev {
				continue // a mount point: pts is made anew, the rest carried
			}
			if err := os.Mkdir("/dev/"+r, os.FileMode(st.Mode&0o777)); err != nil && !errors.Is(err, syscall.EEXIST) {
				return fmt.Errorf("/dev/%s: %w", r, err)
			}
			if err := copyDevDir(old, r); err != nil {
				return err
			}
		case syscall.S_IFLNK:
			if rel == "" && isDevLink(name) {
				continue // made by freshDev
			}
			target, err := readlinkat(old, r)
			if err != nil {
				continue
			}
			if err := os.Symlink(target, "/dev/"+r); err != nil && !errors.Is(err, syscall.EEXIST) {
				return fmt.Errorf("/dev/%s: %w", r, err)
			}
		case syscall.S_IFBLK:
			// Never: a block device reads past every cover.
		case syscall.S_IFCHR:
			if isTerminal(st.Rdev) {
				continue
			}
			if err := bindDevNode(old, r); err != nil {
				return err
			}
		default: // sockets (/dev/log), FIFOs, files
			if err := bindDevNode(old, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDevLink(name string) bool {
	for _, l := range devLinks {
		if l[0] == name {
			return true
		}
	}
	return false
}

// isTerminal reports whether the character device rdev is a terminal other
// than /dev/tty (the caller's own controlling terminal), or shows or types
// into one: BSD ptys (majors 2, 3), virtual consoles and serial ports
// (4), /dev/console and the host's /dev/ptmx (5, but 5:0), the consoles'
// screen memory (7, vcs) and Unix98 pty slaves (136 to 143).
func isTerminal(rdev uint64) bool {
	major, minor := unix.Major(rdev), unix.Minor(rdev)
	switch {
	case major == 5:
		return minor != 0
	case major == 2, major == 3, major == 4, major == 7:
		return true
	case major >= 136 && major <= 143:
		return true
	}
	return false
}

// bindDevNode binds the host's /dev/rel (reached through old) onto the
// same name in the fresh /dev.
func bindDevNode(old int, rel string) error {
	target := "/dev/" + rel
	if err := syscall.Mknod(target, syscall.S_IFREG|0o600, 0); err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	src := "/proc/self/fd/" + strconv.Itoa(old) + "/" + rel
	if err := syscall.Mount(src, target, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("binding %s: %w", target, err)
	}
	return nil
}

// readlinkat reads the symbolic link name under dirfd.
func readlinkat(dirfd int, name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
