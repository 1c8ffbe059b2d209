//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// maxABI is the newest Landlock ABI go-landlock knows.
const maxABI = 11

// spec is what the parent hands the helper (see package confine).
type spec = confine.Spec

// unsupportedText is what ErrUnsupported says here.
const unsupportedText = "not supported by this kernel"

// supported is Supported on Linux: the Landlock ABI, probed once.
func supported() (int, error) { return abiOnce() }

var abiOnce = sync.OnceValues(func() (int, error) {
	v, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return 0, fmt.Errorf("sandbox: Landlock is unavailable (the kernel lacks it, or it is not enabled at boot: lsm=...,landlock): %w", err)
	}
	if v >= 6 {
		// As go-landlock does: without the fix for the signal scoping
		// erratum, use ABI 5.
		if errata, err := llsyscall.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return min(v, maxABI), nil
})

// namespaceIDs names this process's user and network namespaces.
var namespaceIDs = sync.OnceValues(func() (string, string) {
	u, _ := os.Readlink("/proc/self/ns/user")
	n, _ := os.Readlink("/proc/self/ns/net")
	return u, n
})

// namespaces is userNamespaces.
func namespaces() error { return userNamespaces() }

// userNamespaces reports whether commands can be started in new user,
// mount, PID and network namespaces in which the helper may bind mounts and
// configure the loopback interface (see probes).
var userNamespaces = func() error { err, _ := probes(); return err }

// viewProbe reports whether the helper can also make the read-only view of
// the file system (mount_setattr(2), open_tree(2): Linux 5.12).
var viewProbe = func() error { _, err := probes(); return err }

// probes starts the helper in probe mode and remembers the outcome: first
// with the read-only view, whose success says both that namespaces work
// and that the view does, so that the usual case costs one helper start;
// only when that fails, again without the view, to tell which of the two
// is missing. A success is also remembered on disk (see probeKey), so that
// a one-shot `warden exec` does not pay for the probe on every call.
var probes = sync.OnceValues(func() (nsErr, viewErr error) {
	return cachedProbes(probeCachePath(), probeKey(), probe)
})

// probe starts the helper in probe mode in new namespaces, with the
// read-only view or without.
func probe(view bool) error {
	user, net := namespaceIDs()
	if user == "" || net == "" {
		return errors.New("/proc/self/ns is not readable")
	}
	s := spec{Probe: true, UserNS: user, NetNS: net, MountNS: true, View: view, PIDNS: true}
	if view {
		s.Roots = []string{resolvedOr(os.TempDir())}
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if err := addNamespaces(cmd, cmd.SysProcAttr, &s, true, true, true); err != nil {
		return err
	}
	cmd.Args = append([]string{confine.Arg0}, s.Args()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// viewSupported reports whether sandboxed commands see a read-only view of
// the file system outside their writable roots (nil), so that metadata
// (modes, times, extended attributes) cannot change there either, or why
// not (no namespaces, or a kernel before Linux 5.12: Landlock alone then
// keeps contents, not metadata).
func viewSupported() error { return viewProbe() }

// wrap is Wrap on Linux, with found the protected names a walk of the
// roots found already (nil to walk them).
func (p Policy) wrap(cmd *exec.Cmd, found map[string]fileKey) error {
	if enforced, err := p.enforced(); !enforced || err != nil {
		return err
	}
	if err := unstarted(cmd); err != nil {
		return err
	}
	s, err := p.spec(found)
	if err != nil {
		return err
	}
	sys, err := procAttr(cmd, "sandboxed")
	if sys == nil || err != nil {
		return err
	}
	if s.UserNS != "" {
		if sys.Chroot != "" || sys.Credential != nil || sys.UidMappings != nil || sys.GidMappings != nil ||
			sys.Cloneflags&syscall.CLONE_NEWUSER != 0 || sys.Unshareflags != 0 {
			return errors.New("sandbox: SysProcAttr sets Chroot, Credential, ID mappings or namespaces, which the sandbox sets itself")
		}
		if err := addNamespaces(cmd, sys, &s, s.MountNS, s.NetNS != "", s.PIDNS); err != nil {
			return err
		}
	}
	s.Path = programPath(cmd.Path, s.Temps)
	reexec(cmd, s, sys)
	return nil
}

// spec works out how the policy is enforced here; found is as for wrap.
func (p Policy) spec(found map[string]fileKey) (spec, error) {
	s := spec{Mode: string(p.Mode), Network: p.NetworkAccess}
	abi, abiErr := Supported()
	if abi == 0 && !p.Unenforced {
		return s, fmt.Errorf("sandbox: %s mode cannot be enforced: %w; to run commands without kernel enforcement, accept it explicitly (warden: --sandbox-unenforced)", p.Mode, abiErr)
	}
	s.Landlock = abi
	if !p.NetworkAccess {
		if err := seccompAvailable(); err != nil {
			if !p.Unenforced {
				return s, fmt.Errorf("%w; UNIX sockets cannot be refused with the network off (to run anyway, accept it: warden: --sandbox-unenforced)", err)
			}
		} else {
			s.NoUnix = true
		}
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return s, fmt.Errorf("sandbox: cannot re-execute this program: %w", err)
	}
	if p.Mode == WorkspaceWrite {
		s.Roots = p.resolvedRoots()
		if err := ensureState(s.Roots); err != nil {
			return s, err
		}
		protected, err := protectedPaths(s.Roots)
		if err != nil {
			return s, err
		}
		nested, err := p.nestedProtected(found)
		if err != nil {
			return s, err
		}
		for _, pr := range append(protected, nested...) {
			// Links are protected through their targets, also listed;
			// missing paths cannot be bound.
			if fi, err := os.Lstat(pr); err == nil && fi.Mode()&fs.ModeSymlink == 0 && !slices.Contains(s.Protected, pr) {
				s.Protected = append(s.Protected, pr)
			}
		}
	}
	if nsErr := userNamespaces(); nsErr == nil {
		s.UserNS, s.NetNS = namespaceIDs()
		if p.NetworkAccess {
			s.NetNS = ""
		}
		s.MountNS, s.PIDNS = true, true
		s.View = viewProbe() == nil
		s.Dev = confine.DevMinimal
		s.Hidden = hiddenPaths(s.Roots)
		if p.Mode == WorkspaceWrite {
			// Without a mount namespace there are none: the
			// temporary directories are not writable then.
			var err error
			if s.Temps, err = p.tempCovers(s.Roots); err != nil {
				return s, err
			}
		}
	} else if !p.NetworkAccess && abi < 4 && !p.Unenforced {
		return s, fmt.Errorf("sandbox: turning the network off needs user namespaces (%v) or Landlock ABI 4 (have %d): %w", nsErr, abi, ErrUnsupported)
	}
	return s, nil
}

// addNamespaces sets up a new user namespace in sys, cmd's SysProcAttr
// (or its copy, assigned later), with new mount and network namespaces
// when mount and net are set, for the helper that s describes. IDs map to
// themselves: for root all IDs this process has, written by this process
// when the helper asks (s.ParentMaps: see serveRootMaps, which adds cmd's
// only extra file); otherwise only its own, written by the helper itself
// (s.IDMap). Either way the helper starts without maps, so it keeps the
// capabilities it needs across its execution as ambient ones.
//
// Why the parent does not write the maps through os/exec
// (SysProcAttr.UidMappings): the child would then wait for them before it
// executes, so Go could not start it the way it starts other commands
// (vfork(2) semantics: the child borrows this process's memory until it
// executes) and would copy the whole process instead, page tables and
// all, leaving every page of its memory copy-on-write. That cost grows
// with the memory this process uses (about 30 ms for a 500 MB heap,
// against under a millisecond). So the child starts with CLONE_VFORK and
// CLONE_VM, executes at once, and the maps are written afterwards: a
// single identity map of one's own IDs needs no privilege in the parent
// namespace, so the helper writes it before anything else; root's map of
// every ID needs CAP_SETUID in this namespace, which the helper does not
// have there, so this process writes it on the helper's request.
func addNamespaces(cmd *exec.Cmd, sys *syscall.SysProcAttr, s *spec, mount, net, pid bool) error {
	sys.Cloneflags |= syscall.CLONE_NEWUSER
	if pid {
		sys.Cloneflags |= syscall.CLONE_NEWPID
	}
	if mount {
		sys.Cloneflags |= syscall.CLONE_NEWNS
	}
	if net {
		sys.Cloneflags |= syscall.CLONE_NEWNET
	}
	sys.Cloneflags |= syscall.CLONE_VFORK | syscall.CLONE_VM
	uid, gid := os.Geteuid(), os.Getegid()
	if uid == 0 {
		m, err := rootMaps()
		if err != nil {
			return err
		}
		// Every capability, which root's execution with its maps in
		// place would have made effective.
		sys.AmbientCaps = append(sys.AmbientCaps, allCaps()...)
		s.ParentMaps = true
		return serveRootMaps(cmd, m)
	}
	s.IDMap = strconv.Itoa(uid) + ":" + strconv.Itoa(gid)
	// Writing the ID maps, bringing up the loopback interface, bind
	// mounts, limiting nested user namespaces.
	const capNetAdmin, capSysAdmin, capSysResource = 12, 21, 24
	sys.AmbientCaps = append(sys.AmbientCaps, capNetAdmin, capSysAdmin, capSysResource)
	return nil
}

// idMaps are the identity ID mappings of this process's user namespace.
type idMaps struct{ uid, gid []syscall.SysProcIDMap }

// rootMaps returns the identity mappings of every user and group ID of
// this process's user namespace, read once per process: a user namespace's
// ID maps can be written only once, and a multithreaded process (every Go
// program) cannot move to another user namespace, so they never change
// while it runs (a memo of a kernel fact, not of the file system or the
// policy).
var rootMaps = sync.OnceValues(func() (idMaps, error) {
	u, err := identityMap("/proc/self/uid_map")
	if err != nil {
		return idMaps{}, err
	}
	g, err := identityMap("/proc/self/gid_map")
	if err != nil {
		return idMaps{}, err
	}
	return idMaps{u, g}, nil
})

// identityMap maps every ID of this process's user namespace, as listed in
// file (/proc/self/uid_map or gid_map), to itself.
func identityMap(file string) ([]syscall.SysProcIDMap, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	m, err := confine.ParseIdentityMap(file, string(data))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return m, nil
}

// containProbe reports whether this process can start commands in PID
// namespaces of their own without a user namespace (it has CAP_SYS_ADMIN:
// warden runs as root), by starting the helper once.
var containProbe = sync.OnceValue(func() error {
	s := spec{Probe: true, Contain: true, PIDNS: true}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = append([]string{confine.Arg0}, s.Args()...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sandbox: no PID namespaces without a user namespace (%w: %s): %w", err, strings.TrimSpace(string(out)), ErrUnsupported)
	}
	return nil
})

// contain is Contain on Linux.
func contain(cmd *exec.Cmd) error {
	if err := unstarted(cmd); err != nil {
		return err
	}
	sys, err := procAttr(cmd, "contained")
	if sys == nil || err != nil {
		return err
	}
	if err := containProbe(); err != nil {
		return err
	}
	if sys.Cloneflags != 0 || sys.Unshareflags != 0 {
		return errors.New("sandbox: SysProcAttr sets namespaces, which Contain sets itself")
	}
	sys.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	reexec(cmd, spec{Contain: true, PIDNS: true, Mode: string(FullAccess), Path: cmd.Path}, sys)
	return nil
}

// unstarted reports, as an error, a command that has started already or
// that runs the helper already (sandboxed, covered or contained).
func unstarted(cmd *exec.Cmd) error {
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	if len(cmd.Args) > 0 && cmd.Args[0] == confine.Arg0 {
		return errors.New("sandbox: the command is already sandboxed")
	}
	return nil
}

// procAttr checks that cmd can start through the helper (how names how it
// would run: sandboxed, covered, contained) and returns a copy of its
// SysProcAttr for the caller to extend, the caller's value left alone. It
// returns nil and no error when cmd.Err is set: such a command only reports
// its error when started, and is left as it is.
func procAttr(cmd *exec.Cmd, how string) (*syscall.SysProcAttr, error) {
	if cmd.Err != nil {
		return nil, nil
	}
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: ExtraFiles are not passed to " + how + " commands")
	}
	sys := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		*sys = *cmd.SysProcAttr
	}
	return sys, nil
}

// reexec makes cmd start the helper (this program, re-executed) with the
// spec s and the attributes sys; the helper then runs cmd's program (s.Path)
// with cmd's arguments.
func reexec(cmd *exec.Cmd, s spec, sys *syscall.SysProcAttr) {
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	cmd.Path = "/proc/self/exe"
	cmd.Args = append(append([]string{confine.Arg0}, s.Args()...), argv...)
	cmd.SysProcAttr = sys
}
