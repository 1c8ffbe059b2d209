package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/nettest"
	"github.com/wardenhq/warden/sandbox"
)

// wardenExec runs `warden exec ARGS` in-process in dir. The sandboxed
// command is started through this test binary, whose sandbox package
// init turns it into the sandbox helper before the tests would start.
func wardenExec(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := execCmd(args, &out, &errb)
	return code, out.String(), errb.String()
}

// requireSandbox skips a test where the kernel cannot enforce the sandbox.
func requireSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.Supported(); err != nil {
		t.Skipf("no Landlock: %v", err)
	}
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces: %v", err)
	}
}

// requireWardenExec skips a test where the built warden cannot run a
// command in its sandbox (warden exec -- true fails).
func requireWardenExec(t *testing.T) {
	t.Helper()
	if exitCode(exec.Command(binary(t), "exec", "--", "true").Run()) != 0 {
		t.Skip("the sandbox cannot run here")
	}
}

// outsideDir returns a new directory outside the temporary directories
// (which are writable roots), removed when the test ends.
func outsideDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{"/var/tmp", os.Getenv("HOME")} {
		if base == "" {
			continue
		}
		if dir, err := os.MkdirTemp(base, "warden-exec-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	t.Skip("no directory outside the temporary directories")
	return ""
}

// project makes a workdir with a .git directory.
func project(t *testing.T) string {
	t.Helper()
	w := filepath.Join(outsideDir(t), "project")
	if err := os.MkdirAll(filepath.Join(w, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w, ".git"), "config", "[core]\n")
	return w
}

func TestExec_PassesOutputAndExitStatus(t *testing.T) {
	requireSandbox(t)
	w := project(t)
	code, out, errs := wardenExec(t, w, "--", "sh", "-c", "pwd; echo oops >&2; exit 3")
	if code != 3 || out != w+"\n" || errs != "oops\n" {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = wardenExec(t, w, "sh", "-c", "echo made > made.txt && cat made.txt")
	if code != 0 || out != "made\n" {
		t.Errorf("write in the working directory: code %d, stdout %q", code, out)
	}
}

func TestExec_BlockedWriteIsReported(t *testing.T) {
	requireSandbox(t)
	w := project(t)
	out := outsideDir(t)
	target := filepath.Join(out, "x.txt")
	code, _, errs := wardenExec(t, w, "--", "sh", "-c", "echo x > "+target)
	if code == 0 {
		t.Fatalf("write outside the roots succeeded")
	}
	if !strings.Contains(errs, "Permission denied") && !strings.Contains(errs, "Read-only file system") {
		t.Errorf("stderr lacks the command's own error:\n%s", errs)
	}
	for _, want := range []string{
		"warden: blocked by the sandbox (workspace-write): write outside the writable roots: " + target,
		"--writable-root " + out + ",",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the file was written")
	}

	// The escalation the hint suggests works.
	code, _, errs = wardenExec(t, w, "--writable-root", out, "--", "sh", "-c", "echo x > "+target)
	if code != 0 || strings.Contains(errs, "blocked") {
		t.Errorf("with --writable-root: code %d, stderr %q", code, errs)
	}
}

func TestExec_GitConfigStaysReadOnly(t *testing.T) {
	requireSandbox(t)
	w := project(t)
	code, _, errs := wardenExec(t, w, "sh", "-c", "echo '[x]' >> .git/config")
	if code == 0 || !strings.Contains(errs, "Read-only file system") ||
		!strings.Contains(errs, "write to a protected path: "+filepath.Join(w, ".git", "config")) ||
		!strings.Contains(errs, "--sandbox full-access") {
		t.Errorf("code %d, stderr:\n%s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(w, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
}

func TestExec_ReadOnlyMode(t *testing.T) {
	requireSandbox(t)
	w := project(t)
	code, out, errs := wardenExec(t, w, "--sandbox", "read-only", "--", "sh", "-c", "cat .git/config; echo x > new.txt")
	if code == 0 || out != "[core]\n" || !strings.Contains(errs, "blocked by the sandbox (read-only)") || !strings.Contains(errs, "--sandbox workspace-write") {
		t.Errorf("code %d, stdout %q, stderr:\n%s", code, out, errs)
	}
	code, _, _ = wardenExec(t, w, "--sandbox", "full-access", "--", "sh", "-c", "echo x >> .git/config")
	if code != 0 {
		t.Errorf("full-access: code %d", code)
	}
}

func TestExec_NetworkOffUnlessAsked(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash (its /dev/tcp)")
	}
	_, port, _ := net.SplitHostPort(nettest.Listen(t))
	w := project(t)
	dial := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"
	code, out, errs := wardenExec(t, w, "--", "bash", "-c", dial)
	if code == 0 || out != "" || !strings.Contains(errs, "blocked by the sandbox (workspace-write): network access") || !strings.Contains(errs, "--network") {
		t.Errorf("network off: code %d, stdout %q, stderr:\n%s", code, out, errs)
	}
	code, out, errs = wardenExec(t, w, "--network", "--", "bash", "-c", dial)
	if code != 0 || out != "connected\n" {
		t.Errorf("--network: code %d, stdout %q, stderr:\n%s", code, out, errs)
	}
}

func TestExec_UsageAndMissingCommand(t *testing.T) {
	w := t.TempDir()
	for _, args := range [][]string{{}, {"--sandbox", "sideways", "--", "true"}, {"--bogus", "true"}, {"--writable-root", "/nonexistent-warden", "true"}} {
		if code, _, errs := wardenExec(t, w, args...); code != exitUsage || errs == "" {
			t.Errorf("%q: code %d, stderr %q", args, code, errs)
		}
	}
	requireSandbox(t)
	if code, _, errs := wardenExec(t, w, "--", "no-such-command-warden"); code != exitNotFound || !strings.Contains(errs, "not found") {
		t.Errorf("missing command: code %d, stderr %q", code, errs)
	}
	if code, _, errs := wardenExec(t, w, "--", "/nonexistent/cmd"); code != exitNotFound || !strings.Contains(errs, "no such file") {
		t.Errorf("missing path: code %d, stderr %q", code, errs)
	}
	if code, _, errs := wardenExec(t, w, "--sandbox-unenforced", "--", "true"); code != 0 {
		t.Errorf("--sandbox-unenforced: code %d, stderr %q", code, errs)
	}
}

// The hint names the directory a write really goes to, never a link that
// leads outside; name resolution and privileged operations say what they
// are and ask for --network and full access.
func TestExec_HintsNameWhatWasBlocked(t *testing.T) {
	requireSandbox(t)
	w := project(t)
	out := outsideDir(t)
	for _, c := range []struct {
		cmd       string
		want      []string
		never     string
		needsProg string
	}{
		{cmd: "ln -sfn " + out + " cache && echo x > cache/f",
			want:  []string{"write outside the writable roots: " + filepath.Join(w, "cache", "f") + " (resolves to " + filepath.Join(out, "f") + ")", "run again with --writable-root " + out + ","},
			never: "--writable-root " + filepath.Join(w, "cache")},
		{cmd: "chmod 000 " + filepath.Join(out, "."), want: []string{"change of metadata", "--writable-root "}},
		{cmd: "curl -sS http://example.com/", needsProg: "curl", want: []string{"name resolution (DNS): the network is off", "--network"}},
		{cmd: "ip link set lo down", needsProg: "ip", want: []string{"a process or privileged operation", "run again with --sandbox full-access"}, never: "write outside"},
	} {
		if c.needsProg != "" {
			if _, err := exec.LookPath(c.needsProg); err != nil {
				t.Logf("skipping %q: no %s", c.cmd, c.needsProg)
				continue
			}
		}
		code, _, errs := wardenExec(t, w, "--", "sh", "-c", c.cmd)
		if code == 0 {
			t.Errorf("%s: not blocked", c.cmd)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.cmd, want, errs)
			}
		}
		if c.never != "" && strings.Contains(errs, c.never) {
			t.Errorf("%s: stderr has %q:\n%s", c.cmd, c.never, errs)
		}
	}
}

// A fresh warden home outside the writable roots: warden's own files
// there (the sandbox probe's cache) are not taken for files the command
// created, and nothing is quarantined.
func TestExec_FreshHomeIsNotQuarantined(t *testing.T) {
	requireSandbox(t)
	w := project(t)
	home := filepath.Join(outsideDir(t), "home") // does not exist yet
	if code, out := (wardenProc{dir: w, env: []string{"WARDEN_HOME=" + home}}).combined(t, "exec", "--", "true"); code != exitOK || out != "" {
		t.Errorf("warden exec: exit %d, output %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, "quarantine")); !os.IsNotExist(err) {
		t.Errorf("something was quarantined under the fresh home (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(home, "cache", "sandbox-probe")); err != nil {
		t.Errorf("the probe was not remembered: %v", err)
	}
}
