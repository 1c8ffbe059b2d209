//go:build linux

package confine

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// offArg2 is the offset of the low 32 bits of the third argument in struct
// seccomp_data (little-endian).
const offArg2 = 32

// i386 system calls a 32-bit program on x86-64 could create a socket with.
const (
	i386SocketCall = 102
	i386Socket     = 359
	i386Socketpair = 360
)

// sockFlags are the flags socket(2) and socketpair(2) accept in their type
// argument besides the type; the filter clears them and compares the rest
// whole, so a type with any other bit set is refused (the kernel would
// refuse it too, with EINVAL).
const sockFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC

// errSocket is what a refused socket(2) or socketpair(2) fails with when
// the network is off: EACCES, as for the other accesses the sandbox
// refuses.
const errSocket = syscall.EACCES

// AllowedSocket is one kind of socket the filter of SocketFilter lets a
// command create with the network off: a family, a type (without
// SOCK_NONBLOCK and SOCK_CLOEXEC, which are always allowed) and the
// protocols allowed with them.
type AllowedSocket struct {
	Family, Type int
	Protocols    []int
}

// AllowedSockets are the sockets socket(2) may create with the network
// off, inside the sandbox's empty network namespace, where they reach
// nothing but its own loopback interface: TCP (with Multipath TCP, which
// Go's listeners use) and UDP over IPv4 and IPv6, ICMP datagram sockets
// (ping), and route netlink sockets (`ip`, getifaddrs(3), Go's
// net.Interfaces), which read and set the namespace's own interfaces. No
// UNIX socket: socket(2) with AF_UNIX is refused whatever its type.
// Everything else is refused too — other protocols of these families
// (SCTP, DCCP, whose first use may load kernel modules), raw sockets,
// other netlink protocols, and every other family, among them AF_VSOCK
// (which reaches the hypervisor's host whatever the network namespace),
// AF_PACKET, AF_ALG and families the filter does not know.
var AllowedSockets = []AllowedSocket{
	{unix.AF_INET, unix.SOCK_STREAM, []int{0, unix.IPPROTO_TCP, unix.IPPROTO_MPTCP}},
	{unix.AF_INET, unix.SOCK_DGRAM, []int{0, unix.IPPROTO_UDP, unix.IPPROTO_ICMP}},
	{unix.AF_INET6, unix.SOCK_STREAM, []int{0, unix.IPPROTO_TCP, unix.IPPROTO_MPTCP}},
	{unix.AF_INET6, unix.SOCK_DGRAM, []int{0, unix.IPPROTO_UDP, unix.IPPROTO_ICMPV6}},
	{unix.AF_NETLINK, unix.SOCK_RAW, []int{unix.NETLINK_ROUTE}},
	{unix.AF_NETLINK, unix.SOCK_DGRAM, []int{unix.NETLINK_ROUTE}},
}

// AllowedSocketpair is the only socketpair(2) allowed with the network off:
// a connected pair of UNIX stream sockets (pipes between a program's own
// processes), with or without SOCK_NONBLOCK and SOCK_CLOEXEC. A datagram
// socket, even one of a pair, can be connected again to any address, and
// so can SOCK_RAW, which the kernel turns into a datagram socket.
var AllowedSocketpair = AllowedSocket{unix.AF_UNIX, unix.SOCK_STREAM, nil}

// UnixSocketFilter returns the seccomp program applied with the network
// off. It is an allow-list: socket(2) succeeds only for AllowedSockets,
// socketpair(2) only for AllowedSocketpair; every other family, type or
// protocol fails with EACCES, so a UNIX socket can be neither created nor
// connected to an address outside the sandbox. io_uring, which could
// create and connect sockets without these system calls, fails with ENOSYS
// (programs fall back to ordinary system calls). On x86-64, every x32
// system call and 32-bit socketcall(2) (whose arguments are in memory) are
// refused too, 32-bit socket(2) and socketpair(2) checked like the native
// ones; system calls of other architectures fail with ENOSYS. Every other
// system call is allowed. The filter looks only at system call numbers and
// integer arguments (their low 32 bits, which is what the kernel reads of
// an int), never at memory, so there is nothing for a command to change
// between the check and the call.
func UnixSocketFilter() ([]unix.SockFilter, error) { return socketFilter(AllowedSockets) }

// socketFilter is UnixSocketFilter with allowed as its socket(2)
// allow-list.
func socketFilter(allowed []AllowedSocket) ([]unix.SockFilter, error) {
	var a bpfAsm
	arch, err := a.prologue()
	if err != nil {
		return nil, err
	}
	a.syscalls(unix.SYS_SOCKET, unix.SYS_SOCKETPAIR)

	if arch == unix.AUDIT_ARCH_X86_64 {
		a.label("i386")
		a.load(offNr)
		// socketcall(2) cannot be checked: its arguments are in memory.
		a.jumpEq(i386SocketCall, "eacces", "")
		a.syscalls(i386Socket, i386Socketpair)
	}

	// socket(2): the family, then the type, then the protocol.
	a.label("socket")
	a.load(offArg0)
	var families []int
	for _, s := range allowed {
		if !slices.Contains(families, s.Family) {
			families = append(families, s.Family)
			a.jumpEq(uint32(s.Family), fmt.Sprintf("family%d", s.Family), "")
		}
	}
	a.jump("eacces")
	for _, fam := range families {
		a.label(fmt.Sprintf("family%d", fam))
		a.loadType()
		for _, s := range allowed {
			if s.Family == fam {
				a.jumpEq(uint32(s.Type), fmt.Sprintf("family%d-type%d", fam, s.Type), "")
			}
		}
		a.jump("eacces")
		for _, s := range allowed {
			if s.Family != fam {
				continue
			}
			a.label(fmt.Sprintf("family%d-type%d", fam, s.Type))
			a.load(offArg2)
			for _, p := range s.Protocols {
				a.jumpEq(uint32(p), "allow", "")
			}
			a.jump("eacces")
		}
	}

	// socketpair(2): the family and the type; the protocol is the
	// family's own either way.
	a.label("socketpair")
	a.load(offArg0)
	a.jumpEq(uint32(AllowedSocketpair.Family), "", "eacces")
	a.loadType()
	a.jumpEq(uint32(AllowedSocketpair.Type), "allow", "eacces")

	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("eacces")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(errSocket))
	a.label("enosys")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(syscall.ENOSYS))
	return a.assemble()
}

// prologue starts a filter for this architecture: its system calls go on
// to label "native" with the number loaded (x32 ones, which share the
// x86-64 architecture, to "enosys"), those of 32-bit x86 programs to
// "i386", any other architecture's to "enosys". It returns the native
// audit architecture.
func (a *bpfAsm) prologue() (uint32, error) {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return 0, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	a.load(offArch)
	a.jumpEq(arch, "native", "")
	if arch == unix.AUDIT_ARCH_X86_64 {
		a.jumpEq(unix.AUDIT_ARCH_I386, "i386", "enosys")
	} else {
		a.jump("enosys")
	}
	a.label("native")
	a.load(offNr)
	if arch == unix.AUDIT_ARCH_X86_64 {
		// x32 system calls share the architecture: refuse them all.
		a.jumpGE(x32SyscallBit, "enosys", "")
	}
	return arch, nil
}

// syscalls adds the checks of one system call table, the number loaded:
// socket and socketpair go to their checks, io_uring's calls (numbered
// alike in every table) are refused, everything else is allowed.
func (a *bpfAsm) syscalls(socket, socketpair uint32) {
	a.jumpEq(socket, "socket", "")
	a.jumpEq(socketpair, "socketpair", "")
	a.jumpGE(unix.SYS_IO_URING_SETUP, "", "allow")
	a.jumpGE(unix.SYS_IO_URING_REGISTER+1, "allow", "enosys")
}

// bpfAsm assembles a classic BPF program whose jumps name labels, so that
// no offset is counted by hand.
type bpfAsm struct {
	insns  []bpfInsn
	labels map[string]int
}

// bpfInsn is an instruction with the labels its jumps go to ("" is the
// next instruction).
type bpfInsn struct {
	f      unix.SockFilter
	jt, jf string
	always bool // an unconditional jump to jt
}

func (a *bpfAsm) add(i bpfInsn) { a.insns = append(a.insns, i) }

// label names the next instruction.
func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.insns)
}

func (a *bpfAsm) load(off uint32) { a.add(bpfInsn{f: stmt(bpfLoadAbs, off)}) }

// loadType loads the second argument without sockFlags.
func (a *bpfAsm) loadType() {
	a.load(offArg1)
	a.add(bpfInsn{f: stmt(bpfAnd, ^uint32(sockFlags))})
}

func (a *bpfAsm) jumpEq(k uint32, jt, jf string) {
	a.add(bpfInsn{f: unix.SockFilter{Code: bpfJumpEq, K: k}, jt: jt, jf: jf})
}

func (a *bpfAsm) jumpGE(k uint32, jt, jf string) {
	a.add(bpfInsn{f: unix.SockFilter{Code: bpfJumpGE, K: k}, jt: jt, jf: jf})
}

func (a *bpfAsm) jump(to string) {
	a.add(bpfInsn{f: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JA}, jt: to, always: true})
}

func (a *bpfAsm) ret(k uint32) { a.add(bpfInsn{f: stmt(bpfReturn, k)}) }

// assemble resolves the labels. A conditional jump reaches at most 255
// instructions ahead, an unconditional one further; jumps go forward only.
func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	out := make([]unix.SockFilter, len(a.insns))
	offset := func(i int, to string, max int) (int, error) {
		if to == "" {
			return 0, nil
		}
		t, ok := a.labels[to]
		if !ok {
			return 0, fmt.Errorf("seccomp filter: no label %q", to)
		}
		d := t - i - 1
		if d < 0 || d > max {
			return 0, fmt.Errorf("seccomp filter: jump to %q out of reach (%d)", to, d)
		}
		return d, nil
	}
	for i, in := range a.insns {
		f := in.f
		if in.always {
			d, err := offset(i, in.jt, 1<<31)
			if err != nil {
				return nil, err
			}
			f.K = uint32(d)
		} else if f.Code&0x07 == unix.BPF_JMP {
			jt, err := offset(i, in.jt, 255)
			if err != nil {
				return nil, err
			}
			jf, err := offset(i, in.jf, 255)
			if err != nil {
				return nil, err
			}
			f.Jt, f.Jf = uint8(jt), uint8(jf)
		}
		out[i] = f
	}
	if len(out) > unix.BPF_MAXINSNS {
		return nil, fmt.Errorf("seccomp filter: %d instructions", len(out))
	}
	return out, nil
}
