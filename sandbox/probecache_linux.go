//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// The probe's success is remembered on disk as well as in memory, so that
// a one-shot `warden exec` does not start the helper twice (once to probe,
// once for the command): a helper start is a few milliseconds, as much as
// the command's own. The file, under warden's state (which no sandboxed
// command can see or change, in any mode), holds the facts the outcome
// depends on; a probe is made again when any differs:
//
//   - the boot (/proc/sys/kernel/random/boot_id): a new kernel, new
//     modules, new boot parameters;
//   - the effective user ID and the user namespace this process runs in (a
//     container is another one);
//   - this executable (device, inode, size and modification time);
//   - the switches that allow or limit user namespaces:
//     user.max_user_namespaces, kernel.unprivileged_userns_clone (Debian)
//     and kernel.apparmor_restrict_unprivileged_userns (Ubuntu).
//
// Only success is remembered: a machine without namespaces probes every
// time, as before. A stale success cannot weaken anything: the helper then
// fails to set the sandbox up and the command does not run ("warden:
// sandbox: ..." and exit status 125); removing the file, or a reboot,
// makes warden probe again.

// probeCacheVersion changes when what a successful probe means does.
const probeCacheVersion = "1"

// probeCachePath is the file the probe's success is remembered in, "" when
// warden has no home directory.
func probeCachePath() string {
	home := wardenhome.Home()
	if home == "" {
		return ""
	}
	return filepath.Join(home, "cache", "sandbox-probe")
}

// probeKey returns what a remembered probe must match here, "" when a fact
// cannot be read (then nothing is remembered).
func probeKey() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	user, _ := namespaceIDs()
	if user == "" {
		return ""
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		return ""
	}
	sysctl := func(path string) string {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return "-"
		}
		if err != nil {
			return "?"
		}
		return strings.TrimSpace(string(data))
	}
	return fmt.Sprintf("v%s boot=%s euid=%d userns=%s exe=%d:%d:%d:%d.%d max_user_namespaces=%s unprivileged_userns_clone=%s apparmor_restrict_unprivileged_userns=%s",
		probeCacheVersion, strings.TrimSpace(string(boot)), os.Geteuid(), user,
		st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec,
		sysctl("/proc/sys/user/max_user_namespaces"),
		sysctl("/proc/sys/kernel/unprivileged_userns_clone"),
		sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"))
}

// cachedProbes is probes' work: it returns nil, nil when path remembers a
// success for key, and otherwise runs probe (with the read-only view, then
// without it if that failed) and remembers a success. An empty path or key
// remembers nothing.
func cachedProbes(path, key string, probe func(view bool) error) (nsErr, viewErr error) {
	if path != "" && key != "" {
		if data, err := os.ReadFile(path); err == nil && string(data) == key+"\n" {
			return nil, nil
		}
	}
	viewErr = probe(true)
	if viewErr == nil {
		if path != "" && key != "" {
			_ = rememberProbe(path, key) // best effort: the next start probes again
		}
		return nil, nil
	}
	if nsErr = probe(false); nsErr != nil {
		return nsErr, nsErr
	}
	return nil, fmt.Errorf("sandbox: no read-only view of the file system (%w): %w", viewErr, ErrUnsupported)
}

// rememberProbe writes key to path, whole or not at all.
func rememberProbe(path, key string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sandbox-probe-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(key + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
