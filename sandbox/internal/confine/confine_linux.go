//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// init turns this process into the sandbox helper when it was started as
// one (see sandbox.Policy.Wrap): it never returns then. This runs before
// main, before the testing framework in test binaries, and before the
// initialisers of every package that does not come before this one's few
// imports, in every program that imports the package (package sandbox
// does).
func init() {
	if len(os.Args) < 2 || os.Args[0] != Arg0 || !strings.HasPrefix(os.Args[1], "warden_sandbox=") {
		return
	}
	os.Exit(helperMain(os.Args[1:]))
}

// helperMain sets up the sandbox that args describe and executes the
// command they end with in it. It returns only on failure, with the exit
// status to leave with.
func helperMain(args []string) int {
	// Landlock, no_new_privs and capabilities are set on this thread
	// only, which then becomes the new program: keep the goroutine on it.
	runtime.LockOSThread()
	fail := func(status int, format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "warden: sandbox: "+format+"\n", a...)
		return status
	}
	s, argv, err := Parse(args)
	if err != nil {
		return fail(ExitSetup, "%v", err)
	}
	var sigs *caughtSignals
	if s.PIDNS && !s.Probe && len(argv) > 0 {
		sigs = catchSignals() // concurrently with the setup
	}
	if err := s.setup(); err != nil {
		return fail(ExitSetup, "%v", err)
	}
	if s.Probe {
		return 0
	}
	if len(argv) == 0 {
		return fail(ExitSetup, "no command")
	}
	if s.PIDNS {
		sys, err := s.commandAttr()
		if err != nil {
			return fail(ExitSetup, "%v", err)
		}
		if s.TraceFD != 0 {
			if err := traceExec(s.TraceFD); err != nil {
				return fail(ExitSetup, "%v", err)
			}
		}
		return supervise(s.Path, argv, sigs, fail, sys)
	}
	if s.TraceFD != 0 {
		if err := traceExec(s.TraceFD); err != nil {
			return fail(ExitSetup, "%v", err)
		}
	}
	err = syscall.Exec(s.Path, argv, os.Environ())
	status := ExitCannotRun
	if errors.Is(err, syscall.ENOENT) {
		status = ExitNotFound
	}
	return fail(status, "%s: %v", s.Path, err)
}

// mapIDs maps the user and group IDs of the helper's new user namespace:
// its own (IDMap), or root's map of every ID, which only the parent can
// write (ParentMaps).
func (s Spec) mapIDs() error {
	if s.IDMap == "" && !s.ParentMaps {
		return errors.New("no way to map the user and group IDs in the new user namespace")
	}
	if s.IDMap != "" {
		if err := mapOwnIDs(s.IDMap); err != nil {
			return fmt.Errorf("mapping the user and group IDs: %w", err)
		}
	}
	if s.ParentMaps {
		if err := askRootMaps(); err != nil {
			return fmt.Errorf("mapping the user and group IDs: %w", err)
		}
	}
	return nil
}

// setup restricts this process as s says: namespace work first (it needs
// capabilities, and mounts that Landlock then forbids), then Landlock, then
// dropping the capabilities.
func (s Spec) setup() error {
	if s.Cover {
		return s.setupCover()
	}
	if s.Contain {
		// Full access: only the PID namespace (and a mount namespace
		// for its /proc).
		if os.Getpid() != 1 {
			return errors.New("not in a new PID namespace (was the command's SysProcAttr replaced after sandbox.Contain?)")
		}
		// Only /proc leaves its peer group: the new /proc stays in this
		// namespace, while the command's own mounts propagate as they
		// would without it (full access).
		if err := syscall.Mount("none", "/proc", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err == nil {
			mountProc(false)
		}
		if err := dropControllingTerminal(); err != nil {
			return fmt.Errorf("leaving the controlling terminal: %w", err)
		}
		// With every capability, leaving the terminal is not enough:
		// CAP_SYS_ADMIN pushes keys (TIOCSTI) into any terminal it opens.
		if prog, err := ttyInjectFilter(); err == nil {
			if err := installFilter(prog); err != nil {
				return fmt.Errorf("refusing TIOCSTI: %w", err)
			}
		}
		return nil
	}
	if s.UserNS != "" {
		if id, _ := os.Readlink("/proc/self/ns/user"); id == "" || id == s.UserNS {
			return errors.New("not in a new user namespace (was the command's SysProcAttr replaced after sandbox.Policy.Wrap?)")
		}
		if err := s.mapIDs(); err != nil {
			return err
		}
	}
	tr, err := s.traceOpen() // before any mount covers the resolver file
	if err != nil {
		return err
	}
	var lo chan error // the loopback interface's bringing up, when started
	if s.NetNS != "" {
		if id, _ := os.Readlink("/proc/self/ns/net"); id == "" || id == s.NetNS {
			return errors.New("not in a new network namespace (was the command's SysProcAttr replaced after sandbox.Policy.Wrap?)")
		}
		// On another thread, while this one does the mount work: the
		// kernel's part (the interface's addresses and routes) takes a
		// few hundred microseconds. Every thread of this process is in
		// the new network namespace and still has its capabilities; the
		// outcome is awaited before anything is restricted.
		lo = make(chan error, 1)
		go func() { lo <- loopbackUp() }()
	}
	if s.UserNS != "" {
		// Namespaces nested in the sandbox's, whose root would have all
		// capabilities again, are not needed by commands and are a
		// common way to reach kernel bugs. Best effort: older kernels
		// do not offer the limit per user namespace. (Before the view
		// makes /proc read-only.)
		_ = os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0)
	}
	if s.MountNS {
		if s.UserNS == "" {
			return errors.New("refusing to change mounts outside a new user namespace")
		}
		var late []lateMount
		if s.DryRun {
			staging, l, err := dryRunView(s.Memory)
			if err != nil {
				return err
			}
			late = l
			err = SendToParent(s.ViewFD, "view", staging)
			syscall.Close(staging)
			if err != nil {
				return err
			}
			mountProc(true) // before hide, which reads /proc/self/fd
		} else if s.View {
			if err := readOnlyView(s.Roots); err != nil {
				return err
			}
		}
		if err := s.protect(); err != nil {
			return err
		}
		if len(s.Temps) > 0 {
			covered, err := privateTemps(s.Temps, s.Roots, s.Path, s.View)
			if err != nil {
				return err
			}
			s.covered = covered
		}
		for _, h := range s.Hidden {
			if err := hide(h); err != nil && !errors.Is(err, syscall.ENOENT) {
				return fmt.Errorf("hiding warden's state %s: %w", h, err)
			}
		}
		if s.Dev != "" && !s.Probe {
			if err := freshDev(s.Dev, s.View || s.DryRun); err != nil {
				return err
			}
		}
		if err := attachLate(late); err != nil {
			return err
		}
	}
	if s.PIDNS && os.Getpid() != 1 {
		return errors.New("not in a new PID namespace (was the command's SysProcAttr replaced after sandbox.Policy.Wrap?)")
	}
	if s.PIDNS && s.MountNS && !s.DryRun {
		mountProc(true)
	}
	if lo != nil {
		if err := <-lo; err != nil {
			return fmt.Errorf("bringing up the loopback interface: %w", err)
		}
	}
	if tr != nil {
		if err := tr.prepare(); err != nil {
			return err
		}
	}
	if err := dropControllingTerminal(); err != nil {
		return fmt.Errorf("leaving the controlling terminal: %w", err)
	}
	// Neither set-user-ID programs nor file capabilities give the command
	// privileges; Landlock requires it too.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if s.Landlock > 0 {
		if err := s.restrict(); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if s.NoUnix {
		prog, err := s.socketFilter()
		if err == nil {
			err = installFilter(prog)
		}
		if err != nil {
			return fmt.Errorf("refusing UNIX sockets: %w", err)
		}
	}
	if s.DryRun {
		// Recorders of the dry run that send the parent a descriptor
		// (SendToParent) do it here, before the socket closes.
		if err := watchReads(s.ViewFD, s.Watch); err != nil {
			return err
		}
		closeViewSocket(s.ViewFD)
		if err := dryRunLimits(s.Memory); err != nil {
			return err
		}
		// A session keyring of its own: warden's, inherited, is a real
		// thing it could add keys to (user keyrings are the user
		// namespace's own already).
		if _, _, e := syscall.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); e != 0 && e != syscall.ENOSYS {
			return fmt.Errorf("a session keyring of its own: %w", e)
		}
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// mapOwnIDs maps ids, "UID:GID" of the parent user namespace (this
// process's own), to themselves in this process's new user namespace,
// whose maps are still empty, and refuses setgroups(2) there, as an
// unprivileged process must before it maps a group (user_namespaces(7)).
// It needs CAP_SYS_ADMIN in the new namespace, and nothing in the parent's.
func mapOwnIDs(ids string) error {
	u, g, ok := strings.Cut(ids, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return fmt.Errorf("bad ID map %q", ids)
	}
	for _, w := range []struct{ file, data string }{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/gid_map", g + " " + g + " 1\n"},
		{"/proc/self/uid_map", u + " " + u + " 1\n"},
	} {
		fd, err := syscall.Open(w.file, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", w.file, err)
		}
		n, err := syscall.Write(fd, []byte(w.data))
		syscall.Close(fd)
		if err == nil && n != len(w.data) {
			err = syscall.EIO
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.file, err)
		}
	}
	if os.Geteuid() != uid || os.Getegid() != gid {
		return errors.New("the IDs did not map")
	}
	return nil
}

// Secure bits (prctl(2) PR_SET_SECUREBITS, capabilities(7)).
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// dropCapabilities leaves this thread, and the program it executes, with
// no capabilities: in the sandbox's user namespace, root's capabilities
// would let the command undo the read-only mounts (mount_setattr(2) is not
// subject to Landlock); outside one, they would let it load kernel modules
// or create device nodes. For root, the bounding set is emptied and the
// secure bits keep uid 0 from regaining capabilities on execve.
func dropCapabilities() error {
	if os.Geteuid() == 0 {
		for c := 0; c < 64; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				if errors.Is(err, syscall.EINVAL) {
					break // past the last capability
				}
				return fmt.Errorf("PR_CAPBSET_DROP: %w", err)
			}
		}
		bits := secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
			secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
			return fmt.Errorf("PR_SET_SECUREBITS: %w", err)
		}
	}
	// Ambient capabilities kept for the setup are not passed on.
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// dropControllingTerminal detaches this process, unless it leads its
// session, from its controlling terminal, which the command would otherwise
// share with warden: through it, ioctl(TIOCSTI) could type input into
// warden's console (answering its own approval prompt) or into the shell
// warden runs in. Without a controlling terminal, /dev/tty cannot be
// opened, and TIOCSTI on a terminal that is not the caller's controlling
// one needs CAP_SYS_ADMIN in the initial user namespace. Signals typed at
// the terminal still reach the command, whose process group is unchanged.
func dropControllingTerminal() error {
	if sid, err := unix.Getsid(0); err == nil && sid == os.Getpid() {
		// A session leader has its own terminal or none; detaching
		// would hang up its session.
		return nil
	}
	fd, err := syscall.Open("/dev/tty", syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil // no controlling terminal (ENXIO)
	}
	defer syscall.Close(fd)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCNOTTY, 0); e != 0 {
		return e
	}
	return nil
}

// protect binds every existing protected path read-only over itself in
// this process's private mount namespace.
func (s Spec) protect() error {
	// The read-only view made the mounts private already.
	if !s.View {
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("making mounts private: %w", err)
		}
	}
	if s.Probe {
		return bindReadOnly(os.TempDir())
	}
	for _, p := range s.Protected {
		if err := bindReadOnly(p); err != nil {
			if errors.Is(err, syscall.ENOENT) {
				continue // gone since the parent looked: nothing to protect
			}
			return fmt.Errorf("protecting %s: %w", p, err)
		}
	}
	// A working directory under a protected path now lies under the bind.
	if wd, err := os.Getwd(); err == nil {
		_ = os.Chdir(wd)
	}
	return nil
}

// keptMountFlags pairs the statfs flags that a read-only remount must keep
// (a remount in a user namespace may not clear locked ones) with their
// mount flags.
var keptMountFlags = []struct{ st, ms uintptr }{
	{unix.ST_NOSUID, unix.MS_NOSUID},
	{unix.ST_NODEV, unix.MS_NODEV},
	{unix.ST_NOEXEC, unix.MS_NOEXEC},
	{unix.ST_NOATIME, unix.MS_NOATIME},
	{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
	{unix.ST_RELATIME, unix.MS_RELATIME},
}

// bindReadOnly bind-mounts path, a resolved path, onto itself and makes
// the bind read-only. It works on descriptors opened without following
// links and checks they still name path, so that a concurrent rename or
// link cannot redirect the mount.
func bindReadOnly(path string) error {
	top, st, st2, err := mountOver(path, func(proc string, _ syscall.Stat_t) error {
		if err := syscall.Mount(proc, proc, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("bind mount: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer syscall.Close(top)
	if st2.Dev != st.Dev || st2.Ino != st.Ino {
		return errors.New("the path changed while it was being protected")
	}
	topProc := "/proc/self/fd/" + strconv.Itoa(top)
	var fs syscall.Statfs_t
	if err := syscall.Statfs(topProc, &fs); err != nil {
		return fmt.Errorf("statfs: %w", err)
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
	for _, f := range keptMountFlags {
		if uintptr(fs.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := syscall.Mount("none", topProc, "", flags, ""); err != nil {
		return fmt.Errorf("read-only remount: %w", err)
	}
	if err := syscall.Statfs(topProc, &fs); err != nil {
		return fmt.Errorf("statfs: %w", err)
	}
	if fs.Flags&unix.ST_RDONLY == 0 {
		return errors.New("the read-only remount did not take effect")
	}
	return nil
}

// hide covers path, a resolved directory or regular file, in this
// process's private mount namespace: a directory with an empty,
// read-only tmpfs no one may list, a file with /dev/null. It checks that
// the cover took effect.
func hide(path string) error {
	top, st, st2, err := mountOver(path, func(proc string, st syscall.Stat_t) error {
		var err error
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			err = syscall.Mount("tmpfs", proc, "tmpfs", syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=000,size=4k")
		} else {
			err = syscall.Mount("/dev/null", proc, "", syscall.MS_BIND, "")
		}
		if err != nil {
			return fmt.Errorf("mount: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer syscall.Close(top)
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		var fs syscall.Statfs_t
		if err := syscall.Fstatfs(top, &fs); err != nil {
			return fmt.Errorf("statfs: %w", err)
		}
		if fs.Type != unix.TMPFS_MAGIC || st2.Ino == st.Ino && st2.Dev == st.Dev {
			return errors.New("the cover did not take effect")
		}
	} else if st2.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		return errors.New("the cover did not take effect")
	}
	return nil
}

// mountOver mounts over path with mount, working on descriptors opened
// without following links (openExact) so that a concurrent rename or link
// cannot redirect the mount: mount is given the /proc path of path's
// descriptor and what it opened (before). top is a descriptor of what then
// stands at path, and after what it is; the caller closes top.
func mountOver(path string, mount func(proc string, st syscall.Stat_t) error) (top int, before, after syscall.Stat_t, err error) {
	fd, before, err := openExact(path)
	if err != nil {
		return -1, before, after, err
	}
	defer syscall.Close(fd)
	if err := mount("/proc/self/fd/"+strconv.Itoa(fd), before); err != nil {
		return -1, before, after, err
	}
	top, after, err = openExact(path)
	if err != nil {
		return -1, before, after, err
	}
	return top, before, after, nil
}

// openExact opens path with O_PATH without following a last symbolic link
// and checks that the descriptor's path is path itself (no link was
// followed on the way, nothing was renamed). It refuses symbolic links.
func openExact(path string) (int, syscall.Stat_t, error) {
	var st syscall.Stat_t
	fd, err := syscall.Open(path, unix.O_PATH|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, st, err
	}
	if real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err != nil || real != path {
		syscall.Close(fd)
		return -1, st, fmt.Errorf("%s now resolves to %q", path, real)
	}
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, st, err
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		syscall.Close(fd)
		return -1, st, fmt.Errorf("%s is a symbolic link", path)
	}
	return fd, st, nil
}

// loopbackUp brings up the loopback interface of this process's new
// network namespace, so commands can still talk to servers they start
// themselves on 127.0.0.1.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(ifr.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return e
	}
	ifr.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return e
	}
	return nil
}

// Landlock access rights, by what they apply to.
const (
	fsFileRights = llsyscall.AccessFSExecute | llsyscall.AccessFSWriteFile | llsyscall.AccessFSReadFile |
		llsyscall.AccessFSTruncate | llsyscall.AccessFSIoctlDev
	fsWriteRights = llsyscall.AccessFSExecute | llsyscall.AccessFSWriteFile | llsyscall.AccessFSReadFile |
		llsyscall.AccessFSReadDir | llsyscall.AccessFSRemoveDir | llsyscall.AccessFSRemoveFile |
		llsyscall.AccessFSMakeChar | llsyscall.AccessFSMakeDir | llsyscall.AccessFSMakeReg |
		llsyscall.AccessFSMakeSock | llsyscall.AccessFSMakeFifo | llsyscall.AccessFSMakeBlock |
		llsyscall.AccessFSMakeSym | llsyscall.AccessFSRefer | llsyscall.AccessFSTruncate
	fsDeviceRights = llsyscall.AccessFSReadFile | llsyscall.AccessFSWriteFile | llsyscall.AccessFSTruncate |
		llsyscall.AccessFSIoctlDev
)

// presets are go-landlock's configurations restricting everything each ABI
// version can, by version - 1.
var presets = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// restrict applies Landlock to this thread, which has no_new_privs set:
// everything may be read and executed, devices in DevicePaths written, and
// the writable roots written (minus protected paths, when these are not
// bound read-only). The configuration is the strict one for the ABI the
// parent found (no best effort): enforcement fails rather than silently
// doing less.
func (s Spec) restrict() error {
	if s.Landlock < 1 || s.Landlock > len(presets) {
		return fmt.Errorf("unknown ABI version %d", s.Landlock)
	}
	cfg := presets[s.Landlock-1]
	if s.Network || s.NetNS != "" {
		// Allowed, or cut off by the network namespace, where Landlock
		// would also forbid servers on the namespace's own loopback.
		cfg.HandledAccessNet = 0
	}
	if s.Network {
		// Abstract UNIX sockets follow the network; signals to processes
		// outside the sandbox stay forbidden.
		cfg.Scoped &= llsyscall.ScopeSignal
	}
	handled := uint64(cfg.HandledAccessFS)
	rules := []landlock.Rule{landlock.RODirs("/")}
	if s.Network && handled&llsyscall.AccessFSResolveUnix != 0 {
		rules = append(rules, landlock.PathAccess(llsyscall.AccessFSResolveUnix, "/"))
	}
	rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(fsDeviceRights&handled), DevicePaths...).IgnoreIfMissing())
	ruleset, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if ruleset < 0 {
		return errors.New("nothing to restrict")
	}
	defer syscall.Close(ruleset)
	w := writeRules{ruleset: ruleset, access: fsWriteRights & handled}
	if !s.MountNS {
		w.protected = s.Protected
	}
	for _, root := range append(s.Roots, s.covered...) {
		if err := w.add(root); err != nil {
			return err
		}
	}
	if err := llsyscall.LandlockRestrictSelf(ruleset, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// writeRules adds the write rules of the writable roots to a ruleset.
type writeRules struct {
	ruleset   int
	access    uint64
	protected []string // to leave out by carving (no mount namespace)
}

// add grants write access to path and everything under it, except the
// protected paths. Landlock rules only add access, and a right granted on
// a directory holds for everything beneath it, so a directory above a
// protected path gets no right of its own: each of its entries gets one
// instead (recursively for those leading to a protected path), and no new
// entries can be created in it.
func (w writeRules) add(path string) error {
	for _, pr := range w.protected {
		if Within(pr, path) {
			return nil // protected itself
		}
	}
	carve := false
	for _, pr := range w.protected {
		if Within(path, pr) {
			carve = true
			break
		}
	}
	if !carve {
		err := w.grant(path)
		if errors.Is(err, syscall.ENOENT) {
			return nil
		}
		return err
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return nil
		}
		return fmt.Errorf("listing %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err != nil || real != path {
		return fmt.Errorf("%s now resolves to %q", path, real)
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("listing %s: %w", path, err)
	}
	for _, name := range names {
		child := strings.TrimSuffix(path, "/") + "/" + name // path is absolute and clean
		if fi, err := os.Lstat(child); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			// Gone, or a link: writes through a link are decided
			// where it points.
			continue
		}
		if err := w.add(child); err != nil {
			return err
		}
	}
	return nil
}

// grant adds a rule giving the write rights on path (a directory, or the
// file rights on a file).
func (w writeRules) grant(path string) error {
	fd, st, err := openExact(path)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	access := w.access
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= fsFileRights
	}
	if access == 0 {
		return nil
	}
	attr := llsyscall.PathBeneathAttr{ParentFd: fd, AllowedAccess: access}
	if err := llsyscall.LandlockAddPathBeneathRule(w.ruleset, &attr, 0); err != nil {
		return fmt.Errorf("adding a rule for %s: %w", path, err)
	}
	return nil
}

// mountProc mounts a /proc of the new PID namespace over the host's, so that
// /proc/self and the process list agree with getpid (ps needs it). Best
// effort: where the host's /proc has parts masked (in some containers) the
// kernel refuses, and the host's stays.
func mountProc(readOnly bool) {
	flags := uintptr(syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC)
	if readOnly {
		flags |= syscall.MS_RDONLY
	}
	_ = syscall.Mount("proc", "/proc", "proc", flags, "")
}
