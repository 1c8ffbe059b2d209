package seqpacket

import (
	"bytes"
	"syscall"
	"testing"
)

// TestPair: a message written on the helper's end arrives whole on ours,
// which does not block when nothing is there, and both ends close on exec.
func TestPair(t *testing.T) {
	ours, theirs, err := Pair("test")
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	defer theirs.Close()
	for _, f := range []*struct {
		name string
		fd   uintptr
	}{{"ours", ours.Fd()}, {"theirs", theirs.Fd()}} {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.fd, syscall.F_GETFD, 0)
		if errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
			t.Errorf("%s: close-on-exec not set (%v)", f.name, errno)
		}
		typ, err := syscall.GetsockoptInt(int(f.fd), syscall.SOL_SOCKET, syscall.SO_TYPE)
		if err != nil || typ != syscall.SOCK_SEQPACKET {
			t.Errorf("%s: socket type %d (%v), want SOCK_SEQPACKET", f.name, typ, err)
		}
	}
	buf := make([]byte, 16)
	if _, _, _, _, err := syscall.Recvmsg(int(ours.Fd()), buf, nil, 0); err != syscall.EAGAIN {
		t.Errorf("reading an empty socket: %v, want EAGAIN", err)
	}
	if _, err := theirs.Write([]byte("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := theirs.Write([]byte("two")); err != nil {
		t.Fatal(err)
	}
	n, _, _, _, err := syscall.Recvmsg(int(ours.Fd()), buf, nil, 0)
	if err != nil || !bytes.Equal(buf[:n], []byte("one")) {
		t.Errorf("first message %q (%v), want one", buf[:n], err)
	}
}
