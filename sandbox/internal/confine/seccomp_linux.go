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

// Offsets in struct seccomp_data: the system call number, the audit
// architecture and the low 32 bits of the first argument (little-endian
// architectures only, which are the ones the filter is built for).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// x32SyscallBit marks system calls of the x32 ABI on x86-64.
const x32SyscallBit = 0x40000000

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
