//go:build linux

package sandbox

import (
	"context"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// BenchmarkStartParts splits BenchmarkStartSandboxed's extra cost into its
// parts, each starting /bin/true and waiting for it:
//
//   - namespaces: the new user, mount, PID and network namespaces alone
//     (created by the kernel in clone(2), and torn down when the process
//     exits), no helper, so no ID maps written either (the helper writes
//     them, or asks the parent for root's);
//   - helper: the second program start alone: this executable re-executed
//     as the helper without namespaces or restrictions, which then executes
//     the command in its place;
//   - helper+namespaces: both, with the helper supervising the command as
//     init of the PID namespace (signals caught, the command forked) but
//     nothing mounted or restricted.
//
// BenchmarkStartSandboxed minus helper+namespaces is then the cost of the
// setup proper (the read-only view, binds, covers, /proc, the loopback
// interface, Landlock, the seccomp filter, dropping capabilities).
func BenchmarkStartParts(b *testing.B) {
	requireNamespaces(b)
	user, net := namespaceIDs()
	run := func(b *testing.B, newCmd func() *exec.Cmd) {
		for b.Loop() {
			cmd := newCmd()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	helper := func(s spec, namespaces bool) *exec.Cmd {
		s.Path = "/bin/true"
		cmd := exec.Command("/proc/self/exe")
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		if namespaces {
			if err := addNamespaces(cmd, cmd.SysProcAttr, &s, true, true, true); err != nil {
				b.Fatal(err)
			}
		}
		cmd.Args = append(append([]string{confine.Arg0}, s.Args()...), "/bin/true")
		return cmd
	}
	b.Run("namespaces", func(b *testing.B) {
		run(b, func() *exec.Cmd {
			cmd := exec.Command("/bin/true")
			cmd.SysProcAttr = &syscall.SysProcAttr{}
			if err := addNamespaces(cmd, cmd.SysProcAttr, &spec{}, true, true, true); err != nil {
				b.Fatal(err)
			}
			return cmd
		})
	})
	b.Run("helper", func(b *testing.B) {
		run(b, func() *exec.Cmd { return helper(spec{Mode: string(ReadOnly)}, false) })
	})
	b.Run("helper+namespaces", func(b *testing.B) {
		run(b, func() *exec.Cmd {
			return helper(spec{Mode: string(ReadOnly), UserNS: user, NetNS: net, PIDNS: true}, true)
		})
	})
}

// BenchmarkStartLargeHeap is BenchmarkStartSandboxed's read-only case in a
// process holding 256 MB of heap, as a long-running warden may: starting
// the helper must not copy the parent's memory (see addNamespaces), for
// root too, whose ID maps the parent writes on the helper's request.
func BenchmarkStartLargeHeap(b *testing.B) {
	requireSandbox(b)
	ballast := make([][]byte, 256)
	for i := range ballast {
		ballast[i] = make([]byte, 1<<20)
		for j := 0; j < len(ballast[i]); j += 4096 {
			ballast[i][j] = 1 // touch every page
		}
	}
	p := Policy{Mode: ReadOnly, Workdir: repo(b)}
	for b.Loop() {
		cmd, err := p.Command(context.Background(), "/bin/true")
		if err != nil {
			b.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	runtime.KeepAlive(ballast)
}

// BenchmarkStartOutside compares the two ways of starting a command
// outside the sandbox, /bin/true: Contain (a PID namespace only) and Cover
// (also warden's state covered and a /dev of its own, in nested user and
// mount namespaces).
func BenchmarkStartOutside(b *testing.B) {
	for _, bc := range []struct {
		name string
		wrap func(*exec.Cmd) error
	}{{"contain", Contain}, {"cover", Cover}} {
		b.Run(bc.name, func(b *testing.B) {
			if err := bc.wrap(exec.Command("/bin/true")); err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if err := bc.wrap(cmd); err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
