package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/syncbuf"
)

// onConsole is warden run started with the pseudo-terminal term as its
// stdin and controlling terminal, as on a person's console.
type onConsole struct {
	cmd            *exec.Cmd
	exited         chan error
	stdout, stderr syncbuf.Buffer
}

// startOnConsole starts the warden binary with args on term.
func startOnConsole(t *testing.T, term *os.File, args ...string) *onConsole {
	t.Helper()
	c := &onConsole{cmd: exec.Command(binary(t), args...), exited: make(chan error, 1)}
	c.cmd.Stdin = term
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exited <- c.cmd.Wait() }()
	return c
}

// prompted waits until warden asks the person to decide; warden ending
// first, or the deadline passing, fails the test.
func (c *onConsole) prompted(t *testing.T, deadline <-chan time.Time) {
	t.Helper()
	for !strings.Contains(c.stderr.String(), "Decide:") {
		select {
		case err := <-c.exited:
			t.Fatalf("warden ended before prompting (%v)\nstderr:\n%s", err, c.stderr.String())
		case <-deadline:
			_ = c.cmd.Process.Kill()
			t.Fatalf("no prompt\nstderr:\n%s", c.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// ended waits until warden ends; the deadline passing kills it and fails
// the test.
func (c *onConsole) ended(t *testing.T, deadline <-chan time.Time) {
	t.Helper()
	select {
	case <-c.exited:
	case <-deadline:
		_ = c.cmd.Process.Kill()
		t.Fatalf("warden did not end\nstderr:\n%s", c.stderr.String())
	}
}

// TestH1_ToolCannotTypeIntoTheConsole runs warden on a pseudo-terminal
// that is its controlling terminal. Keys typed before the prompt, and keys
// a command the policy let run pushes into the terminal (TIOCSTI), never
// answer the next request; the answer typed after the prompt does.
func TestH1_ToolCannotTypeIntoTheConsole(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is needed to push keys into the terminal")
	}
	master, term := ptytest.Open(t)
	go func() { _, _ = io.Copy(io.Discard, master) }() // the terminal's echo

	dir := t.TempDir()
	marker := filepath.Join(dir, "victim-gone")
	inject := write(t, dir, "inject.pl", `
open(my $t, "+<", "/dev/tty") or do { print "no terminal: $!\n"; exit 0 };
for my $c (split //, "a\n") { ioctl($t, 0x5412, $c) or do { print "TIOCSTI: $!\n"; exit 0 } }
print "injected\n";
`)
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "perl `+inject+`"}}]
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "touch `+marker+`"}}]
- content: done
`)
	policy := write(t, dir, "approval.yaml", "approvers:\n  - name: auto\n    tools: \"bash(cmd='perl\"\n  - name: human\n")
	task := write(t, dir, "task.yaml", "name: tty\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")

	// Typed before warden even started.
	if _, err := io.WriteString(master, "a\n"); err != nil {
		t.Fatal(err)
	}
	c := startOnConsole(t, term, "run", task, "--model", "scripted:"+script, "--approval", policy, "--transcript", tr)

	deadline := time.After(30 * time.Second)
	c.prompted(t, deadline)
	time.Sleep(200 * time.Millisecond) // time for a typed-ahead answer to be taken, if it were
	if _, err := io.WriteString(master, "r\n"); err != nil {
		t.Fatal(err)
	}
	c.ended(t, deadline)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the command the person rejected ran\nstderr:\n%s", c.stderr.String())
	}
	var decisions []string
	for _, e := range lines(t, tr) {
		switch e["event"] {
		case "approval":
			decisions = append(decisions, e["call_id"].(string)+":"+e["decision"].(string))
		case "tool":
			if e["call_id"] == "c1" {
				t.Logf("the injecting command said: %q", e["result"])
			}
		}
	}
	if got := strings.Join(decisions, ","); got != "c1:approve,c2:reject" {
		t.Errorf("decisions = %s\nstderr:\n%s", got, c.stderr.String())
	}
}

// H1 variants under a pseudo-terminal: a command the policy lets run does
// not open /dev/tty (it has no controlling terminal) but finds the
// person's terminal another way — through warden's own descriptors under
// /proc, or any /dev/pts device — and waits until the prompt for a sibling
// call of the same message is drawn before it pushes "a⏎" (TIOCSTI; root
// may push into a terminal that is not its controlling one). The sibling
// is never approved by it. (Fixed: contained commands, which keep every
// capability, run under a seccomp filter that refuses TIOCSTI.)
func TestH1_Redteam_ToolCannotTypeIntoTheConsoleLater(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is needed to push keys into the terminal")
	}
	master, term := ptytest.Open(t)
	go func() { _, _ = io.Copy(io.Discard, master) }()

	dir := t.TempDir()
	marker := filepath.Join(dir, "victim-gone")
	inject := write(t, dir, "inject.pl", `
my @ttys;
for my $f (glob("/proc/[0-9]*/fd/*"), glob("/dev/pts/[0-9]*")) {
  my $l = readlink($f) // $f; next unless $l =~ m{^/dev/pts/\d+$};
  open(my $t, "+<", $f) or next; push @ttys, $t;
}
print scalar(@ttys), " terminals\n";
sleep 2;
for my $t (@ttys) { for my $c (split //, "a\n") { ioctl($t, 0x5412, $c) } }
print "pushed\n";
`)
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "perl `+inject+`"}}, {id: c2, function: bash, arguments: {cmd: "touch `+marker+`"}}]
- content: done
`)
	policy := write(t, dir, "approval.yaml", "approvers:\n  - name: auto\n    tools: \"bash(cmd='perl\"\n  - name: human\n")
	task := write(t, dir, "task.yaml", "name: tty\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	c := startOnConsole(t, term, "run", task, "--model", "scripted:"+script, "--approval", policy, "--transcript", tr)
	deadline := time.After(30 * time.Second)
	c.prompted(t, deadline)
	time.Sleep(4 * time.Second) // the injecting command pushes its keys meanwhile
	_, _ = io.WriteString(master, "r\n")
	c.ended(t, deadline)
	for _, e := range lines(t, tr) {
		if e["event"] == "tool" && e["call_id"] == "c1" {
			t.Logf("the injecting command said: %q", e["result"])
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the command the person did not approve ran\nstderr:\n%s", c.stderr.String())
	}
}
