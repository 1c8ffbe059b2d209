//go:build linux

package confine

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Classic BPF instructions used by the seccomp filter.
const (
	bpfLoadAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJumpEq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJumpGE  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfReturn  = unix.BPF_RET | unix.BPF_K
	bpfAnd     = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
)

// sockTypeMask keeps the socket type of socket(2)'s type argument, without
// SOCK_CLOEXEC and SOCK_NONBLOCK.
const sockTypeMask = 0xf

// Offsets in struct seccomp_data: the system call number, the audit
// architecture and the low 32 bits of the first argument (little-endian
// architectures only, which are the ones the filter is built for).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// i386 system calls a 32-bit program on x86-64 could create a socket with.
const (
	i386SocketCall = 102
	i386Socket     = 359
	i386Socketpair = 360
)

// x32SyscallBit marks system calls of the x32 ABI on x86-64.
const x32SyscallBit = 0x40000000

// errUnixSocket is what socket(AF_UNIX, ...) fails with when the network is
// off: EACCES, as for the other accesses the sandbox refuses.
const errUnixSocket = syscall.EACCES

// UnixSocketFilter returns the seccomp program applied with the network
// off: socket(AF_UNIX, ...) and socketpair(..., SOCK_DGRAM, ...) fail with
// EACCES (a datagram socket, even one of a pair, can be connected again to
// any address), and io_uring, which could create and connect sockets
// without these system calls, fails with ENOSYS (programs fall back to
// ordinary system calls). Stream and seqpacket socketpair(2) keep working.
// Every other system call is allowed. The filter looks only at system call
// numbers and integer arguments, never at memory, so there is nothing for
// a command to change between the check and the call.
func UnixSocketFilter() ([]unix.SockFilter, error) {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	native := socketRules(unix.SYS_SOCKET, unix.SYS_SOCKETPAIR)
	if arch == unix.AUDIT_ARCH_X86_64 {
		// x32 system calls share the architecture: refuse them all.
		native = append([]unix.SockFilter{
			stmt(bpfLoadAbs, offNr),
			jump(bpfJumpGE, x32SyscallBit, 0, 1),
			retErrno(syscall.ENOSYS),
		}, native...)
	}
	foreign := []unix.SockFilter{retErrno(syscall.ENOSYS)}
	if arch == unix.AUDIT_ARCH_X86_64 {
		// 32-bit programs: socketcall(2) cannot be checked (its
		// arguments are in memory), so it is refused altogether.
		foreign = append([]unix.SockFilter{
			jump(bpfJumpEq, unix.AUDIT_ARCH_I386, 1, 0),
			retErrno(syscall.ENOSYS),
			stmt(bpfLoadAbs, offNr),
			jump(bpfJumpEq, i386SocketCall, 0, 1),
			retErrno(errUnixSocket),
		}, socketRules(i386Socket, i386Socketpair)...)
	}
	prog := []unix.SockFilter{
		stmt(bpfLoadAbs, offArch),
		jump(bpfJumpEq, arch, 0, uint8(len(native))),
	}
	prog = append(prog, native...)
	return append(prog, foreign...), nil
}

// socketRules returns the filter's rules for one system call table, given
// its numbers of socket(2) and socketpair(2); io_uring's are the same in
// every table.
func socketRules(socket, socketpair uint32) []unix.SockFilter {
	return []unix.SockFilter{
		stmt(bpfLoadAbs, offNr),
		jump(bpfJumpGE, unix.SYS_IO_URING_SETUP, 0, 2),
		jump(bpfJumpGE, unix.SYS_IO_URING_REGISTER+1, 1, 0),
		retErrno(syscall.ENOSYS),
		jump(bpfJumpEq, socket, 0, 4),
		stmt(bpfLoadAbs, offArg0),
		jump(bpfJumpEq, unix.AF_UNIX, 0, 1),
		retErrno(errUnixSocket),
		stmt(bpfReturn, unix.SECCOMP_RET_ALLOW),
		jump(bpfJumpEq, socketpair, 0, 4),
		stmt(bpfLoadAbs, offArg1),
		stmt(bpfAnd, sockTypeMask),
		jump(bpfJumpEq, unix.SOCK_DGRAM, 0, 1),
		retErrno(errUnixSocket),
		stmt(bpfReturn, unix.SECCOMP_RET_ALLOW),
	}
}

func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

func retErrno(e syscall.Errno) unix.SockFilter {
	return stmt(bpfReturn, unix.SECCOMP_RET_ERRNO|uint32(e))
}

// installFilter applies prog to this thread, which has no_new_privs set;
// the programs it starts inherit it.
func installFilter(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}

// tiocLinux is the TIOCLINUX ioctl request (it can paste the console's
// selection as input).
const tiocLinux = 0x541C

// i386Ioctl is ioctl's number for 32-bit programs on x86-64.
const i386Ioctl = 54

// ttyInjectFilter returns a seccomp filter that refuses ioctl(TIOCSTI) and
// ioctl(TIOCLINUX) with EPERM: pushing keys into a terminal's input. A
// process with CAP_SYS_ADMIN (a full-access command when warden runs as
// root) may push them into any terminal it can open, not only its
// controlling one, and so type answers into the person's console. The
// filter checks integers only.
func ttyInjectFilter() ([]unix.SockFilter, error) {
	block := func(nr uint32) []unix.SockFilter {
		return []unix.SockFilter{
			stmt(bpfLoadAbs, offNr),
			jump(bpfJumpEq, nr, 0, 4),
			stmt(bpfLoadAbs, offArg1),
			jump(bpfJumpEq, unix.TIOCSTI, 1, 0),
			jump(bpfJumpEq, tiocLinux, 0, 1),
			retErrno(syscall.EPERM),
			stmt(bpfReturn, unix.SECCOMP_RET_ALLOW),
		}
	}
	allow := stmt(bpfReturn, unix.SECCOMP_RET_ALLOW)
	switch runtime.GOARCH {
	case "amd64":
		x32 := []unix.SockFilter{
			stmt(bpfLoadAbs, offNr),
			jump(bpfJumpGE, x32SyscallBit, 0, 1),
			retErrno(syscall.ENOSYS),
		}
		native := append(x32, block(unix.SYS_IOCTL)...)
		prog := []unix.SockFilter{
			stmt(bpfLoadAbs, offArch),
			jump(bpfJumpEq, unix.AUDIT_ARCH_X86_64, 0, uint8(len(native))),
		}
		prog = append(prog, native...)
		foreign := block(i386Ioctl)
		prog = append(prog, jump(bpfJumpEq, unix.AUDIT_ARCH_I386, 0, uint8(len(foreign))))
		prog = append(prog, foreign...)
		return append(prog, allow), nil
	case "arm64":
		native := block(unix.SYS_IOCTL)
		prog := []unix.SockFilter{
			stmt(bpfLoadAbs, offArch),
			jump(bpfJumpEq, unix.AUDIT_ARCH_AARCH64, 0, uint8(len(native))),
		}
		prog = append(prog, native...)
		return append(prog, allow), nil
	}
	return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
}
