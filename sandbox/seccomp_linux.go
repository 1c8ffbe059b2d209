//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/wardenhq/warden/sandbox/internal/confine"
	"golang.org/x/sys/unix"
)

// seccompAvailable reports whether the kernel offers seccomp filters (and
// the filter exists for this architecture). It is worked out once per
// process: neither changes while it runs.
var seccompAvailable = sync.OnceValue(probeSeccomp)

// probeSeccomp does seccompAvailable's work.
func probeSeccomp() error {
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		if errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("sandbox: the kernel has no seccomp: %w", ErrUnsupported)
		}
		return fmt.Errorf("sandbox: seccomp: %w", err)
	}
	if _, err := confine.UnixSocketFilter(); err != nil {
		return fmt.Errorf("sandbox: %w: %w", err, ErrUnsupported)
	}
	return nil
}
