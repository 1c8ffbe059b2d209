//go:build linux

package sandbox

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveUnix starts a UNIX socket server at addr (a path, or "@name" for an
// abstract socket) in the test process, outside every sandbox, answering
// "pong" to every connection.
func serveUnix(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 16)
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := c.Read(buf); err == nil {
					c.Write([]byte("pong\n"))
				}
			}()
		}
	}()
	// The server answers outside the sandbox: the attack is real.
	c, err := net.Dial("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("ping\n"))
	buf := make([]byte, 16)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "pong\n" {
		t.Fatalf("server at %s does not answer: %v", addr, err)
	}
	c.Close()
}

// With the network off, no UNIX socket server outside the sandbox answers:
// not one outside the writable roots, not one in a temporary directory
// (where SSH agents and X11 keep theirs), not an abstract one. The
// network on restores them.
func TestG1_NetworkOffBlocksUnixSockets(t *testing.T) {
	requireSandbox(t)
	if err := seccompAvailable(); err != nil {
		t.Skipf("no seccomp filters: %v", err)
	}
	w := repo(t)
	outside := filepath.Join(scratch(t), "docker.sock")
	serveUnix(t, outside)
	tmp, err := os.MkdirTemp("", "warden-agent-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	inTemp := filepath.Join(tmp, "agent.sock")
	serveUnix(t, inTemp)
	abstract := "@warden-test-" + filepath.Base(tmp)
	serveUnix(t, abstract)

	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		t.Run(string(m), func(t *testing.T) {
			p := Policy{Mode: m, Workdir: w}
			got := run(t, p, "unixdial|"+outside, "unixdial|"+inTemp, "unixdial|"+abstract, "socketpair", "socketpair-dgram", "iouring")
			for i, addr := range []string{outside, inTemp, abstract} {
				if got[i] != "errno=EACCES" {
					t.Errorf("network off, %s: %s, want errno=EACCES", addr, got[i])
				}
			}
			if got[3] != "ok" {
				t.Errorf("socketpair: %s", got[3])
			}
			if got[4] != "errno=EACCES" {
				t.Errorf("datagram socketpair (re-connectable): %s", got[4])
			}
			if got[5] != "errno=ENOSYS" {
				t.Errorf("io_uring_setup: %s", got[5])
			}
			p.NetworkAccess = true
			got = run(t, p, "unixdial|"+outside, "unixdial|"+abstract, "iouring")
			if got[0] != "answer=pong" || got[1] != "answer=pong" {
				t.Errorf("network on: %v, want answers", got[:2])
			}
			if got[2] == "errno=ENOSYS" {
				t.Errorf("network on: io_uring refused")
			}
		})
	}
	// A server of the command's own inside the workspace is refused too:
	// nothing tells it apart soundly from one outside.
	got := run(t, Policy{Mode: WorkspaceWrite, Workdir: w}, "unixserve|"+filepath.Join(w, "test.sock"))
	if got[0] != "errno=EACCES" {
		t.Errorf("own server in the workspace: %s", got[0])
	}
	got = run(t, Policy{Mode: WorkspaceWrite, Workdir: w, NetworkAccess: true}, "unixserve|"+filepath.Join(w, "test2.sock"))
	if got[0] != "ok" {
		t.Errorf("own server in the workspace, network on: %s", got[0])
	}
	if kind, ok := (Policy{Mode: WorkspaceWrite}).Denied("dial unix "+outside+": connect: permission denied", nil); !ok || kind != KindNetwork {
		t.Errorf("Denied(unix dial) = %s, %v", kind, ok)
	}
}

// stamp is what a metadata test compares: mode, modification time and
// the extended attribute the attack sets.
func stamp(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]byte, 8)
	n, _ := syscall.Getxattr(path, "user.warden", x)
	if n < 0 {
		n = 0
	}
	return fi.Mode().String() + " " + fi.ModTime().String() + " xattr=" + string(x[:n])
}

// Outside the writable roots nothing changes, metadata included: chmod,
// utime, extended attributes, hard links, renames.
func TestG1_ReadOnlyBlocksMetadataOutside(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	out := scratch(t)
	victim := writeFile(t, filepath.Join(out, "victim"), "keep\n")
	inWork := filepath.Join(w, "main.go")
	before := stamp(t, victim)
	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		t.Run(string(m), func(t *testing.T) {
			p := Policy{Mode: m, Workdir: w}
			got := run(t, p, "chmod000|"+victim, "utime|"+victim, "setxattr|"+victim, "chown|"+victim,
				"link|"+victim+"|"+filepath.Join(out, "hard"), "rename|"+victim+"|"+filepath.Join(out, "moved"),
				"chmod000|"+inWork, "chmod|"+inWork)
			for i, op := range []string{"chmod", "utime", "setxattr", "chown", "link", "rename"} {
				if got[i] != "errno=EROFS" {
					t.Errorf("%s outside the roots: %s, want errno=EROFS", op, got[i])
				}
			}
			if after := stamp(t, victim); after != before {
				t.Errorf("victim changed: %s -> %s", before, after)
			}
			for _, f := range []string{"hard", "moved"} {
				if _, err := os.Lstat(filepath.Join(out, f)); err == nil {
					t.Errorf("%s was created", f)
				}
			}
			want := "ok"
			if m == ReadOnly {
				want = "errno=EROFS"
			}
			if got[6] != want || got[7] != want {
				t.Errorf("chmod in the workdir: %s, %s, want %s", got[6], got[7], want)
			}
		})
	}
	// Devices stay writable in the read-only view.
	expect(t, Policy{Mode: ReadOnly, Workdir: w}, [][2]string{{"write|/dev/null", "ok"}, {"append|/dev/null", "ok"}})
}

// A cancelled command's whole process tree is killed, including a
// grandchild that left its session: the file it would write later never
// appears.
func TestG1_KillReachesEscapedGrandchildren(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		t.Run(string(m), func(t *testing.T) {
			marker := filepath.Join(w, "later-"+string(m))
			script := "setsid sh -c 'sleep 1; touch " + marker + "' </dev/null >/dev/null 2>&1 & " +
				"(setsid sh -c 'sleep 1; touch " + marker + "' </dev/null >/dev/null 2>&1 &) ; echo started; sleep 60"
			p := Policy{Mode: WorkspaceWrite, Workdir: w}
			if m == ReadOnly {
				// A writable root in read-only mode does not exist; use
				// workspace-write, killed the same way.
				p.Mode = WorkspaceWrite
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd, err := p.Command(ctx, "sh", "-c", script)
			if err != nil {
				t.Fatal(err)
			}
			r, wr, _ := os.Pipe()
			cmd.Stdout = wr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wr.Close()
			buf := make([]byte, 8)
			if n, _ := r.Read(buf); !strings.HasPrefix(string(buf[:n]), "started") {
				t.Fatalf("command did not start: %q", buf[:n])
			}
			cancel() // kills the helper only
			_ = cmd.Wait()
			time.Sleep(1500 * time.Millisecond)
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("an escaped grandchild wrote its file after the command was cancelled")
			}
		})
	}
}

// The command's end ends its background processes too, and a command
// killed by a signal is reported as exit status 128+N.
func TestSupervisorStatuses(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	cmd, err := p.Command(context.Background(), "sh", "-c", "kill -TERM $$")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("killed by SIGTERM: %v", err)
	}
	got := run(t, p, "pid")
	if got[0] == "1" {
		t.Errorf("the command is init of its namespace")
	}
}
