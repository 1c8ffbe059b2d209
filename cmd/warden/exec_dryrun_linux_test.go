//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/dryrun"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/sandbox"
	"golang.org/x/sys/unix"
)

func TestG17_ExecDryRunJSONNamesHiddenEffects(t *testing.T) {
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	if err := dryrun.Supported(); err != nil {
		t.Fatalf("user namespaces work, dry runs do not: %v", err)
	}
	work, out := t.TempDir(), outsideDir(t)
	files := map[string]string{work + "/keep": "keep\n", out + "/victim": "victim\n", work + "/run.sh": "#!/bin/sh\necho gone > " + out + "/victim\nrm keep\necho planted > " + out + "/planted\nchmod 600 " + out + "/victim\necho hello\n"}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := wardenExec(t, work, "--dry-run", "--json", "--", "./run.sh")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep effect.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	for p, c := range files {
		if b, err := os.ReadFile(p); err != nil || string(b) != c {
			t.Errorf("%s changed for real: %q, %v", p, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "planted")); err == nil {
		t.Error("planted for real")
	}
	if !slices.Contains(rep.Writes, out+"/victim") || !slices.Contains(rep.Deletes, work+"/keep") || !slices.Contains(rep.Creates, out+"/planted") || len(rep.Chmods) != 1 {
		t.Errorf("the report misses effects: %s", stdout)
	}
	if rep.Output != "hello\n" || rep.Exit != 0 {
		t.Errorf("output %q exit %d", rep.Output, rep.Exit)
	}
	for _, empty := range []string{`"renames": []`, `"network": []`} {
		if !strings.Contains(stdout, empty) {
			t.Errorf("no %s in %s", empty, stdout)
		}
	}
	// The programs it started: the script first, then what it ran.
	if len(rep.Execs) == 0 || rep.Execs[0].Argv[0] != "./run.sh" ||
		!slices.ContainsFunc(rep.Execs, func(e effect.Exec) bool { return slices.Equal(e.Argv, []string{"rm", "keep"}) }) {
		t.Errorf("execs: %+v", rep.Execs)
	}
	code, stdout, _ = wardenExec(t, work, "--dry-run", "--dry-run-timeout", "300ms", "--", "sleep", "30")
	if code != exitOK || !strings.Contains(stdout, "stopped") {
		t.Errorf("timeout: exit %d, %q", code, stdout)
	}
	if code, _, _ := wardenExec(t, work, "--json", "--", "true"); code != exitUsage {
		t.Errorf("--json without --dry-run: exit %d, want %d", code, exitUsage)
	}
}

// TestG17_ExecDryRunLeavesTheConsoleAlone runs warden exec --dry-run on a
// pseudo-terminal that is its controlling terminal and stdin: the dry run
// writes to /dev/tty and to the terminal by name, types into it (TIOCSTI)
// by its descriptors, /dev/tty and the name, and reads its stdin; nothing
// reaches the terminal or its input, and what was typed stays for the
// person.
func TestG17_ExecDryRunLeavesTheConsoleAlone(t *testing.T) {
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	master, term := ptytest.Open(t)
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(term.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	// TIOCSTI types into a terminal; by the descriptors it was given and
	// by /dev/tty (python3 where there is one).
	sti := ""
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		sti = `/usr/bin/python3 -c 'import fcntl, os, termios
for f in (0, 1, 2, "/dev/tty", "` + name + `"):
    try:
        fd = f if isinstance(f, int) else os.open(f, os.O_RDWR)
        [fcntl.ioctl(fd, termios.TIOCSTI, bytes([c])) for c in b"echo PWNED\n"]
    except OSError:
        pass
'; `
	}
	script := sti + `printf '\033]0;PWNED\007' > /dev/tty; printf PWNED > ` + name + `; read line; echo "read:$line"`
	c := startOnConsole(t, term, "exec", "--dry-run", "--json", "--", "sh", "-c", script)
	c.ended(t, time.After(30*time.Second))
	ptytest.Quiet(t, master, 300*time.Millisecond)
	var rep effect.Report
	if err := json.Unmarshal([]byte(c.stdout.String()), &rep); err != nil {
		t.Fatalf("%v: %s %s", err, c.stdout.String(), c.stderr.String())
	}
	if rep.Exit != 0 || !strings.Contains(rep.Output, "read:\n") {
		t.Errorf("exit %d, output %q: stdin was not empty", rep.Exit, rep.Output)
	}
	if n, err := unix.IoctlGetInt(int(term.Fd()), unix.TIOCINQ); err != nil || n != 0 {
		t.Errorf("the terminal's input holds %d bytes typed by the dry run (%v)", n, err)
	}
}

// TestG17_ExecDryRunEndsWithWarden kills warden exec --dry-run while its
// command runs: the command ends too, long before its budget.
func TestG17_ExecDryRunEndsWithWarden(t *testing.T) {
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	const mark = "100.4343"
	cmd := exec.Command(binary(t), "exec", "--dry-run", "--dry-run-timeout", "60s", "--", "sleep", mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The command itself, not warden or the helper, whose arguments
	// hold the mark too.
	running := func() bool {
		return slices.ContainsFunc(sandboxtest.Processes(mark), func(p string) bool { return strings.Contains(p, ": sleep ") })
	}
	deadline := time.Now().Add(20 * time.Second)
	for !running() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the dry run's command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline = time.Now().Add(3 * time.Second)
	for len(sandboxtest.Processes(mark)) > 0 {
		if time.Now().After(deadline) {
			left := sandboxtest.Processes(mark)
			for _, p := range left {
				if pid, err := strconv.Atoi(p[:strings.IndexByte(p, ':')]); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			t.Fatalf("the dry run outlived warden: %v", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestG17_ExecDryRunWithoutTheMechanismsRunsNothing runs warden exec
// --dry-run where the kernel gives it no user namespaces (inside one whose
// limit of nested user namespaces is 0, as a kernel built or configured
// without them): it says why, exits with the sandbox's status, prints no
// report, and the command never runs.
func TestG17_ExecDryRunWithoutTheMechanismsRunsNothing(t *testing.T) {
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	// Where a user namespace's limit cannot be set, there is no kernel
	// without user namespaces to stand in.
	if out, err := exec.Command(unshare, "-Ur", "sh", "-c", "echo 0 > /proc/sys/user/max_user_namespaces").CombinedOutput(); err != nil {
		t.Skipf("cannot limit a user namespace's nested ones here: %v %s", err, out)
	}
	work := t.TempDir()
	made := filepath.Join(work, "made")
	// The control: the same command where the kernel allows it runs in
	// the view (made only there) and says so in its report.
	args := []string{"exec", "--dry-run", "--json", "--", "sh", "-c", "echo made > " + made + "; echo RAN"}
	ctl := exec.Command(binary(t), args...)
	ctl.Dir = work
	out, err := ctl.Output()
	if err != nil || !strings.Contains(string(out), `RAN\n`) {
		t.Fatalf("the control: %v, %s", err, out)
	}
	cmd := exec.Command(unshare, append([]string{"-Ur", "sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"`, binary(t)}, args...)...)
	cmd.Dir = work
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if code := exitCode(err); code != exitSandbox {
		t.Fatalf("exit %d, want %d (%v): %s %s", code, exitSandbox, err, stdout.String(), stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("a report where no dry run could be done: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "dry run") || !strings.Contains(stderr.String(), "namespace") {
		t.Errorf("stderr does not say why: %q", stderr.String())
	}
	if _, err := os.Stat(made); err == nil {
		t.Error("the command ran for real")
	}
}
