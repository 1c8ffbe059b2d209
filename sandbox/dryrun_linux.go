//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// wrapDryRun is WrapDryRun on Linux.
func (p Policy) wrapDryRun(cmd *exec.Cmd, memory int64) (func() (*os.File, error), error) {
	if cmd == nil {
		return nil, dryRunProbe()
	}
	if err := dryRunProbe(); err != nil {
		return nil, err
	}
	if err := unstarted(cmd); err != nil {
		return nil, err
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil {
		return nil, errors.New("sandbox: a dry run's command sets neither ExtraFiles nor SysProcAttr")
	}
	s, err := p.dryRunSpec(memory)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	receive, err := dryRunNamespaces(cmd, &s)
	if err != nil {
		return nil, err
	}
	s.Path = cmd.Path
	reexec(cmd, s, cmd.SysProcAttr)
	return receive, nil
}

// dryRunSpec is the helper's spec for a dry run under p: the namespaces of
// every sandboxed command, the copy-on-write view instead of the read-only
// one, warden's state hidden, no Landlock (the command may write anywhere
// in its view), UNIX sockets refused and the network off whatever p says.
func (p Policy) dryRunSpec(memory int64) (spec, error) {
	s := spec{Mode: "dry-run", DryRun: true, Memory: memory, NoUnix: true, MountNS: true, PIDNS: true, Dev: confine.DevMinimal}
	if err := seccompAvailable(); err != nil {
		return s, fmt.Errorf("%w; a dry run refuses UNIX sockets", err)
	}
	s.UserNS, s.NetNS = namespaceIDs()
	q := p
	q.Mode = WorkspaceWrite
	s.Hidden = hiddenPaths(q.resolvedRoots())
	return s, nil
}

// dryRunNamespaces adds the namespaces of a dry run to cmd (an IPC
// namespace besides the sandbox's, so that System V objects stay the
// host's) and the socket over which the helper sends its staging tmpfs;
// it returns the function that receives it.
func dryRunNamespaces(cmd *exec.Cmd, s *spec) (func() (*os.File, error), error) {
	if err := addNamespaces(cmd, cmd.SysProcAttr, s, true, true, true); err != nil {
		return nil, err
	}
	cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWIPC
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socket for the dry run's view: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "dry run view")
	theirs := os.NewFile(uintptr(fds[1]), "dry run view (helper)")
	s.ViewFD = 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
	var once sync.Once
	var view *os.File
	var verr error
	return func() (*os.File, error) {
		once.Do(func() {
			theirs.Close()
			defer ours.Close()
			view, verr = receiveView(ours)
		})
		return view, verr
	}, nil
}

// receiveView returns the staging tmpfs the helper sent on f, or an error
// when it sent none (the view was not set up).
func receiveView(f *os.File) (*os.File, error) {
	msg, fds, err := receiveFDs(f)
	if err != nil {
		return nil, fmt.Errorf("sandbox: receiving the dry run's view: %w", err)
	}
	if string(msg) != "view" || len(fds) != 1 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, errors.New("sandbox: the dry run's view was not set up")
	}
	return os.NewFile(uintptr(fds[0]), "dry run staging"), nil
}

// dryRunProbe reports whether dry runs work here, by setting one up once
// per process (the kernel's features do not change while it runs).
var dryRunProbe = sync.OnceValue(func() error {
	if err := userNamespaces(); err != nil {
		return fmt.Errorf("sandbox: a dry run needs user namespaces: %w", err)
	}
	var p Policy
	s, err := p.dryRunSpec(0)
	if err != nil {
		return err
	}
	s.Probe, s.Hidden, s.Dev = true, nil, ""
	cmd := exec.Command("/proc/self/exe")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	receive, err := dryRunNamespaces(cmd, &s)
	if err != nil {
		return err
	}
	cmd.Args = append([]string{confine.Arg0}, s.Args()...)
	out, err := cmd.CombinedOutput()
	view, verr := receive()
	if view != nil {
		view.Close()
	}
	if err == nil {
		err = verr
	}
	if err != nil {
		return fmt.Errorf("sandbox: no copy-on-write view for dry runs (overlayfs in a user namespace, fsmount(2): Linux 6.5 or later): %v: %s: %w", err, strings.TrimSpace(string(out)), ErrUnsupported)
	}
	return nil
})
