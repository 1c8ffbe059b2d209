//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/wardenhq/warden/internal/observe"
	"golang.org/x/sys/unix"
)

// The helper's side of an observed (traced) command: a dry run's
// (SPEC G17). The observer's side, and why this mechanism, are in package
// internal/observe. Here:
//
//   - the socket allow-list gains UNIX stream and seqpacket sockets
//     (TracedSockets), so that a connect(2) to docker.sock or an agent's
//     socket happens, is seen and is refused by the observer; UNIX
//     datagram sockets stay refused, so that no socket the command can
//     hold reaches outside the namespace by sendto(2)/sendmsg(2) whatever
//     address it names (see observe's package doc);
//   - the resolver's sockets are made in the network namespace, and a
//     resolver file naming them is bound over /etc/resolv.conf (a bind,
//     so the dry run's view records no write);
//   - right before the command's execution, the filter of TraceFilter is
//     installed with a notification descriptor, which goes to the
//     observer: the command's own execve(2) is the first it is told of.
//
// The helper closes its end of the socket before the command runs.

// tracer is what the helper keeps of the tracing while it sets up.
type tracer struct {
	conn       int // the socket to the observer (Spec.TraceFD)
	resolvConf int // O_PATH descriptor of the resolver file
}

// traceOpen checks the tracing's preconditions and opens what it needs
// before any mount covers it; nil when the command is not traced.
func (s Spec) traceOpen() (*tracer, error) {
	if s.TraceFD == 0 {
		return nil, nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(s.TraceFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return nil, fmt.Errorf("tracing: no socket to the observer as descriptor %d", s.TraceFD)
	}
	syscall.CloseOnExec(s.TraceFD)
	// The filter's promise (no socket reaches outside whatever its
	// address) holds only in a network namespace of the command's own
	// with the UNIX socket allow-list.
	if s.Network || s.NetNS == "" || !s.NoUnix || !s.MountNS {
		return nil, errors.New("tracing needs the network off, in namespaces of the command's own")
	}
	fd, err := syscall.Open(s.ResolvConf, unix.O_PATH|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("tracing: the resolver file: %w", err)
	}
	return &tracer{conn: s.TraceFD, resolvConf: fd}, nil
}

// prepare binds the resolver file over /etc/resolv.conf, makes the
// resolver's sockets in this network namespace (the loopback interface
// up) and sends them to the observer. It runs with the helper's
// capabilities, after the mounts of the view.
func (t *tracer) prepare() error {
	defer syscall.Close(t.resolvConf)
	target := "/etc/resolv.conf"
	if real, err := resolveLink(target); err == nil {
		target = real
	}
	// Read-only: the file is the observer's, outside the view.
	src := "/proc/self/fd/" + strconv.Itoa(t.resolvConf)
	if err := syscall.Mount(src, target, "", syscall.MS_BIND, ""); err != nil {
		if !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("tracing: binding the resolver file over %s: %w", target, err)
		}
	} else if err := syscall.Mount("none", target, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("tracing: the resolver file read-only: %w", err)
	}
	var fds []int
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for _, a := range observe.ResolverAddrs {
		for _, typ := range []int{syscall.SOCK_DGRAM, syscall.SOCK_STREAM} {
			fd, err := resolverSocket(a, typ)
			if err != nil {
				return fmt.Errorf("tracing: the resolver's socket on %d.%d.%d.%d:%d: %w", a[0], a[1], a[2], a[3], observe.ResolverPort, err)
			}
			fds = append(fds, fd)
		}
	}
	return sendTagged(t.conn, observe.TagResolver, fds...)
}

// resolveLink resolves the links of path, an absolute path.
func resolveLink(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return path, err
	}
	fd, err := syscall.Open(path, unix.O_PATH|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(fd)
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
}

// resolverSocket makes a socket of type typ bound to addr on the
// resolver's port (a listening one for TCP).
func resolverSocket(addr [4]byte, typ int) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, typ|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	sa := &syscall.SockaddrInet4{Port: observe.ResolverPort, Addr: addr}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	err = syscall.Bind(fd, sa)
	if errors.Is(err, syscall.EACCES) {
		// No CAP_NET_BIND_SERVICE (an unprivileged user's helper):
		// low ports become everyone's in this network namespace only.
		if werr := os.WriteFile("/proc/sys/net/ipv4/ip_unprivileged_port_start", []byte("53\n"), 0); werr == nil {
			err = syscall.Bind(fd, sa)
		}
	}
	if err == nil && typ == syscall.SOCK_STREAM {
		err = syscall.Listen(fd, 16)
	}
	if err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// sendTagged sends one tag byte with fds attached over conn.
func sendTagged(conn int, tag byte, fds ...int) error {
	for {
		err := syscall.Sendmsg(conn, []byte{tag}, syscall.UnixRights(fds...), nil, 0)
		if err != syscall.EINTR {
			return err
		}
	}
}

// TracedSockets are the sockets a traced command may create: those of
// AllowedSockets, and UNIX stream and seqpacket sockets, whose connect(2)
// the observer refuses (and records). A UNIX datagram socket could send
// to any path without connecting: still refused.
var TracedSockets = append(append([]AllowedSocket{}, AllowedSockets...),
	AllowedSocket{unix.AF_UNIX, unix.SOCK_STREAM, []int{0, unix.AF_UNIX}},
	AllowedSocket{unix.AF_UNIX, unix.SOCK_SEQPACKET, []int{0, unix.AF_UNIX}},
)

// socketFilter is the socket allow-list filter for s: UnixSocketFilter,
// or its variant with TracedSockets for a traced command.
func (s Spec) socketFilter() ([]unix.SockFilter, error) {
	if s.TraceFD != 0 {
		return socketFilter(TracedSockets)
	}
	return UnixSocketFilter()
}

// System call numbers of 32-bit x86 programs the trace filter notifies.
const (
	i386Execve   = 11
	i386Execveat = 358
	i386Connect  = 362
	i386Sendto   = 369
	i386Sendmsg  = 370
	i386Sendmmsg = 345
)

// offArg4Lo and offArg4Hi are the offsets of the two halves of the fifth
// argument in struct seccomp_data (sendto's destination address).
const (
	offArg4Lo = 48
	offArg4Hi = 52
)

// TraceFilter returns the seccomp program of a traced command: execve(2),
// execveat(2), connect(2), sendmsg(2), sendmmsg(2) and sendto(2) with a
// destination address (not NULL) go to the observer
// (SECCOMP_RET_USER_NOTIF), natively and for 32-bit x86 programs; x32 and
// foreign architectures fail with ENOSYS, as in UnixSocketFilter (which
// stays installed: the stricter answer of two filters wins). Everything
// else is allowed. Like the other filters it reads only numbers, never
// memory: the observer reads the arguments.
func TraceFilter() ([]unix.SockFilter, error) {
	var a bpfAsm
	arch, err := a.prologue()
	if err != nil {
		return nil, err
	}
	for _, nr := range []uint32{unix.SYS_EXECVE, unix.SYS_EXECVEAT, unix.SYS_CONNECT, unix.SYS_SENDMSG, unix.SYS_SENDMMSG} {
		a.jumpEq(nr, "notify", "")
	}
	a.jumpEq(unix.SYS_SENDTO, "sendto", "allow")
	if arch == unix.AUDIT_ARCH_X86_64 {
		a.label("i386")
		a.load(offNr)
		for _, nr := range []uint32{i386Execve, i386Execveat, i386Connect, i386Sendmsg, i386Sendmmsg} {
			a.jumpEq(nr, "notify", "")
		}
		a.jumpEq(i386Sendto, "sendto", "allow")
	}
	// sendto(2) with a NULL address sends to the connected peer: no
	// destination to record.
	a.label("sendto")
	a.load(offArg4Lo)
	a.jumpEq(0, "", "notify")
	a.load(offArg4Hi)
	a.jumpEq(0, "allow", "notify")
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("notify")
	a.ret(unix.SECCOMP_RET_USER_NOTIF)
	a.label("enosys")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(syscall.ENOSYS))
	return a.assemble()
}

// seccompFilterFlagWaitKillableRecv makes a notified thread ignore
// non-fatal signals once the observer has received the notification
// (Linux 5.19), so that a Go program's preemption signals do not restart
// (and repeat) its notified system calls.
const seccompFilterFlagWaitKillableRecv = 0x20

// installListener applies prog to this thread, which has no_new_privs set,
// and returns the descriptor of its notifications.
func installListener(prog []unix.SockFilter) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	var fd uintptr
	var e syscall.Errno
	for _, flags := range []uintptr{unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | seccompFilterFlagWaitKillableRecv, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER} {
		fd, _, e = syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		if e != syscall.EINVAL {
			break
		}
	}
	runtime.KeepAlive(prog)
	if e != 0 {
		return -1, fmt.Errorf("seccomp (user notification): %w", e)
	}
	return int(fd), nil
}

// traceExec installs the trace filter on this thread, the one that
// executes the command, right before it does, and hands the notification
// descriptor to the observer over conn, which it then closes. The sending
// is done from another thread: this one's sendmsg(2) is notified now, and
// the observer is not listening yet.
func traceExec(conn int) error {
	prog, err := TraceFilter()
	if err != nil {
		return err
	}
	fd, err := installListener(prog)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- sendTagged(conn, observe.TagListener, fd) }()
	err = <-done
	syscall.Close(fd)
	syscall.Close(conn)
	if err != nil {
		return fmt.Errorf("tracing: handing the notifications to the observer: %w", err)
	}
	return nil
}
