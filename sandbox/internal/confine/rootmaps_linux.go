//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// MapsFD is the helper's descriptor of the socket to its parent, over
// which root's helper asks for its ID maps.
const MapsFD = 3

// askRootMaps is the helper's side: it asks its parent, over MapsFD, to
// write root's ID maps into its new user namespace, closes MapsFD (the
// command must not inherit it) and checks that its IDs are mapped.
func askRootMaps() error {
	var st syscall.Stat_t
	if err := syscall.Fstat(MapsFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		// Not the parent's socket: someone else's descriptor, left
		// alone.
		return errors.New("no socket to the parent as descriptor 3 (were the command's ExtraFiles replaced after sandbox.Policy.Wrap?)")
	}
	defer syscall.Close(MapsFD)
	self, err := syscall.Open("/proc/self", unix.O_PATH|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("/proc/self: %w", err)
	}
	err = syscall.Sendmsg(MapsFD, []byte{1}, syscall.UnixRights(self), nil, 0)
	syscall.Close(self)
	if err != nil {
		return fmt.Errorf("asking the parent: %w", err)
	}
	buf := make([]byte, 4096)
	var n int
	for {
		n, err = syscall.Read(MapsFD, buf)
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err != nil:
		return fmt.Errorf("waiting for the parent: %w", err)
	case n == 0:
		return errors.New("the parent did not answer")
	case buf[0] != 0:
		return fmt.Errorf("the parent could not write them: %s", buf[1:n])
	}
	if os.Getuid() != 0 || os.Getgid() != 0 || os.Geteuid() != 0 || os.Getegid() != 0 {
		return errors.New("the IDs did not map")
	}
	return nil
}
