//go:build linux

// Package ptytest opens pseudo-terminals for tests: a person's terminal
// (the controller end, where the test types and reads) and the terminal a
// program under test runs on.
package ptytest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Pair opens a new pseudo-terminal and returns its controller end and its
// terminal end (/dev/pts/N, term.Name()). Neither becomes the caller's
// controlling terminal; both are close-on-exec.
func Pair() (controller, term *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	if term, err = terminal(m); err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, term, nil
}

// terminal unlocks the terminal end of the controller m and opens it.
func terminal(m *os.File) (*os.File, error) {
	rc, err := m.SyscallConn()
	if err != nil {
		return nil, err
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr != nil {
			ierr = fmt.Errorf("unlockpt: %w", ierr)
			return
		}
		n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
	}); err != nil {
		return nil, err
	}
	if ierr != nil {
		return nil, ierr
	}
	return os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
}

// Open is Pair for a test: both ends are closed when the test ends, and
// the test is skipped where the system has no pseudo-terminals.
func Open(t testing.TB) (controller, term *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	term, err = terminal(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = term.Close() })
	return m, term
}

// Quiet fails the test when anything arrives at controller within d:
// what was written to the terminal (by a process that should not reach
// it).
func Quiet(t testing.TB, controller *os.File, d time.Duration) {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 256)
		n, _ := controller.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		if s != "" {
			t.Fatalf("the terminal received %q", s)
		}
	case <-time.After(d):
	}
}
