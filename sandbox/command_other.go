//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
)

// unsupportedText is what ErrUnsupported says here.
const unsupportedText = "not supported on this system"

// supported reports that there is no Landlock outside Linux.
func supported() (int, error) {
	return 0, fmt.Errorf("sandbox: Landlock is Linux-only: %w", ErrUnsupported)
}

// namespaces reports that there are no Linux namespaces here.
func namespaces() error { return fmt.Errorf("sandbox: namespaces are Linux-only: %w", ErrUnsupported) }

// viewSupported reports that there is no read-only view of the file system
// here.
func viewSupported() error {
	return fmt.Errorf("sandbox: mount namespaces are Linux-only: %w", ErrUnsupported)
}

// wrap leaves cmd unchanged in full-access mode or when the policy is
// Unenforced, and otherwise returns an error.
func (p Policy) wrap(cmd *exec.Cmd, _ map[string]fileKey) error {
	if enforced, err := p.enforced(); !enforced || err != nil {
		return err
	}
	if p.Unenforced {
		return nil
	}
	_, err := Supported()
	return fmt.Errorf("sandbox: %s mode cannot be enforced: %w; to run commands without kernel enforcement, accept it explicitly (warden: --sandbox-unenforced)", p.Mode, err)
}

// contain reports that PID namespaces are Linux-only; cmd is left
// unchanged.
func contain(cmd *exec.Cmd) error {
	return fmt.Errorf("sandbox: PID namespaces are Linux-only: %w", ErrUnsupported)
}

// cover reports that user and mount namespaces are Linux-only; cmd is left
// unchanged.
func cover(cmd *exec.Cmd) error {
	return fmt.Errorf("sandbox: user namespaces are Linux-only, so %s: %w", uncoveredText, ErrUnsupported)
}

// wrapDryRun reports that dry runs are Linux-only.
func (p Policy) wrapDryRun(cmd *exec.Cmd, memory int64) (func(name string) (*os.File, error), error) {
	return nil, fmt.Errorf("sandbox: dry runs are Linux-only: %w", ErrUnsupported)
}
