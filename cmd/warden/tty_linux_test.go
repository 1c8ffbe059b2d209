package main

import (
	"bytes"
	"github.com/wardenhq/warden/internal/ptytest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is an output safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
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
	cmd := exec.Command(binary(t), "run", task, "--model", "scripted:"+script, "--approval", policy, "--transcript", tr)
	cmd.Stdin = term
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	deadline := time.After(30 * time.Second)
	for !strings.Contains(stderr.String(), "Decide:") {
		select {
		case err := <-exited:
			t.Fatalf("warden ended before prompting (%v)\nstderr:\n%s", err, stderr.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("no prompt\nstderr:\n%s", stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	time.Sleep(200 * time.Millisecond) // time for a typed-ahead answer to be taken, if it were
	if _, err := io.WriteString(master, "r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-deadline:
		_ = cmd.Process.Kill()
		t.Fatalf("warden did not end\nstderr:\n%s", stderr.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the command the person rejected ran\nstderr:\n%s", stderr.String())
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
		t.Errorf("decisions = %s\nstderr:\n%s", got, stderr.String())
	}
}
