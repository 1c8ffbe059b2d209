//go:build linux

package confine

import (
	"encoding/binary"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runFilter runs prog on a struct seccomp_data of arch, nr and args in
// golang.org/x/net/bpf's virtual machine and returns the action. The
// machine loads words big-endian where seccomp loads them in the host's
// order, so each 32-bit word of the data is stored big-endian here.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	raw := make([]bpf.RawInstruction, len(prog))
	for i, f := range prog {
		raw[i] = bpf.RawInstruction{Op: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K}
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	words := []uint32{nr, arch, 0, 0}
	for _, a := range args {
		words = append(words, uint32(a), uint32(a>>32))
	}
	data := make([]byte, 0, 4*len(words))
	for _, w := range words {
		data = binary.BigEndian.AppendUint32(data, w)
	}
	action, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(action)
}

// TestG17_TraceFilterDecisions checks what the trace filter sends to the
// observer, for native and 32-bit x86 system calls: every execution and
// connect, sendto only with an address, nothing else; x32 and foreign
// architectures fail.
func TestG17_TraceFilterDecisions(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the table is x86-64's")
	}
	prog, err := TraceFilter()
	if err != nil {
		t.Fatal(err)
	}
	const (
		notify = unix.SECCOMP_RET_USER_NOTIF
		allow  = unix.SECCOMP_RET_ALLOW
		enosys = unix.SECCOMP_RET_ERRNO | uint32(syscall.ENOSYS)
	)
	x64, i386 := uint32(unix.AUDIT_ARCH_X86_64), uint32(unix.AUDIT_ARCH_I386)
	addr := [6]uint64{3, 0x1000, 1, 0, 0x7fff0000, 16}
	hiAddr := [6]uint64{3, 0x1000, 1, 0, 0x7fff00000000, 16}
	cases := []struct {
		name     string
		arch, nr uint32
		args     [6]uint64
		want     uint32
	}{
		{"execve", x64, unix.SYS_EXECVE, [6]uint64{}, notify},
		{"execveat", x64, unix.SYS_EXECVEAT, [6]uint64{}, notify},
		{"connect", x64, unix.SYS_CONNECT, addr, notify},
		{"sendmsg", x64, unix.SYS_SENDMSG, [6]uint64{}, notify},
		{"sendmmsg", x64, unix.SYS_SENDMMSG, [6]uint64{}, notify},
		{"sendto with an address", x64, unix.SYS_SENDTO, addr, notify},
		{"sendto with an address above 4 GiB", x64, unix.SYS_SENDTO, hiAddr, notify},
		{"sendto to the peer", x64, unix.SYS_SENDTO, [6]uint64{3, 0x1000, 1}, allow},
		{"read", x64, unix.SYS_READ, [6]uint64{}, allow},
		{"socket", x64, unix.SYS_SOCKET, [6]uint64{}, allow},
		{"x32 execve", x64, x32SyscallBit | 520, [6]uint64{}, enosys},
		{"i386 execve", i386, i386Execve, [6]uint64{}, notify},
		{"i386 execveat", i386, i386Execveat, [6]uint64{}, notify},
		{"i386 connect", i386, i386Connect, addr, notify},
		{"i386 sendmsg", i386, i386Sendmsg, [6]uint64{}, notify},
		{"i386 sendmmsg", i386, i386Sendmmsg, [6]uint64{}, notify},
		{"i386 sendto with an address", i386, i386Sendto, addr, notify},
		{"i386 sendto to the peer", i386, i386Sendto, [6]uint64{3, 0x1000, 1}, allow},
		{"i386 read", i386, 3, [6]uint64{}, allow},
		{"arm64", unix.AUDIT_ARCH_AARCH64, unix.SYS_EXECVE, [6]uint64{}, enosys},
	}
	for _, c := range cases {
		if got := runFilter(t, prog, c.arch, c.nr, c.args); got != c.want {
			t.Errorf("%s: action %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestG17_TracedSockets checks the dry run's socket allow-list: UNIX
// stream and seqpacket sockets may be made (their connects are then
// seen), UNIX datagram sockets still not.
func TestG17_TracedSockets(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the table is x86-64's")
	}
	prog, err := socketFilter(TracedSockets)
	if err != nil {
		t.Fatal(err)
	}
	eacces := unix.SECCOMP_RET_ERRNO | uint32(errSocket)
	x64 := uint32(unix.AUDIT_ARCH_X86_64)
	for _, c := range []struct {
		name    string
		typ     uint64
		want    uint32
		proto   uint64
		family  uint64
		syscall uint32
	}{
		{"unix stream", unix.SOCK_STREAM | unix.SOCK_CLOEXEC, unix.SECCOMP_RET_ALLOW, 0, unix.AF_UNIX, unix.SYS_SOCKET},
		{"unix seqpacket", unix.SOCK_SEQPACKET, unix.SECCOMP_RET_ALLOW, 0, unix.AF_UNIX, unix.SYS_SOCKET},
		{"unix datagram", unix.SOCK_DGRAM, eacces, 0, unix.AF_UNIX, unix.SYS_SOCKET},
		{"unix datagram pair", unix.SOCK_DGRAM, eacces, 0, unix.AF_UNIX, unix.SYS_SOCKETPAIR},
		{"tcp", unix.SOCK_STREAM, unix.SECCOMP_RET_ALLOW, 0, unix.AF_INET, unix.SYS_SOCKET},
		{"packet", unix.SOCK_RAW, eacces, 0, unix.AF_PACKET, unix.SYS_SOCKET},
	} {
		if got := runFilter(t, prog, x64, c.syscall, [6]uint64{c.family, c.typ, c.proto}); got != c.want {
			t.Errorf("%s: action %#x, want %#x", c.name, got, c.want)
		}
	}
	// The sandbox's own list is unchanged: no UNIX socket at all.
	plain, err := UnixSocketFilter()
	if err != nil {
		t.Fatal(err)
	}
	if got := runFilter(t, plain, x64, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}); got != eacces {
		t.Errorf("the sandbox's filter allows a UNIX stream socket: %#x", got)
	}
}
