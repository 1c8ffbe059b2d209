//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
)

// Exit statuses of a sandboxed command that could not be run; see the
// Linux documentation. Only Linux starts sandboxed commands.
const (
	exitSetup     = 125
	exitCannotRun = 126
	exitNotFound  = 127
)

// ErrUnsupported is wrapped by the errors of Supported and of Command when
// the system cannot enforce the policy.
var ErrUnsupported = errors.New("not supported on this system")

// Supported reports that there is no Landlock outside Linux.
func Supported() (abi int, err error) {
	return 0, fmt.Errorf("sandbox: Landlock is Linux-only: %w", ErrUnsupported)
}

// Namespaces reports that there are no Linux namespaces here.
func Namespaces() error { return fmt.Errorf("sandbox: namespaces are Linux-only: %w", ErrUnsupported) }

// viewSupported reports that there is no read-only view of the file system
// here.
func viewSupported() error {
	return fmt.Errorf("sandbox: mount namespaces are Linux-only: %w", ErrUnsupported)
}

// Command returns a plain command, in Workdir, in full-access mode or when
// the policy is Unenforced; otherwise an error, since nothing can enforce
// the policy.
func (p Policy) Command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.Workdir
	if err := p.Wrap(cmd); err != nil {
		return nil, err
	}
	return cmd, nil
}

// Wrap leaves cmd unchanged in full-access mode or when the policy is
// Unenforced, and otherwise returns an error.
func (p Policy) Wrap(cmd *exec.Cmd) error {
	switch p.Mode {
	case FullAccess:
		return nil
	case ReadOnly, WorkspaceWrite:
	default:
		return fmt.Errorf("sandbox: invalid mode %q", p.Mode)
	}
	if p.Unenforced {
		return nil
	}
	_, err := Supported()
	return fmt.Errorf("sandbox: %s mode cannot be enforced: %w; to run commands without kernel enforcement, accept it explicitly (warden: --sandbox-unenforced)", p.Mode, err)
}

// Contain reports that PID namespaces are Linux-only; cmd is left
// unchanged.
func Contain(cmd *exec.Cmd) error {
	return fmt.Errorf("sandbox: PID namespaces are Linux-only: %w", ErrUnsupported)
}
