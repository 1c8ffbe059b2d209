//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// setupCover sets up the covered mode (Spec.Cover, SPEC G16) for a
// command that runs outside the sandbox: nothing is restricted — the
// host's file system (writable wherever the command's user may write) and
// network — but warden's state is covered (Hidden with an empty
// read-only tmpfs or /dev/null, Protected bound read-only) and /dev is
// the helper's own (DevAll: no block device, no terminal but the
// command's own ptys).
//
// The helper runs as root of its user namespace with every capability, so
// a command in the same namespaces could simply unmount the covers. It
// runs instead in a user and mount namespace nested in the helper's
// (commandAttr): the kernel copies the helper's mounts into the less
// privileged namespace locked together (MNT_LOCKED), and there they can be
// neither unmounted, moved nor made writable again, whatever capabilities
// the command has in its own namespace; it has none in the helper's (no
// mount there, no ptrace of the helper, no setns back), and none in the
// host's (no open_by_handle_at, no mount of a block device, no mknod).
func (s Spec) setupCover() error {
	if s.UserNS == "" || !s.MountNS || !s.PIDNS {
		return errors.New("covered mode without user, mount and PID namespaces")
	}
	if id, _ := os.Readlink("/proc/self/ns/user"); id == "" || id == s.UserNS {
		return errors.New("not in a new user namespace (was the command's SysProcAttr replaced after sandbox.Cover?)")
	}
	if os.Getpid() != 1 {
		return errors.New("not in a new PID namespace (was the command's SysProcAttr replaced after sandbox.Cover?)")
	}
	if err := s.mapIDs(); err != nil {
		return err
	}
	// The mounts copied from the host's namespace are slaves here (the
	// kernel turns shared mounts into slaves in a less privileged
	// namespace): the host's new mounts still appear, nothing made here
	// leaves.
	if err := freshDev(s.Dev, false); err != nil {
		return err
	}
	for _, h := range s.Hidden {
		if err := hide(h); err != nil && !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("hiding warden's state %s: %w", h, err)
		}
	}
	for _, p := range s.Protected {
		if err := bindReadOnly(p); err != nil && !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("protecting %s: %w", p, err)
		}
	}
	if err := chdirAgain(); err != nil {
		return err
	}
	mountProc(false)
	if err := dropControllingTerminal(); err != nil {
		return fmt.Errorf("leaving the controlling terminal: %w", err)
	}
	// Root in the command's namespace has CAP_SYS_ADMIN there; TIOCSTI
	// needs it in the host's, but refuse it outright all the same.
	prog, err := ttyInjectFilter()
	if err == nil {
		err = installFilter(prog)
	}
	if err != nil {
		return fmt.Errorf("refusing TIOCSTI: %w", err)
	}
	return nil
}

// commandAttr returns how supervise starts the command: nil (as a plain
// child), or in covered mode in new user and mount namespaces nested in
// the helper's, IDs mapped to themselves as in the helper's (see
// setupCover).
func (s Spec) commandAttr() (*syscall.SysProcAttr, error) {
	if !s.Cover {
		return nil, nil
	}
	uid, err := identityMaps("/proc/self/uid_map")
	if err != nil {
		return nil, err
	}
	gid, err := identityMaps("/proc/self/gid_map")
	if err != nil {
		return nil, err
	}
	setgroups, _ := os.ReadFile("/proc/self/setgroups")
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: uid, GidMappings: gid,
		GidMappingsEnableSetgroups: strings.TrimSpace(string(setgroups)) == "allow",
	}, nil
}

// identityMaps maps every ID this process's user namespace has (file is
// its /proc/self/uid_map or gid_map) to itself.
func identityMaps(file string) ([]syscall.SysProcIDMap, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseIdentityMap(file, string(data))
}

// ParseIdentityMap reads data, the contents of a /proc/PID/uid_map or
// gid_map (file names it in errors), and maps every ID it lists inside the
// namespace to itself. It refuses malformed lines and an empty map.
func ParseIdentityMap(file, data string) ([]syscall.SysProcIDMap, error) {
	var out []syscall.SysProcIDMap
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		inside, err1 := strconv.ParseUint(f[0], 10, 32)
		size, err2 := strconv.ParseUint(f[2], 10, 32)
		if err1 != nil || err2 != nil || size == 0 || inside+size > 1<<32 {
			return nil, fmt.Errorf("malformed %s line %q", file, line)
		}
		out = append(out, syscall.SysProcIDMap{ContainerID: int(inside), HostID: int(inside), Size: int(size)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty", file)
	}
	return out, nil
}
