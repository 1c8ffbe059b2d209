//go:build linux

package confine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The dry run's view (SPEC G17): the helper of a dry run (Spec.DryRun)
// gives the command a copy-on-write view of the whole file system, so that
// nothing it writes, deletes, renames or chmods reaches a real file. The
// parent reads what changed from the upper layers afterwards (see package
// internal/dryrun).
//
// Overlayfs mounts in a user namespace need a lower layer without locked
// mounts beneath it (the kernel refuses to clone a mount whose children,
// copied from a more privileged namespace, would be uncovered: "failed to
// clone lowerpath"), and / always has some (/proc, /sys, /dev). So the
// view is assembled in a new tmpfs (the synthetic root):
//
//   - a directory with no mount beneath it gets an overlay of its own,
//     the host's directory as the lower layer and a directory of the
//     staging tmpfs as the upper one;
//   - a directory that holds mounts (/, /mnt, a /home with a mount inside)
//     is made again as a directory of the synthetic root, with its
//     symbolic links made again, its regular files bound read-only, and
//     each entry handled the same way;
//   - a mount of a pseudo file system, and a read-only mount, is cloned
//     with its submounts and made read-only (/sys among them);
//   - /proc is mounted afresh (the helper's PID namespace), /dev is the
//     helper's own (freshDev), and /dev/shm gets an overlay over the
//     host's;
//   - the synthetic root itself is read-only once assembled: a new entry
//     directly in such a directory (a new file at the top of /) fails
//     with EROFS rather than vanish unreported.
//
// The staging tmpfs (fsmount(2), never attached anywhere the command can
// reach) holds one directory per overlay, N/u (the upper layer) and N/w
// (overlayfs's work directory), and a file "layers" whose lines are
// "N<TAB>"PATH"": which host directory overlay N covers, PATH quoted as a
// Go string (a directory's name may hold a tab or a newline). Its descriptor is
// sent to the parent over ViewFD before the command starts; the parent
// keeps the tmpfs alive by it after the helper's namespaces are gone.

// Layers is the name of the staging tmpfs's index of overlays.
const Layers = "layers"

// pseudoFS are the file systems whose mounts the view carries over
// read-only instead of overlaying them.
var pseudoFS = map[string]bool{
	"proc": true, "sysfs": true, "devtmpfs": true, "devpts": true, "cgroup": true, "cgroup2": true,
	"mqueue": true, "debugfs": true, "tracefs": true, "securityfs": true, "bpf": true, "fusectl": true,
	"configfs": true, "pstore": true, "hugetlbfs": true, "binfmt_misc": true, "autofs": true,
	"efivarfs": true, "nsfs": true, "rpc_pipefs": true, "selinuxfs": true,
}

// Mount is one line of /proc/self/mountinfo: where it is mounted, its file
// system type and whether it is read-only.
type Mount struct {
	Point    string
	FSType   string
	ReadOnly bool
}

// ParseMountinfo parses the contents of /proc/PID/mountinfo (proc(5)):
// for each mount its mount point (octal escapes decoded), file system
// type and read-only flag. Malformed lines are an error.
func ParseMountinfo(data string) ([]Mount, error) {
	var out []Mount
	for n, line := range strings.Split(data, "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 6 || sep < 0 || sep+1 >= len(f) {
			return nil, fmt.Errorf("mountinfo line %d: malformed", n+1)
		}
		point, err := unescapeOctal(f[4])
		if err != nil || !path.IsAbs(point) {
			return nil, fmt.Errorf("mountinfo line %d: bad mount point %q", n+1, f[4])
		}
		ro := false
		for _, o := range strings.Split(f[5], ",") {
			if o == "ro" {
				ro = true
			}
		}
		out = append(out, Mount{Point: path.Clean(point), FSType: f[sep+1], ReadOnly: ro})
	}
	return out, nil
}

// unescapeOctal decodes the \NNN escapes the kernel writes for spaces,
// tabs, newlines and backslashes in mountinfo fields.
func unescapeOctal(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", errors.New("short escape")
		}
		v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", err
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String(), nil
}

// viewBuilder assembles the dry run's view.
type viewBuilder struct {
	mounts  map[string]Mount // the topmost mount at each mount point
	root    int              // the synthetic root (a detached tmpfs)
	staging int              // the staging tmpfs
	layers  strings.Builder  // the "layers" index
	n       int              // overlays made so far
	late    []lateMount      // overlays attached after freshDev (/dev/shm)
}

// lateMount is a detached mount to attach at path once /dev is made.
type lateMount struct {
	path string
	fd   int
}

// newTmpfs returns a detached tmpfs mount (fsopen(2), fsmount(2)).
func newTmpfs(options map[string]string) (int, error) {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen tmpfs: %w", err)
	}
	defer syscall.Close(fsfd)
	for k, v := range options {
		if err := unix.FsconfigSetString(fsfd, k, v); err != nil {
			return -1, fmt.Errorf("tmpfs %s=%s: %w", k, v, err)
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("creating a tmpfs: %w", err)
	}
	m, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("fsmount tmpfs: %w", err)
	}
	return m, nil
}

// dryRunView builds the view (see above) and enters it: afterwards this
// process's root is the synthetic root, its working directory the same
// path as before. It returns the staging tmpfs's descriptor and the
// overlays to attach once /dev is made (attachLate). size bounds the
// staging tmpfs, in bytes (0: the kernel's default, half the memory).
func dryRunView(size int64) (staging int, late []lateMount, err error) {
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return -1, nil, fmt.Errorf("making mounts private: %w", err)
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return -1, nil, err
	}
	list, err := ParseMountinfo(string(data))
	if err != nil {
		return -1, nil, err
	}
	b := &viewBuilder{mounts: map[string]Mount{}, root: -1, staging: -1}
	for _, m := range list {
		b.mounts[m.Point] = m
	}
	defer func() {
		if b.root >= 0 {
			syscall.Close(b.root)
		}
		if err != nil {
			if b.staging >= 0 {
				syscall.Close(b.staging)
			}
			for _, l := range b.late {
				syscall.Close(l.fd)
			}
		}
	}()
	opts := map[string]string{"mode": "0700"}
	if size > 0 {
		opts["size"] = strconv.FormatInt(size, 10)
	}
	if b.staging, err = newTmpfs(opts); err != nil {
		return -1, nil, err
	}
	if b.root, err = newTmpfs(map[string]string{"mode": "0755"}); err != nil {
		return -1, nil, err
	}
	if err := b.node("/", "."); err != nil {
		return -1, nil, err
	}
	if err := writeAtFD(b.staging, Layers, b.layers.String()); err != nil {
		return -1, nil, err
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(b.root, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return -1, nil, fmt.Errorf("making the view's root read-only: %w", err)
	}
	wd, _ := os.Getwd()
	if err := syscall.Fchdir(b.root); err != nil {
		return -1, nil, fmt.Errorf("entering the view: %w", err)
	}
	if err := unix.MoveMount(b.root, "", unix.AT_FDCWD, "/", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return -1, nil, fmt.Errorf("attaching the view: %w", err)
	}
	if err := syscall.Chroot("."); err != nil {
		return -1, nil, fmt.Errorf("entering the view: %w", err)
	}
	if wd == "" || syscall.Chdir(wd) != nil {
		_ = syscall.Chdir("/")
	}
	return b.staging, b.late, nil
}

// attachLate attaches the overlays kept for after freshDev.
func attachLate(late []lateMount) error {
	for _, l := range late {
		err := unix.MoveMount(l.fd, "", unix.AT_FDCWD, l.path, unix.MOVE_MOUNT_F_EMPTY_PATH)
		syscall.Close(l.fd)
		if err != nil {
			return fmt.Errorf("attaching the overlay of %s: %w", l.path, err)
		}
	}
	return nil
}

// mountsBeneath reports whether a mount lies strictly under dir.
func (b *viewBuilder) mountsBeneath(dir string) bool {
	for p := range b.mounts {
		if p != dir && Within(dir, p) {
			return true
		}
	}
	return false
}

// node reproduces the host's directory host at rel in the synthetic root.
func (b *viewBuilder) node(host, rel string) error {
	m, isMount := b.mounts[host]
	switch {
	case host == "/proc":
		return nil // mounted afresh
	case host == "/dev":
		// freshDev makes it from this clone; /dev/shm is overlaid after.
		if err := b.cloneReadOnly(host, rel); err != nil {
			return err
		}
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			fd, err := b.overlay("/dev/shm")
			if err != nil {
				return err
			}
			b.late = append(b.late, lateMount{"/dev/shm", fd})
		}
		return nil
	case host != "/" && isMount && (pseudoFS[m.FSType] || m.ReadOnly):
		return b.cloneReadOnly(host, rel)
	case host != "/" && !b.mountsBeneath(host):
		fd, err := b.overlay(host)
		if err != nil {
			// A file system overlayfs cannot stack on: read-only.
			return b.cloneReadOnly(host, rel)
		}
		defer syscall.Close(fd)
		if err := unix.MoveMount(fd, "", b.root, rel, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("attaching the overlay of %s: %w", host, err)
		}
		return nil
	}
	dir, err := os.Open(host)
	if err != nil {
		return fmt.Errorf("listing %s: %w", host, err)
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return fmt.Errorf("listing %s: %w", host, err)
	}
	for _, name := range names {
		child := path.Join(host, name)
		crel := path.Join(rel, name)
		fi, err := os.Lstat(child)
		if err != nil {
			continue // gone
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(child)
			if err != nil {
				continue
			}
			if err := unix.Symlinkat(target, b.root, crel); err != nil {
				return fmt.Errorf("%s: %w", child, err)
			}
		case fi.IsDir():
			if err := unix.Mkdirat(b.root, crel, uint32(fi.Mode().Perm())); err != nil {
				return fmt.Errorf("%s: %w", child, err)
			}
			if err := b.node(child, crel); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			fd, err := unix.Openat(b.root, crel, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, uint32(fi.Mode().Perm()))
			if err != nil {
				return fmt.Errorf("%s: %w", child, err)
			}
			syscall.Close(fd)
			if err := b.cloneReadOnly(child, crel); err != nil {
				return err
			}
		}
	}
	return nil
}

// cloneReadOnly binds host, with its submounts, read-only at rel (which
// exists, or is made as a directory).
func (b *viewBuilder) cloneReadOnly(host, rel string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, host, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT)
	if err != nil {
		return fmt.Errorf("cloning %s: %w", host, err)
	}
	defer syscall.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("making %s read-only: %w", host, err)
	}
	if rel != "." {
		if err := unix.Mkdirat(b.root, rel, 0o755); err != nil && !errors.Is(err, syscall.EEXIST) {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	if err := unix.MoveMount(fd, "", b.root, rel, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("binding %s: %w", host, err)
	}
	return nil
}

// overlay returns a detached overlay mount of host, its upper layer a new
// directory of the staging tmpfs, and records it in the index. The
// overlay's mount point in the view is made when missing.
func (b *viewBuilder) overlay(host string) (int, error) {
	n := strconv.Itoa(b.n)
	for _, d := range []string{n, n + "/u", n + "/w"} {
		if err := unix.Mkdirat(b.staging, d, 0o755); err != nil {
			return -1, fmt.Errorf("staging for %s: %w", host, err)
		}
	}
	stage := "/proc/self/fd/" + strconv.Itoa(b.staging) + "/" + n
	fsfd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen overlay: %w", err)
	}
	defer syscall.Close(fsfd)
	lower := strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(host)
	for _, o := range [][2]string{{"lowerdir", lower}, {"upperdir", stage + "/u"}, {"workdir", stage + "/w"}} {
		if err := unix.FsconfigSetString(fsfd, o[0], o[1]); err != nil {
			return -1, fmt.Errorf("overlay of %s, %s: %w", host, o[0], err)
		}
	}
	if err := unix.FsconfigSetFlag(fsfd, "userxattr"); err != nil {
		return -1, fmt.Errorf("overlay of %s, userxattr: %w", host, err)
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("overlay of %s: %w", host, err)
	}
	fd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("fsmount overlay of %s: %w", host, err)
	}
	b.n++
	fmt.Fprintf(&b.layers, "%s\t%s\n", n, strconv.Quote(host))
	return fd, nil
}

// writeAtFD writes data to a new file name in the directory dir.
func writeAtFD(dir int, name, data string) error {
	fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	w := bufio.NewWriter(f)
	_, err = w.WriteString(data)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SendToParent sends fd to the parent of a dry run's helper over sock
// (Spec.ViewFD) as the message name: "view" for the staging tmpfs; other
// recorders of the dry run send theirs the same way before the command
// starts (sandbox.Policy.WrapDryRun's receive function gets each by its
// name). The socket is closed once the setup is done (closeViewSocket).
func SendToParent(sock int, name string, fd int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(sock, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return fmt.Errorf("no socket to the parent as descriptor %d", sock)
	}
	if err := syscall.Sendmsg(sock, []byte(name), syscall.UnixRights(fd), nil, 0); err != nil {
		return fmt.Errorf("sending %s to the parent: %w", name, err)
	}
	return nil
}

// closeViewSocket closes the socket to the parent at the end of a dry
// run's setup: the command must not inherit it, and the parent's
// receiving ends.
func closeViewSocket(sock int) {
	if sock > 2 {
		syscall.Close(sock)
	}
}

// dryRunProcs bounds the number of a dry run's processes (RLIMIT_NPROC,
// counted per user in its user namespace; the kernel does not apply it
// to root, whose dry runs only the time budget bounds).
const dryRunProcs = 1024

// dryRunLimits sets the memory budget (RLIMIT_DATA: private writable
// memory, the heap of every process) and dryRunProcs on this process,
// which the command inherits. The command's processes each get the
// memory budget; their number is bounded by dryRunProcs and by the time
// budget, after which the PID namespace ends.
func dryRunLimits(memory int64) error {
	if memory > 0 {
		lim := &unix.Rlimit{Cur: uint64(memory), Max: uint64(memory)}
		if err := unix.Setrlimit(unix.RLIMIT_DATA, lim); err != nil {
			return fmt.Errorf("setrlimit(RLIMIT_DATA): %w", err)
		}
	}
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &cur); err == nil && cur.Cur > dryRunProcs {
		lim := &unix.Rlimit{Cur: dryRunProcs, Max: dryRunProcs}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, lim); err != nil {
			return fmt.Errorf("setrlimit(RLIMIT_NPROC): %w", err)
		}
	}
	return nil
}

// ReadPrefix starts the name of each descriptor a dry run's helper sends
// for a watched credential store: ReadPrefix+PATH, a fanotify group whose
// queue holds an event once the command opened the store.
const ReadPrefix = "read:"

// watchReads sends the parent, for each watched path that exists in the
// view, a fanotify group (unprivileged: inode marks, FAN_REPORT_FID)
// marked to record its opening: a file's own, or a directory's files'
// (not the listing of the directory). The parent reads the groups once
// the command has ended. Marks are on the view's inodes, which the
// command's opens reach.
func watchReads(sock int, paths []string) error {
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			continue // missing in the view: nothing to open
		}
		fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK|unix.FAN_REPORT_FID, unix.O_RDONLY|unix.O_CLOEXEC)
		if err != nil {
			return fmt.Errorf("fanotify: %w", err)
		}
		mask := uint64(unix.FAN_OPEN | unix.FAN_ACCESS)
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			mask |= unix.FAN_EVENT_ON_CHILD
		}
		err = unix.FanotifyMark(fd, unix.FAN_MARK_ADD, mask, unix.AT_FDCWD, p)
		if err == nil {
			err = SendToParent(sock, ReadPrefix+p, fd)
		}
		syscall.Close(fd)
		if err != nil {
			return fmt.Errorf("watching %s: %w", p, err)
		}
	}
	return nil
}
