//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/nettest"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// serveUnix starts a UNIX socket server at addr (a path, or "@name" for an
// abstract socket) in the test process, outside every sandbox, answering
// "pong" to every connection.
func serveUnix(t *testing.T, addr string) {
	t.Helper()
	nettest.Serve(t, "unix", addr, func(c net.Conn) {
		buf := make([]byte, 16)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(buf); err == nil {
			c.Write([]byte("pong\n"))
		}
	})
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
	if kind, ok := (Policy{Mode: WorkspaceWrite}).deniedKind("dial unix "+outside+": connect: permission denied", nil); !ok || kind != KindNetwork {
		t.Errorf("deniedKind(unix dial) = %s, %v", kind, ok)
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
	requireView(t)
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
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			marker := filepath.Join(w, fmt.Sprintf("later-%v", network))
			script := "setsid sh -c 'sleep 2; touch " + marker + "' </dev/null >/dev/null 2>&1 & " +
				"(setsid sh -c 'sleep 2; touch " + marker + "' </dev/null >/dev/null 2>&1 &) ; echo started; sleep 60"
			p := Policy{Mode: WorkspaceWrite, Workdir: w, NetworkAccess: network}
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
			time.Sleep(2500 * time.Millisecond)
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

// Protected names that do not exist when a command starts cannot be bound
// read-only; whatever the command creates under such a name, at any depth
// of the workspace, is moved to quarantine once it ends, and nothing else
// is: not a nested repository that existed before (which is bound
// read-only like the top-level ones).
func TestG1_AbsentProtectedPathsQuarantined(t *testing.T) {
	requireSandbox(t)
	home := mkdir(t, scratch(t), "warden-home")
	t.Setenv(wardenhome.EnvHome, home)
	w := mkdir(t, scratch(t), "work") // no .git, .warden, .agents
	mkdir(t, w, "sub")
	mkdir(t, w, "innocent")
	vendored := mkdir(t, w, "vendor", "lib", ".git")
	writeFile(t, filepath.Join(w, "main.go"), "package main\n")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	watch, err := p.Watch()
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, p,
		"mkdir|"+filepath.Join(w, ".git"), "mkdir|"+filepath.Join(w, ".git", "hooks"),
		"write|"+filepath.Join(w, ".git", "hooks", "pre-commit"),
		"write|"+filepath.Join(w, ".warden"),
		"mkdir|"+filepath.Join(w, ".agents"),
		"mkdir|"+filepath.Join(w, "sub", ".git"), "mkdir|"+filepath.Join(w, "sub", ".git", "hooks"),
		"rename|"+filepath.Join(w, "innocent")+"|"+filepath.Join(w, "vendor", ".git"),
		"write|"+filepath.Join(vendored, "index"),
		"write|"+filepath.Join(w, "new.go"))
	for i, g := range got {
		want := "ok" // the kernel cannot refuse creating a protected name
		if i == 8 {
			want = "errno=EROFS" // a nested one that exists is bound read-only
		}
		if g != want {
			t.Fatalf("operation %d: %s, want %s", i, g, want)
		}
	}
	moved, err := watch.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(w, ".agents"), filepath.Join(w, ".git"), filepath.Join(w, ".warden"),
		filepath.Join(w, "sub", ".git"), filepath.Join(w, "vendor", ".git")}
	var paths []string
	for _, q := range moved {
		paths = append(paths, q.Path)
		if !strings.HasPrefix(q.To, filepath.Join(home, "quarantine")+"/") {
			t.Errorf("%s moved to %s, outside the quarantine", q.Path, q.To)
		}
		if _, err := os.Lstat(q.To); err != nil {
			t.Errorf("quarantined copy of %s: %v", q.Path, err)
		}
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("moved %v, want %v", paths, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still in the workspace", p)
		}
	}
	if _, err := os.Stat(filepath.Join(vendored, "index")); err == nil {
		t.Error("a nested .git that existed was written")
	}
	for _, keep := range []string{vendored, filepath.Join(w, "new.go"), filepath.Join(w, "main.go")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: %v", keep, err)
		}
	}
	if again, err := watch.Sweep(); len(again) != 0 || err != nil {
		t.Errorf("second sweep: %v, %v", again, err)
	}
}

// Warden's own state is protected in every mode even when it lies in a
// writable root and does not exist yet: a workspace equal to $HOME cannot
// plant ~/.warden/config.toml.
func TestG15_StateProtectedInWorkspace(t *testing.T) {
	requireNamespaces(t)
	w := mkdir(t, scratch(t), "home")
	home := filepath.Join(w, ".warden-state")
	t.Setenv(wardenhome.EnvHome, home)
	t.Setenv("HOME", w)
	managed := filepath.Join(w, "managed.toml")
	t.Setenv(wardenhome.EnvManagedConfig, managed)
	sp := statePaths()
	for _, want := range []string{home, filepath.Join(w, ".warden"), managed} {
		if !contains(sp, want) {
			t.Errorf("statePaths() = %v, lacks %s", sp, want)
		}
	}
	for _, m := range []Mode{WorkspaceWrite, ReadOnly} {
		p := Policy{Mode: m, Workdir: w}
		watch, err := p.Watch()
		if err != nil {
			t.Fatal(err)
		}
		got := run(t, p, "write|"+filepath.Join(home, "config.toml"), "write|"+filepath.Join(w, ".warden", "config.toml"), "write|"+managed)
		// Hidden behind an empty, read-only cover (EACCES), or bound
		// read-only (EROFS): either way nothing is written.
		if got[0] == "ok" || got[1] == "ok" {
			t.Errorf("%s: writing warden's state: %v", m, got)
		}
		moved, err := watch.Sweep()
		if err != nil {
			t.Fatal(err)
		}
		if m == WorkspaceWrite && (len(moved) != 1 || moved[0].Path != managed) {
			t.Errorf("%s: moved %v, want the planted managed config", m, moved)
		}
		for _, f := range []string{filepath.Join(home, "config.toml"), filepath.Join(w, ".warden", "config.toml"), managed} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s: %s was planted", m, f)
			}
		}
		if p.CanWrite(filepath.Join(home, "config.toml")) || p.CanWrite(managed) {
			t.Errorf("%s: CanWrite allows warden's state", m)
		}
	}
}

// Hints name what was really blocked, from what real commands print under
// the sandbox, and the narrowest flag that allows it, with symbolic links
// resolved: a write through a link that leads outside suggests the
// directory it leads to, never the link.
func TestG2_HintsNameWhatWasBlocked(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	out := scratch(t)
	victim := writeFile(t, filepath.Join(out, "victim"), "keep\n")
	for _, c := range []struct {
		name, cmd      string
		needs          string // a program the case needs
		kind, allow    string
		path, resolved string
		dns, protected bool
		readOnly       bool
	}{
		{name: "write outside", cmd: "echo x > " + filepath.Join(out, "new"), kind: KindWrite, allow: "--writable-root " + out,
			path: filepath.Join(out, "new"), resolved: filepath.Join(out, "new")},
		{name: "write through a link", cmd: "ln -sfn " + out + " cache && echo x > cache/f", kind: KindWrite, allow: "--writable-root " + out,
			path: filepath.Join(w, "cache", "f"), resolved: filepath.Join(out, "f")},
		{name: "protected", cmd: "echo x >> .git/config", kind: KindWrite, allow: "--sandbox full-access",
			path: filepath.Join(w, ".git", "config"), resolved: filepath.Join(w, ".git", "config"), protected: true},
		{name: "chmod", cmd: "chmod 000 " + victim, kind: KindMetadata, allow: "--writable-root " + out, path: victim, resolved: victim},
		{name: "touch", cmd: "touch -d 1999-01-01 " + victim, kind: KindMetadata, allow: "--writable-root " + out, path: victim, resolved: victim},
		{name: "read of another process", cmd: "cat /proc/1/environ >/dev/null", kind: KindRead, allow: "--sandbox full-access",
			path: "/proc/1/environ", resolved: "/proc/1/environ"},
		{name: "network configuration", cmd: "ip link set lo down", needs: "ip", kind: KindPrivilege, allow: "--sandbox full-access"},
		{name: "mount", cmd: "mount -t tmpfs none " + w, needs: "mount", kind: KindPrivilege, allow: "--sandbox full-access"},
		{name: "dns", cmd: "curl -sS http://example.com/", needs: "curl", kind: KindNetwork, allow: "--network", dns: true},
		{name: "unix socket", cmd: "python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect(\"/run/x\")'", needs: "python3",
			kind: KindNetwork, allow: "--network"},
		{name: "read-only in workdir", cmd: "echo x > new.txt", readOnly: true, kind: KindWrite, allow: "--sandbox workspace-write",
			path: filepath.Join(w, "new.txt"), resolved: filepath.Join(w, "new.txt")},
		{name: "read-only outside", cmd: "echo x > " + filepath.Join(out, "ro"), readOnly: true, kind: KindWrite,
			allow: "--sandbox workspace-write --writable-root " + out, path: filepath.Join(out, "ro"), resolved: filepath.Join(out, "ro")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needs != "" {
				if _, err := exec.LookPath(c.needs); err != nil {
					t.Skipf("no %s on this machine", c.needs)
				}
			}
			p := Policy{Mode: WorkspaceWrite, Workdir: w}
			if c.readOnly {
				p.Mode = ReadOnly
			}
			cmd, err := p.Command(context.Background(), "sh", "-c", c.cmd)
			if err != nil {
				t.Fatal(err)
			}
			output, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("not blocked: %s", output)
			}
			b, ok := p.Blocked(string(output), nil)
			if !ok || b.Kind != c.kind || b.Path != c.path || b.Resolved != c.resolved || b.DNS != c.dns || b.Protected != c.protected {
				t.Errorf("Blocked(%q) = %+v, %v", output, b, ok)
			}
			if got := p.Allow(b); got != c.allow {
				t.Errorf("Allow = %q, want %q (output %q)", got, c.allow, output)
			}
			if strings.Contains(p.Explain(b), "write") != (c.kind == KindWrite) {
				t.Errorf("Explain = %q", p.Explain(b))
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("victim = %q", b)
	}
}

// Where the kernel cannot make the read-only view (before Linux 5.12),
// commands keep their namespaces — the network stays cut, the PID
// namespace kills what they leave — and Landlock keeps writes out.
func TestG1_WithoutViewKeepsNamespaces(t *testing.T) {
	requireNamespaces(t)
	saved := viewProbe
	viewProbe = func() error { return errors.New("disabled by the test") }
	defer func() { viewProbe = saved }()
	w := repo(t)
	out := scratch(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	s, err := p.spec(nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.View || !s.PIDNS || s.NetNS == "" || !s.MountNS {
		t.Fatalf("spec = %+v", s)
	}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(out, "x"), "errno=EACCES"},
		{"append|" + filepath.Join(w, ".git", "config"), "errno=EROFS"},
		{"write|" + filepath.Join(w, "ok"), "ok"},
		{"ifaces", "lo"},
	})
}

// Contain gives a full-access command a PID namespace and nothing else: it
// keeps its privileges, sees its own /proc, and what it leaves behind ends
// with it.
func TestContainKeepsPrivilegesAndKillsTheTree(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "caps", "pid")
	if err := Contain(cmd); err != nil {
		t.Skipf("no PID namespaces without a user namespace here: %v", err)
	}
	cmd.Env = childEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "CapEff:0000000000000000") || !strings.Contains(lines[0], "NoNewPrivs:0") {
		t.Errorf("contained command lost privileges: %q", out)
	}
	// The helper is 1, its threads take the next few numbers.
	if pid, err := strconv.Atoi(lines[len(lines)-1]); err != nil || pid < 2 || pid > 64 {
		t.Errorf("pid = %s, want one of a new PID namespace", lines[len(lines)-1])
	}
	// A process that left the session holds a lock for 30 s: once the
	// contained command has returned, the lock must be free, its holder
	// killed with the namespace. (A lock, not a timed marker, so that a
	// slow machine cannot pass for a survivor.)
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) here")
	}
	dir := t.TempDir()
	lock, ready := filepath.Join(dir, "lock"), filepath.Join(dir, "ready")
	cmd = exec.Command("sh", "-c", "setsid sh -c 'exec 9>"+lock+"; flock 9; touch "+ready+"; sleep 30' </dev/null >/dev/null 2>&1 & "+
		"while [ ! -e "+ready+" ]; do sleep 0.01; done; echo started")
	if err := Contain(cmd); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "started" {
		t.Fatalf("%v: %q", err, out)
	}
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("a process that left the session outlived the contained command (its lock is still held: %v)", err)
		}
	}
}

// TestG15_StateHiddenFromReads: a sandboxed command cannot read warden's
// own state — the key that authenticates a person's overrides, the
// transcripts — in any mode, also when the workspace is the home directory
// that holds it; with it, an agent could forge an override.
func TestG15_StateHiddenFromReads(t *testing.T) {
	requireNamespaces(t)
	for _, c := range []struct {
		name   string
		inside bool // the state home lies in the workspace
	}{{"state apart", false}, {"workspace is the home", true}} {
		w := mkdir(t, scratch(t), "work")
		home := filepath.Join(scratch(t), "state")
		if c.inside {
			home = filepath.Join(w, ".warden-state")
		}
		t.Setenv(wardenhome.EnvHome, home)
		t.Setenv("HOME", w)
		key := writeFile(t, filepath.Join(mkdir(t, home, "keys"), "override.key"), "SECRET-KEY\n")
		transcript := writeFile(t, filepath.Join(mkdir(t, home, "runs"), "r1.jsonl"), "{}\n")
		token := writeFile(t, filepath.Join(home, "token"), "SECRET-TOKEN\n")
		for _, m := range []Mode{WorkspaceWrite, ReadOnly} {
			p := Policy{Mode: m, Workdir: w}
			got := run(t, p, "read|"+key, "read|"+transcript, "read|"+token)
			for i, g := range got {
				if g == "ok" {
					t.Errorf("%s, %s: read %d of warden's state succeeded", c.name, m, i)
				}
			}
			// The effect a reader would want: the key's bytes.
			out, _ := exec.Command("cat", key).Output()
			if string(out) != "SECRET-KEY\n" {
				t.Fatalf("the key changed: %q", out)
			}
			cmd, err := p.Command(context.Background(), "cat", key, token)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Dir = w
			b, _ := cmd.CombinedOutput()
			if strings.Contains(string(b), "SECRET") {
				t.Errorf("%s, %s: a sandboxed cat printed warden's secrets: %s", c.name, m, b)
			}
		}
	}
}
