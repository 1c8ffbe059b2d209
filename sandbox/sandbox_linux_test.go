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
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/sandbox/internal/confine"
)

func TestG1_WriteInsideWorkdirWorks(t *testing.T) {
	requireSandbox(t)
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(w, "new.txt"), "ok"}, // a new file at the top
		{"append|" + filepath.Join(w, "main.go"), "ok"},
		{"mkdir|" + filepath.Join(w, "newdir"), "ok"},
		{"write|" + filepath.Join(w, "sub", "x"), "ok"},
		{"rename|" + filepath.Join(w, "sub", "x") + "|" + filepath.Join(w, "y"), "ok"}, // across directories
		{"remove|" + filepath.Join(w, "y"), "ok"},
		{"symlink|main.go|" + filepath.Join(w, "link"), "ok"},
		{"write|/dev/null", "ok"},
	})
}

func TestG1_WriteOutsideRootsFails(t *testing.T) {
	requireSandbox(t)
	outside := outsideErrno()
	w := repo(t)
	out := scratch(t)
	existing := writeFile(t, filepath.Join(out, "existing"), "keep\n")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(out, "new"), outside},
		{"append|" + existing, outside},
		{"write|" + existing, outside},
		{"mkdir|" + filepath.Join(out, "d"), outside},
		{"remove|" + existing, outside},
		{"rename|" + existing + "|" + filepath.Join(w, "stolen"), crossMount(outside)},
		{"read|" + existing, "ok"},
	})
	if b, _ := os.ReadFile(existing); string(b) != "keep\n" {
		t.Errorf("existing = %q", b)
	}
}

// A write outside the roots fails with EACCES; deniedKind recognises it as a
// write; once the escalation is approved (the directory becomes a writable
// root) the same write succeeds.
func TestG2_WriteSucceedsAfterEscalation(t *testing.T) {
	requireSandbox(t)
	w := repo(t)
	out := scratch(t)
	target := filepath.Join(out, "report.txt")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}

	cmd, err := p.Command(context.Background(), "sh", "-c", "echo hi > "+target)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = w
	output, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("write outside the roots succeeded: %s", output)
	}
	kind, ok := p.deniedKind(string(output), err)
	if !ok || kind != KindWrite {
		t.Fatalf("deniedKind(%q) = %q, %v; want write", output, kind, ok)
	}
	if !strings.Contains(string(output), "Permission denied") && !strings.Contains(string(output), "Read-only file system") {
		t.Errorf("output = %q, want Permission denied (EACCES) or Read-only file system (EROFS)", output)
	}
	if p.CanWrite(target) {
		t.Error("CanWrite before the escalation")
	}

	approved := p
	approved.WritableRoots = append(approved.WritableRoots, out)
	expect(t, approved, [][2]string{{"write|" + target, "ok"}})
	if !approved.CanWrite(target) {
		t.Error("CanWrite after the escalation")
	}
	full := Policy{Mode: FullAccess, Workdir: w}
	expect(t, full, [][2]string{{"write|" + filepath.Join(out, "full"), "ok"}})
}

func TestG1_ReadOnlyBlocksWorkdirWrites(t *testing.T) {
	requireSandbox(t)
	outside := outsideErrno()
	w := repo(t)
	p := Policy{Mode: ReadOnly, Workdir: w}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(w, "new.txt"), outside},
		{"append|" + filepath.Join(w, "main.go"), outside},
		{"mkdir|" + filepath.Join(w, "d"), outside},
		{"read|" + filepath.Join(w, "main.go"), "ok"},
		{"write|/dev/null", "ok"},
	})
	if p.CanWrite(filepath.Join(w, "main.go")) {
		t.Error("CanWrite in read-only mode")
	}
}

func TestG1_SymlinkOutsideRootsFails(t *testing.T) {
	requireSandbox(t)
	outside := outsideErrno()
	w := repo(t)
	out := scratch(t)
	victim := writeFile(t, filepath.Join(out, "victim"), "keep\n")
	symlink(t, out, filepath.Join(w, "outdir"))
	symlink(t, victim, filepath.Join(w, "outfile"))
	symlink(t, filepath.Join(out, "created"), filepath.Join(w, "dangling"))
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(w, "outdir", "f"), outside},
		{"append|" + filepath.Join(w, "outfile"), outside},
		{"write|" + filepath.Join(w, "outfile"), outside},
		{"write|" + filepath.Join(w, "dangling"), outside},
		{"remove|" + filepath.Join(w, "outfile"), "ok"}, // the link itself is in the workdir
	})
	if _, err := os.Stat(filepath.Join(out, "created")); err == nil {
		t.Error("the dangling link's target was created")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("victim = %q", b)
	}
}

func TestG1_SymlinkIntoProtectedPathFails(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	symlink(t, ".git", filepath.Join(w, "g"))
	symlink(t, filepath.Join(w, ".git", "config"), filepath.Join(w, "cfg"))
	symlink(t, filepath.Join(w, ".git", "hooks", "pre-commit"), filepath.Join(w, "hook"))
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	expect(t, p, [][2]string{
		{"append|" + filepath.Join(w, "g", "config"), "errno=EROFS"},
		{"write|" + filepath.Join(w, "g", "hooks", "post-checkout"), "errno=EROFS"},
		{"append|" + filepath.Join(w, "cfg"), "errno=EROFS"},
		{"write|" + filepath.Join(w, "hook"), "errno=EROFS"},
	})
	if _, err := os.Stat(filepath.Join(w, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was created through a link")
	}
}

func TestG1_GitConfigReadOnlyInWritableRepo(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	cfg := filepath.Join(w, ".git", "config")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	expect(t, p, [][2]string{
		{"append|" + cfg, "errno=EROFS"},
		{"write|" + cfg, "errno=EROFS"},
		{"remove|" + cfg, "errno=EROFS"},
		{"chmod|" + cfg, "errno=EROFS"},
		{"write|" + filepath.Join(w, ".git", "hooks", "pre-commit"), "errno=EROFS"},
		{"mkdir|" + filepath.Join(w, ".git", "x"), "errno=EROFS"},
		{"rename|" + filepath.Join(w, ".git") + "|" + filepath.Join(w, "old-git"), "errno=EBUSY"},
		{"remove|" + filepath.Join(w, ".git"), "errno=EBUSY"},
		{"rename|" + filepath.Join(w, "main.go") + "|" + filepath.Join(w, ".git", "main.go"), "errno=EXDEV"},
		{"read|" + cfg, "ok"},
		// With root's capabilities in the sandbox's user namespace, the
		// command could clear the mount's read-only flag: it has none.
		{"unroot|" + filepath.Join(w, ".git"), "errno=EPERM"},
		{"umount|" + filepath.Join(w, ".git"), "errno=EPERM"},
		{"append|" + cfg, "errno=EROFS"},
		{"write|" + filepath.Join(w, "sub", "ok"), "ok"},
		{"write|" + filepath.Join(w, "top-level-ok"), "ok"},
	})
	if b, _ := os.ReadFile(cfg); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
	if p.CanWrite(cfg) || p.CanWrite(filepath.Join(w, ".git", "hooks", "x")) {
		t.Error("CanWrite says .git is writable")
	}
	// The parent, outside the sandbox, still writes it.
	writeFile(t, cfg, "[core]\n\tbare = false\n")
}

// A .git file "gitdir: PATH" (worktrees, submodules) protects PATH too,
// even when PATH lies in another writable root.
func TestG1_GitdirFileProtectsTarget(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	os.RemoveAll(filepath.Join(w, ".git"))
	other := scratch(t) // a writable root
	elsewhere := mkdir(t, other, "gitdir")
	gitdir := mkdir(t, elsewhere, "worktrees", "wt")
	writeFile(t, filepath.Join(gitdir, "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(gitdir, "commondir"), "../..\n")
	writeFile(t, filepath.Join(elsewhere, "config"), "[core]\n")
	dotgit := writeFile(t, filepath.Join(w, ".git"), "gitdir: "+gitdir+"\n")

	p := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{other}}
	prot, err := p.protectedAll()
	if err != nil {
		t.Fatal(err)
	}
	realElsewhere, _ := filepath.EvalSymlinks(elsewhere)
	for _, want := range []string{filepath.Join(realElsewhere, "worktrees", "wt"), realElsewhere, dotgit} {
		if !contains(prot, want) {
			t.Errorf("protectedAll() = %v, missing %s", prot, want)
		}
	}
	expect(t, p, [][2]string{
		{"append|" + dotgit, "errno=EROFS"},
		{"remove|" + dotgit, "errno=EBUSY"},
		{"write|" + filepath.Join(gitdir, "HEAD"), "errno=EROFS"},
		{"write|" + filepath.Join(elsewhere, "config"), "errno=EROFS"}, // the common dir
		{"write|" + filepath.Join(other, "x"), "ok"},                   // the rest of the root
	})

	// A relative gitdir is taken relative to the .git file.
	writeFile(t, dotgit, "gitdir: ../repo-git\n")
	rel := mkdir(t, filepath.Dir(w), "repo-git")
	p2 := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{filepath.Dir(w)}}
	expect(t, p2, [][2]string{
		{"write|" + filepath.Join(rel, "HEAD"), "errno=EROFS"},
		{"write|" + filepath.Join(filepath.Dir(w), "sibling"), "ok"},
	})
}

func TestG1_WardenAndAgentsProtected(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	writeFile(t, filepath.Join(w, ".warden", "policy.yaml"), "approvers: []\n")
	writeFile(t, filepath.Join(w, ".agents", "AGENTS.md"), "be nice\n")
	extra := mkdir(t, scratch(t), "extra")
	writeFile(t, filepath.Join(extra, ".agents", "x"), "x\n")
	p := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{extra}}
	expect(t, p, [][2]string{
		{"append|" + filepath.Join(w, ".warden", "policy.yaml"), "errno=EROFS"},
		{"write|" + filepath.Join(w, ".warden", "new.yaml"), "errno=EROFS"},
		{"append|" + filepath.Join(w, ".agents", "AGENTS.md"), "errno=EROFS"},
		{"append|" + filepath.Join(extra, ".agents", "x"), "errno=EROFS"},
		{"write|" + filepath.Join(extra, "y"), "ok"},
	})
}

func TestG1_NetworkOffBlocksLoopbackConnect(t *testing.T) {
	requireSandbox(t)
	addr := nettest.Listen(t)
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	got := run(t, p, "connect|"+addr, "connect|1.1.1.1:53", "dialmsg|"+addr, "dialmsg|1.1.1.1:53")
	if got[0] != "errno=ECONNREFUSED" {
		t.Errorf("connect to the parent's listener with the network off: %s", got[0])
	}
	if got[1] != "errno=ENETUNREACH" {
		t.Errorf("connect to 1.1.1.1 with the network off: %s", got[1])
	}
	for _, msg := range got[2:] {
		if kind, ok := p.deniedKind(msg, nil); !ok || kind != KindNetwork {
			t.Errorf("deniedKind(%q) = %q, %v", msg, kind, ok)
		}
		if _, ok := (Policy{Mode: WorkspaceWrite, NetworkAccess: true}).deniedKind(msg, nil); ok {
			t.Errorf("deniedKind with the network on recognises %q", msg)
		}
	}
	ro := Policy{Mode: ReadOnly, Workdir: w}
	if got := run(t, ro, "connect|"+addr); got[0] == "ok" {
		t.Errorf("read-only, network off: connect ok")
	}
}

func TestG1_NetworkOnAllowsConnect(t *testing.T) {
	requireSandbox(t)
	addr := nettest.Listen(t)
	w := repo(t)
	for _, m := range []Mode{WorkspaceWrite, ReadOnly, FullAccess} {
		p := Policy{Mode: m, Workdir: w, NetworkAccess: true}
		if got := run(t, p, "connect|"+addr); got[0] != "ok" {
			t.Errorf("%s, network on: connect = %s", m, got[0])
		}
	}
}

// Inside a sandbox without network a command can still serve itself on
// its own loopback interface (tests that start local servers work).
func TestG1_NetworkOffKeepsOwnLoopback(t *testing.T) {
	requireNamespaces(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: repo(t)}
	got := run(t, p, "selfloop", "ifaces")
	if got[0] != "ok" || got[1] != "lo" {
		t.Errorf("own loopback: %s; interfaces: %s; want ok, lo", got[0], got[1])
	}
}

// Sandboxed commands hold no capabilities, even when warden runs as root,
// cannot gain any (no_new_privs), and cannot make user namespaces of their
// own.
func TestG1_NoCapabilities(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	const none = "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000"
	for _, p := range []Policy{{Mode: WorkspaceWrite, Workdir: w}, {Mode: ReadOnly, Workdir: w, NetworkAccess: true}} {
		got := run(t, p, "caps", "unshare-user")
		if !strings.HasPrefix(got[0], none) || !strings.Contains(got[0], "CapAmb:0000000000000000") || !strings.Contains(got[0], "NoNewPrivs:1") {
			t.Errorf("%s: %s", p.Mode, got[0])
		}
		if os.Geteuid() == 0 && !strings.Contains(got[0], "CapBnd:0000000000000000") {
			t.Errorf("%s: bounding set kept: %s", p.Mode, got[0])
		}
		if got[1] == "ok" {
			t.Errorf("%s: a nested user namespace was created", p.Mode)
		}
	}
}

func TestG1_ParentStaysUnrestricted(t *testing.T) {
	requireSandbox(t)
	w := repo(t)
	out := scratch(t)
	p := Policy{Mode: ReadOnly, Workdir: w}
	for range 3 {
		run(t, p, "write|"+filepath.Join(out, "x"))
	}
	run(t, Policy{Mode: WorkspaceWrite, Workdir: w}, "write|"+filepath.Join(out, "x"))
	writeFile(t, filepath.Join(out, "parent"), "still free\n")
	writeFile(t, filepath.Join(w, ".git", "config"), "[core]\n")
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "NoNewPrivs:\t0") {
		t.Error("the parent has no_new_privs set")
	}
	// A plain child of the parent is not restricted either.
	if err := exec.Command("sh", "-c", "echo x > "+filepath.Join(out, "plain")).Run(); err != nil {
		t.Errorf("plain child: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("parent listen: %v", err)
	}
	ln.Close()
}

// CanWrite, the user-space decision, agrees with the kernel.
func TestG1_CanWriteAgreesWithKernel(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	out := scratch(t)
	writeFile(t, filepath.Join(out, "file"), "x\n")
	writeFile(t, filepath.Join(w, ".warden", "w.yaml"), "x\n")
	symlink(t, out, filepath.Join(w, "to-out"))
	symlink(t, ".git", filepath.Join(w, "to-git"))
	symlink(t, "sub", filepath.Join(w, "to-sub"))
	symlink(t, filepath.Join(out, "nothing"), filepath.Join(w, "dangling-out"))
	symlink(t, "sub/made-by-link", filepath.Join(w, "dangling-in"))
	extra := mkdir(t, out, "extra")
	p := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{extra}}
	paths := []string{
		filepath.Join(w, "main.go"),
		filepath.Join(w, "fresh.txt"),
		filepath.Join(w, "sub", "a"),
		"relative.txt",
		"sub/../sub/rel2.txt",
		filepath.Join(w, ".git", "config"),
		filepath.Join(w, ".git", "hooks", "h"),
		filepath.Join(w, ".warden", "w.yaml"),
		filepath.Join(out, "file"),
		filepath.Join(out, "new"),
		filepath.Join(extra, "e"),
		filepath.Join(w, "to-out", "x"),
		filepath.Join(w, "to-git", "config"),
		filepath.Join(w, "to-sub", "y"),
		filepath.Join(w, "dangling-out"),
		filepath.Join(w, "dangling-in"),
		filepath.Join(w, "sub", "..", "..", "escape"),
		"/dev/null",
		"/etc/hostname-warden-test",
	}
	// The host's temporary directories are not the command's (it has
	// private ones): warden's own process may not write there for it.
	if tmp := filepath.Join(os.TempDir(), "warden-canwrite-"+strconv.Itoa(os.Getpid())); p.CanWrite(tmp) {
		t.Errorf("CanWrite(%s) in the host's temporary directory", tmp)
	}
	for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
		p.Mode = mode
		ops := make([]string, len(paths))
		for i, path := range paths {
			ops[i] = "write|" + path
			if strings.HasSuffix(path, "config") || strings.HasSuffix(path, "w.yaml") || strings.HasSuffix(path, "main.go") {
				ops[i] = "append|" + path // do not truncate what others check
			}
		}
		got := run(t, p, ops...)
		for i, path := range paths {
			kernel := got[i] == "ok"
			if user := p.CanWrite(path); user != kernel {
				t.Errorf("%s: CanWrite(%s) = %v, kernel: %s", mode, path, user, got[i])
			}
		}
	}
}

func TestG1_FullAccessRunsUnrestricted(t *testing.T) {
	w := repo(t)
	out := scratch(t)
	p := Policy{Mode: FullAccess, Workdir: w}
	cmd, err := p.Command(context.Background(), "true")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := exec.LookPath("true"); cmd.Path != want || cmd.SysProcAttr != nil {
		t.Errorf("full-access command: Path %q, SysProcAttr %v; want a plain command", cmd.Path, cmd.SysProcAttr)
	}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(out, "f"), "ok"},
		{"append|" + filepath.Join(w, ".git", "config"), "ok"},
	})
	if !p.CanWrite(filepath.Join(out, "f")) {
		t.Error("CanWrite in full-access mode")
	}
}

// Without user namespaces, Landlock alone enforces the policy: protected
// paths by granting write on the entries of their parent directories
// instead of the directories themselves, the network off by Landlock TCP
// rules.
func TestG2_LandlockOnlyFallback(t *testing.T) {
	abi, err := Supported()
	if err != nil || abi < 4 {
		t.Skip("needs Landlock ABI 4")
	}
	saved := userNamespaces
	userNamespaces = func() error { return errors.New("disabled by the test") }
	defer func() { userNamespaces = saved }()

	addr := nettest.Listen(t)
	w := repo(t)
	mkdir(t, w, ".git", "objects", "ab")
	out := scratch(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	cmd, err := p.Command(context.Background(), "true")
	if err != nil {
		t.Fatal(err)
	}
	if cmd.SysProcAttr.Cloneflags != 0 {
		t.Fatalf("namespaces requested: %#x", cmd.SysProcAttr.Cloneflags)
	}
	expect(t, p, [][2]string{
		{"append|" + filepath.Join(w, ".git", "config"), "errno=EACCES"},
		{"write|" + filepath.Join(w, ".git", "hooks", "pre-commit"), "errno=EACCES"},
		{"write|" + filepath.Join(w, ".git", "objects", "ab", "cd"), "errno=EACCES"},
		{"remove|" + filepath.Join(w, ".git", "config"), "errno=EACCES"},
		{"rename|" + filepath.Join(w, ".git") + "|" + filepath.Join(w, "g2"), "errno=EACCES"},
		{"append|" + filepath.Join(w, "main.go"), "ok"},
		{"write|" + filepath.Join(w, "sub", "new"), "ok"},
		{"write|" + filepath.Join(w, "top-level"), "errno=EACCES"}, // the price of Landlock alone
		{"write|" + filepath.Join(out, "x"), "errno=EACCES"},
		{"connect|" + addr, "errno=EACCES"},
	})
	p.NetworkAccess = true
	expect(t, p, [][2]string{{"connect|" + addr, "ok"}})
}

func TestG2_RefusedWithoutLandlockUnlessUnenforced(t *testing.T) {
	saved := abiOnce
	abiOnce = func() (int, error) {
		return 0, errors.New("sandbox: Landlock is unavailable: " + ErrUnsupported.Error())
	}
	defer func() { abiOnce = saved }()
	w := repo(t)
	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		_, err := Policy{Mode: m, Workdir: w}.Command(context.Background(), "true")
		if err == nil || !strings.Contains(err.Error(), "--sandbox-unenforced") || !strings.Contains(err.Error(), string(m)) {
			t.Errorf("%s without Landlock: err = %v", m, err)
		}
	}
	if _, err := (Policy{Mode: FullAccess, Workdir: w}).Command(context.Background(), "true"); err != nil {
		t.Errorf("full-access without Landlock: %v", err)
	}
	out := scratch(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w, Unenforced: true, NetworkAccess: true}
	// Landlock is missing; the read-only view still applies where there
	// are namespaces.
	want := "ok"
	if viewSupported() == nil {
		want = "errno=EROFS"
	}
	expect(t, p, [][2]string{{"write|" + filepath.Join(out, "x"), want}})
}

func TestWrapKeepsSysProcAttrAndChecksNamespaces(t *testing.T) {
	requireNamespaces(t)
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	cmd := exec.Command("sh", "-c", "ps -o pgid= -p $$; echo $$")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if err := p.Wrap(cmd); err == nil {
		t.Error("wrapping twice: no error")
	}
	if !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWUSER == 0 {
		t.Errorf("SysProcAttr = %+v", cmd.SysProcAttr)
	}
	cmd.Dir = w
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if cmd.Process.Pid <= 0 {
		t.Fatal("no pid")
	}

	// Replacing SysProcAttr drops the namespaces: the helper refuses.
	cmd2, err := p.Command(context.Background(), "true")
	if err != nil {
		t.Fatal(err)
	}
	cmd2.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd2.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != confine.ExitSetup || !strings.Contains(string(out), "warden: sandbox: not in a new user namespace") {
		t.Errorf("replaced SysProcAttr: %v, %s", err, out)
	}
	if _, ok := deniedKind(string(out), nil); ok {
		t.Error("deniedKind takes the helper's setup failure for a blocked action")
	}
}

func TestHelperExitStatuses(t *testing.T) {
	requireSandbox(t)
	p := Policy{Mode: ReadOnly, Workdir: repo(t)}
	cmd, err := p.Command(context.Background(), "/nonexistent/program")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != confine.ExitNotFound {
		t.Errorf("missing program: %v, %s", err, out)
	}
	if _, err := p.Command(context.Background(), "no-such-program-warden"); err != nil {
		t.Errorf("Command: %v (the lookup error belongs to Start)", err)
	}
	cmd, _ = p.Command(context.Background(), "no-such-program-warden")
	if err := cmd.Run(); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Run of a missing program: %v", err)
	}
	cmd, _ = p.Command(context.Background(), "sh", "-c", "exit 7")
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("exit 7: %v", err)
	}
}

// The helper's marker reaches neither the command's environment nor its
// command line.
func TestHelperLeavesNoMarker(t *testing.T) {
	requireSandbox(t)
	w := repo(t)
	got := run(t, Policy{Mode: WorkspaceWrite, Workdir: w}, "env", "cmdline")
	if strings.Contains(got[0], "warden_sandbox") || strings.Contains(got[0], confine.Arg0) {
		t.Errorf("environment leaks the marker: %s", got[0])
	}
	if strings.Contains(got[1], confine.Arg0) || strings.Contains(got[1], confine.Marker) || !strings.Contains(got[1], "cmdline") {
		t.Errorf("command line = %q", got[1])
	}
}

func TestSupported(t *testing.T) {
	abi, err := Supported()
	if err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	if abi < 1 || abi > maxABI {
		t.Errorf("abi = %d", abi)
	}
	t.Logf("Landlock ABI %d; namespaces: %v", abi, Namespaces())
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A sandboxed command does not share warden's controlling terminal, so it
// cannot type into warden's console (TIOCSTI) to answer its prompts.
func TestG1_NoTerminalInjection(t *testing.T) {
	requireNamespaces(t)
	_, tty := ptytest.Open(t)
	w := repo(t)
	exe, _ := os.Executable()
	// The parent stands for warden: a session leader on a terminal.
	parent := exec.Command(exe, "ttyparent|"+w)
	parent.Env = childEnv()
	parent.Stdin = tty
	parent.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out, err := parent.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "errno=ENXIO errno=EPERM" {
		t.Errorf("open /dev/tty, TIOCSTI on the inherited terminal = %q; want errno=ENXIO errno=EPERM", got)
	}
}

// TestG1_UnprivilegedHelperMapsItsOwnIDs proves how an unprivileged user's
// sandbox gets its ID maps: the helper, started without the parent waiting
// to write them (so without copying the parent's memory), maps its own
// user and group ID to themselves and denies setgroups; the command runs
// with those IDs. Run as root, the test runs its parent as nobody.
func TestG1_UnprivilegedHelperMapsItsOwnIDs(t *testing.T) {
	requireNamespaces(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "sandboxed|idmap|setgroups")
	cmd.Env = childEnv()
	uid, gid := os.Geteuid(), os.Getegid()
	if uid == 0 {
		// A copy of this binary that nobody may execute, run as nobody.
		const nobody = 65534
		dir, err := os.MkdirTemp("", "warden-sandbox-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(dir, "sandbox.test")
		if err := os.WriteFile(copied, data, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Path, cmd.Args[0] = copied, copied
		cmd.Dir = "/"
		cmd.Env = append(cmd.Env, "HOME="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		uid, gid = nobody, nobody
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	u, g := strconv.Itoa(uid), strconv.Itoa(gid)
	want := u + " " + u + " 1|" + g + " " + g + " 1|" + u + ":" + g + " deny"
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("ID maps, IDs and setgroups in the sandbox = %q; want %q", got, want)
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
