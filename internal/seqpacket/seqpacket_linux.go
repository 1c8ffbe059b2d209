// Package seqpacket makes the socket pairs over which the sandbox's helper
// and the process that started it talk: the helper sends descriptors (the
// dry run's view, the observer's notifications) or asks for its ID maps.
package seqpacket

import (
	"os"
	"syscall"
)

// Pair returns a connected pair of close-on-exec SOCK_SEQPACKET sockets:
// ours, non-blocking, which this process reads through the runtime's
// poller, and theirs, blocking, for the helper's extra files. The files
// are named name and name + " (helper)".
func Pair(name string) (ours, theirs *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), name), os.NewFile(uintptr(fds[1]), name+" (helper)"), nil
}
