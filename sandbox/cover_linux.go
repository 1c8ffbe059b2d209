//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// cover is Cover on Linux.
func cover(cmd *exec.Cmd) error {
	if err := unstarted(cmd); err != nil {
		return err
	}
	if err := userNamespaces(); err != nil {
		return fmt.Errorf("sandbox: no user namespaces here (%v), so %s: %w", err, uncoveredText, ErrUnsupported)
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return fmt.Errorf("sandbox: cannot re-execute this program: %w", err)
	}
	sys, err := procAttr(cmd, "covered")
	if sys == nil || err != nil {
		return err
	}
	if sys.Chroot != "" || sys.Credential != nil || sys.UidMappings != nil || sys.GidMappings != nil ||
		sys.Cloneflags != 0 || sys.Unshareflags != 0 {
		return errors.New("sandbox: SysProcAttr sets Chroot, Credential, ID mappings or namespaces, which Cover sets itself")
	}
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	s, err := coverSpec(dir)
	if err != nil {
		return err
	}
	if err := addNamespaces(cmd, sys, &s, true, false, true); err != nil {
		return err
	}
	s.Path = cmd.Path
	reexec(cmd, s, sys)
	return nil
}

// coverSpec is what the helper of a covered command that runs in dir does:
// warden's home directories hidden (made first where missing, so that a
// command cannot plant one) — only their secret entries where dir lies
// inside one, as for a writable root there —, the managed configuration
// bound read-only where it exists, a /dev of its own with every device but
// block devices and terminals.
func coverSpec(dir string) (spec, error) {
	user, _ := namespaceIDs()
	s := spec{Cover: true, Mode: string(FullAccess), UserNS: user, MountNS: true, PIDNS: true, Dev: confine.DevAll, Network: true}
	if err := ensureState([]string{"/"}); err != nil {
		return s, err
	}
	var roots []string
	if abs, err := filepath.Abs(dir); dir != "" && err == nil {
		roots = []string{resolvedOr(abs)}
	}
	s.Hidden = hiddenPaths(roots)
	if m := resolvedOr(wardenhome.ManagedConfig()); m != "" {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().Type()&fs.ModeSymlink == 0 {
			s.Protected = append(s.Protected, m)
		}
	}
	return s, nil
}
