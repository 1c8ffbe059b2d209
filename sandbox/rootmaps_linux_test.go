//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// identityText is the ID map file (/proc/self/uid_map or gid_map) of this
// process's user namespace mapped to itself, as the idmap operation prints
// it: what root's sandbox must see.
func identityText(t *testing.T, file string) string {
	t.Helper()
	m, err := identityMap(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(formatIDMap(m)), " ")
}

// TestG1_RootSandboxKeepsFullIDMaps proves that root's sandboxed commands
// see every ID of warden's user namespace mapped to itself, setgroups
// allowed, run as 0:0, and do not inherit the socket over which the
// helper asked for the maps.
func TestG1_RootSandboxKeepsFullIDMaps(t *testing.T) {
	requireNamespaces(t)
	if os.Geteuid() != 0 {
		t.Skip("root's ID maps: the test runs as root")
	}
	w := repo(t)
	want := identityText(t, "/proc/self/uid_map") + "|" + identityText(t, "/proc/self/gid_map") + "|0:0"
	for _, p := range []Policy{
		{Mode: WorkspaceWrite, Workdir: w},
		{Mode: ReadOnly, Workdir: w, NetworkAccess: true},
	} {
		got := run(t, p, "sockets", "idmap", "setgroups")
		if got[0] != "sockets:" {
			t.Errorf("%s: the helper's socket reached the command: %s", p.Mode, got[0])
		}
		if got[1] != want {
			t.Errorf("%s: ID maps = %q; want %q", p.Mode, got[1], want)
		}
		if got[2] != "allow" {
			t.Errorf("%s: setgroups = %q; want allow", p.Mode, got[2])
		}
	}
}

// rootHelper returns a command that starts the helper as Wrap would for
// root, running the test binary's operations ops, but with the ID maps
// that answer the request given by maps (nil: no one answers).
func rootHelper(t *testing.T, w string, maps func(*exec.Cmd), ops ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	user, net := namespaceIDs()
	s := spec{Mode: string(ReadOnly), Path: exe, UserNS: user, NetNS: net, MountNS: true, PIDNS: true, Landlock: 1}
	if abi, err := Supported(); err == nil {
		s.Landlock = abi
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Dir = w
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if err := addNamespaces(cmd, cmd.SysProcAttr, &s, true, true, true); err != nil {
		t.Fatal(err)
	}
	if !s.ParentMaps || len(cmd.ExtraFiles) != 1 {
		t.Fatalf("addNamespaces for root: spec %+v, extra files %v", s, cmd.ExtraFiles)
	}
	cmd.ExtraFiles[0].Close() // and the goroutine answering it ends
	cmd.ExtraFiles = nil
	maps(cmd)
	cmd.Args = append(append([]string{confine.Arg0}, s.Args()...), append([]string{exe}, ops...)...)
	return cmd
}

// TestG1_RootMapsFailClosed proves that the command does not run when
// root's ID maps cannot be written: the parent fails to write them (here:
// overlapping maps, which the kernel refuses), or does not answer; the
// helper then exits with confine.ExitSetup.
func TestG1_RootMapsFailClosed(t *testing.T) {
	requireNamespaces(t)
	if os.Geteuid() != 0 {
		t.Skip("root's ID maps: the test runs as root")
	}
	w := repo(t)
	for _, tc := range []struct {
		name string
		maps func(*exec.Cmd)
		want string
	}{
		{"refused by the kernel", func(cmd *exec.Cmd) {
			bad := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 10}, {ContainerID: 5, HostID: 5, Size: 10}}
			if err := serveRootMaps(cmd, idMaps{bad, bad}); err != nil {
				t.Fatal(err)
			}
		}, "the parent could not write them: uid_map: "},
		{"no one answers", func(cmd *exec.Cmd) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			syscall.Close(fds[0])
			f := os.NewFile(uintptr(fds[1]), "helper end")
			t.Cleanup(func() { f.Close() })
			cmd.ExtraFiles = []*os.File{f}
		}, "mapping the user and group IDs: asking the parent: "},
		{"no socket", func(cmd *exec.Cmd) {}, "no socket to the parent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(os.TempDir(), "warden-rootmaps-ran")
			os.Remove(marker)
			cmd := rootHelper(t, w, tc.maps, "write|"+marker)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != confine.ExitSetup || !strings.Contains(string(out), tc.want) {
				t.Errorf("exit: %v; output %q; want status %d and %q", err, out, confine.ExitSetup, tc.want)
			}
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Error("the command ran")
			}
		})
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	names, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(names) - 1 // ReadDir's own
}

// TestRootMapsLeaveNothingBehind proves that the goroutine answering a
// root helper's request for ID maps, and its descriptors, go away when the
// helper never asks: it dies first (a spec it cannot parse), is killed at
// once, or never starts (a working directory that does not exist) — as
// well as when it asks.
func TestRootMapsLeaveNothingBehind(t *testing.T) {
	requireNamespaces(t)
	if os.Geteuid() != 0 {
		t.Skip("root's ID maps: the test runs as root")
	}
	w := repo(t)
	p := Policy{Mode: ReadOnly, Workdir: w}
	if _, err := p.Command(context.Background(), "true"); err != nil { // the probes' descriptors and goroutines
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		start func(*exec.Cmd) error
	}{
		{"helper dies before asking", func(cmd *exec.Cmd) error {
			cmd.Args[1] = "warden_sandbox=bogus"
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != confine.ExitSetup {
				return errors.New("status " + err.Error() + ": " + string(out))
			}
			return nil
		}},
		{"helper killed at once", func(cmd *exec.Cmd) error {
			if err := cmd.Start(); err != nil {
				return err
			}
			cmd.Process.Kill()
			cmd.Wait()
			return nil
		}},
		{"helper never started", func(cmd *exec.Cmd) error {
			cmd.Dir = filepath.Join(w, "missing")
			if err := cmd.Run(); err == nil {
				return errors.New("started in a missing directory")
			}
			return nil
		}},
		{"helper asks", func(cmd *exec.Cmd) error { return cmd.Run() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settle := func() (int, int) {
				runtime.GC()
				time.Sleep(10 * time.Millisecond) // the descriptors' cleanups, and the goroutines seeing end of file
				return runtime.NumGoroutine(), openFDs(t)
			}
			g0, f0 := settle()
			for range 20 {
				cmd, err := p.Command(context.Background(), "true")
				if err != nil {
					t.Fatal(err)
				}
				cmd.Env = childEnv() // (no race detector's wait at exit)
				if err := tc.start(cmd); err != nil {
					t.Fatal(err)
				}
			}
			var g, f int
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
				if g, f = settle(); g <= g0 && f <= f0 {
					return
				}
			}
			t.Errorf("after 20 commands: %d goroutines, %d descriptors; %d and %d before", g, f, g0, f0)
		})
	}
}
