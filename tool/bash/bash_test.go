package bash

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// call runs cmd with tl and returns the output and error.
func call(t *testing.T, ctx context.Context, tl *shellTool, cmd string) (string, error) {
	t.Helper()
	raw, err := json.Marshal(map[string]string{"cmd": cmd})
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(ctx, raw)
}

// A command killed by a signal says so: "[killed by signal N]" from the
// shell itself, "[exit status 128+N]" from init of a PID namespace.
func TestKilledBySignal(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir(), Timeout: 10 * time.Second})
	got, err := call(t, t.Context(), tl, "kill -KILL $$")
	want := "[killed by signal 9 (killed)]"
	if containedUnsandboxed() {
		want = "[exit status 137]"
	}
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		want string
	}{
		{"stdout", "echo hello", "hello\n"},
		{"no output", "true", ""},
		{"stderr", "echo oops >&2", "oops\n"},
		{"interleaved in order", "echo 1; echo 2 >&2; echo 3; echo 4 >&2; echo 5", "1\n2\n3\n4\n5\n"},
		{"exit status", "echo failing; exit 2", "failing\n[exit status 2]"},
		{"exit status without newline", "printf partial; exit 7", "partial\n[exit status 7]"},
		{"exit status without output", "exit 1", "[exit status 1]"},
		{"failing command", "ls /nonexistent-warden-dir 2>/dev/null", "[exit status 2]"},
		{"stdin is empty", "cat; echo done", "done\n"},
		{"bash features", "a=(x y z); echo ${#a[@]} ${a[1]}", "3 y\n"},
		{"pipeline", "printf 'b\\na\\n' | sort", "a\nb\n"},
	}
	tl := newShell(Options{Dir: t.TempDir(), Timeout: 10 * time.Second})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, t.Context(), tl, tt.cmd)
			if err != nil {
				t.Fatalf("Run(%q): %v", tt.cmd, err)
			}
			if got != tt.want {
				t.Errorf("Run(%q) = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker.txt"), []byte("here"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl := newShell(Options{Dir: dir})
	got, err := call(t, t.Context(), tl, "pwd -P; cat marker.txt")
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := real + "\nhere"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMissingDirectory(t *testing.T) {
	tl := newShell(Options{Dir: filepath.Join(t.TempDir(), "missing")})
	_, err := call(t, t.Context(), tl, "true")
	if err == nil {
		t.Fatal("Run in a missing directory succeeded")
	}
	if got := tool.AsError(err).Type; got != tool.ErrUnknown {
		t.Errorf("error type = %s, want unknown (%v)", got, err)
	}
}

func TestArguments(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir()})
	for _, raw := range []string{
		``,
		`{}`,
		`{"cmd": null}`,
		`{"cmd": ""}`,
		`{"cmd": 5}`,
		`{"command": "ls"}`,
		`{"cmd": "ls", "extra": 1}`,
		`{"cmd": "ls"} {}`,
		`[1]`,
		`not json`,
	} {
		_, err := tl.Run(t.Context(), json.RawMessage(raw))
		var te *tool.Error
		if !errors.As(err, &te) || te.Type != tool.ErrParsing {
			t.Errorf("Run(%s) error = %v, want a parsing error", raw, err)
		}
	}
}

// alive reports whether pid names a process that has not exited. A zombie
// (exited, not yet reaped by its new parent) counts as gone.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// waitGone waits up to 5s for pid to exit.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPID reads the process id a command wrote to path.
func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

// grandchildCmd prints "started", then starts a grandchild in a subshell
// and one that leaves the session (setsid), each waiting for the file "go"
// and then writing its own file; it creates the file ready and waits.
const grandchildCmd = `echo started
( until [ -e go ]; do sleep 0.05; done; touch late-subshell ) &
setsid sh -c 'until [ -e go ]; do sleep 0.05; done; touch late-setsid' </dev/null >/dev/null 2>&1 &
touch ready; wait`

// checkNothingActsLater releases the grandchildren of grandchildCmd and
// checks that none of them writes its file: the effect, not a message.
// The one that left the session is killed only where commands get a PID
// namespace (contained).
func checkNothingActsLater(t *testing.T, dir string, contained bool) {
	t.Helper()
	writeGo(t, dir)
	time.Sleep(time.Second)
	if _, err := os.Stat(filepath.Join(dir, "late-subshell")); err == nil {
		t.Error("a grandchild acted after the call ended")
	}
	_, err := os.Stat(filepath.Join(dir, "late-setsid"))
	switch {
	case contained && err == nil:
		t.Error("a grandchild that called setsid acted after the call ended")
	case !contained && err != nil:
		t.Log("no PID namespace here, yet the setsid grandchild did not act")
	}
}

func writeGo(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// containedUnsandboxed reports whether commands without a sandbox get a PID
// namespace here.
func containedUnsandboxed() bool {
	return sandbox.Contain(exec.Command("true")) == nil
}

// waitFile waits for path to exist.
func waitFile(path string) {
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	tl := newShell(Options{Dir: dir, Timeout: 3 * time.Second})
	start := time.Now()
	out, err := call(t, t.Context(), tl, grandchildCmd)
	elapsed := time.Since(start)
	if elapsed > 10*time.Second {
		t.Errorf("Run took %s after a 3s timeout", elapsed)
	}
	var te *tool.Error
	if !errors.As(err, &te) || te.Type != tool.ErrTimeout {
		t.Fatalf("error = %v, want a timeout *tool.Error", err)
	}
	if !strings.Contains(te.Message, "started") || !strings.Contains(te.Message, "timed out after 3s") {
		t.Errorf("message %q lacks the output so far or the timeout", te.Message)
	}
	if out != "started\n" {
		t.Errorf("output = %q, want %q", out, "started\n")
	}
	checkNothingActsLater(t, dir, containedUnsandboxed())
}

func TestTimeoutWithoutOutput(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir(), Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := call(t, t.Context(), tl, "sleep 30")
	if time.Since(start) > 5*time.Second {
		t.Errorf("sleep 30 was not killed promptly: %s", time.Since(start))
	}
	if te := tool.AsError(err); te == nil || te.Type != tool.ErrTimeout || !strings.Contains(te.Message, "no output") {
		t.Errorf("error = %v, want a timeout with no output", err)
	}
}

func TestTimeoutMessageIsBounded(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir(), Timeout: 2 * time.Second})
	out, err := call(t, t.Context(), tl, "head -c 100000 /dev/zero | tr '\\0' x; echo; echo LAST; sleep 30")
	te := tool.AsError(err)
	if te.Type != tool.ErrTimeout {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if len(out) != 100000+len("\nLAST\n") {
		t.Errorf("output beside the error is %d bytes", len(out))
	}
	if len(te.Message) > timeoutOutputMax+200 || !strings.Contains(te.Message, "bytes of output dropped") || !strings.HasSuffix(te.Message, "x\nLAST\n") {
		t.Errorf("message is %d bytes: %.80q...%q", len(te.Message), te.Message, te.Message[max(0, len(te.Message)-20):])
	}
}

func TestCancel(t *testing.T) {
	dir := t.TempDir()
	tl := newShell(Options{Dir: dir, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// Cancel once the grandchild is running.
		waitFile(filepath.Join(dir, "ready"))
		cancel()
	}()
	start := time.Now()
	out, err := call(t, ctx, tl, grandchildCmd)
	if time.Since(start) > 10*time.Second {
		t.Errorf("Run took %s after cancellation", time.Since(start))
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want one wrapping context.Canceled", err)
	}
	if got := tool.AsError(err).Type; got != tool.ErrCancelled {
		t.Errorf("AsError type = %s, want cancelled", got)
	}
	if out != "started\n" {
		t.Errorf("output so far = %q", out)
	}
	checkNothingActsLater(t, dir, containedUnsandboxed())
}

// A cancelled sandboxed call's whole process tree is killed, grandchildren
// that left the session included (the sandbox's PID namespace).
func TestG1_CancelKillsSandboxedTree(t *testing.T) {
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no namespaces for the sandbox: %v", err)
	}
	dir := t.TempDir()
	tl := newShell(Options{Dir: dir, Timeout: time.Minute, Sandbox: &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: dir}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		waitFile(filepath.Join(dir, "ready"))
		cancel()
	}()
	if _, err := call(t, ctx, tl, grandchildCmd); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want one wrapping context.Canceled", err)
	}
	checkNothingActsLater(t, dir, true)
}

// Tool processes run in a session of their own, so they have no
// controlling terminal: not the person's console.
func TestOwnSessionWithoutTerminal(t *testing.T) {
	dir := t.TempDir()
	policies := []*sandbox.Policy{nil, {Mode: sandbox.FullAccess, Workdir: dir}}
	if sandbox.Namespaces() == nil {
		policies = append(policies, &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: dir})
	}
	for _, p := range policies {
		tl := newShell(Options{Dir: dir, Timeout: 10 * time.Second, Sandbox: p})
		out, err := call(t, t.Context(), tl, `s=$(ps -o sid= -p $$); pg=$(ps -o pgid= -p $$); [ $s = $pg ] && echo own-session; exec 3</dev/tty && echo tty-open || echo no-tty`)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "own-session") || !strings.Contains(out, "no-tty") || strings.Contains(out, "tty-open") {
			t.Errorf("policy %v: %q", p, out)
		}
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	dir := t.TempDir()
	tl := newShell(Options{Dir: dir})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := call(t, ctx, tl, "touch ran")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran after cancellation")
	}
}

func TestContextDeadlineIsTimeout(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir(), Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := call(t, ctx, tl, "sleep 30")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want context.DeadlineExceeded", err)
	}
	if got := tool.AsError(err).Type; got != tool.ErrTimeout {
		t.Errorf("AsError type = %s, want timeout", got)
	}
}

func TestBackgroundProcessHoldingOutput(t *testing.T) {
	dir := t.TempDir()
	tl := newShell(Options{Dir: dir, Timeout: time.Minute})
	start := time.Now()
	out, err := call(t, t.Context(), tl, "sleep 30 & echo $! > pidfile; echo done")
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("Run waited %s for a background process", time.Since(start))
	}
	if containedUnsandboxed() {
		// The PID namespace ends with the shell: nothing holds the output.
		if out != "done\n" {
			t.Errorf("output = %q", out)
		}
		return
	}
	if !strings.HasPrefix(out, "done\n[stopped reading output") {
		t.Errorf("output = %q", out)
	}
	// Without a PID namespace the background process is left running.
	pid := readPID(t, filepath.Join(dir, "pidfile"))
	if !alive(pid) {
		t.Error("background process was killed")
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func TestBackgroundProcessWithRedirectedOutput(t *testing.T) {
	dir := t.TempDir()
	tl := newShell(Options{Dir: dir, Timeout: time.Minute})
	out, err := call(t, t.Context(), tl, "sleep 30 >/dev/null 2>&1 & echo $! > pidfile; echo done")
	if err != nil {
		t.Fatal(err)
	}
	// No note: Run did not wait out pipeGrace.
	if out != "done\n" {
		t.Errorf("output = %q", out)
	}
	_ = syscall.Kill(readPID(t, filepath.Join(dir, "pidfile")), syscall.SIGKILL)
}

func TestMemoryCap(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir(), MaxBytes: 1000})
	out, err := call(t, t.Context(), tl, "echo START; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "START\nxxx") {
		t.Errorf("output does not keep its start: %.40q", out)
	}
	if !strings.HasSuffix(out, "xxx\nEND\n[exit status 3]") {
		t.Errorf("output does not keep its end: ...%q", out[max(0, len(out)-40):])
	}
	total := len("START\n") + 100000 + len("\nEND\n")
	note := fmt.Sprintf("[... %d bytes of output dropped ...]", total-1000)
	if !strings.Contains(out, note) {
		t.Errorf("output lacks %q", note)
	}
	if len(out) > 1000+len(note)+len("\n\n\n[exit status 3]") {
		t.Errorf("output is %d bytes, more than the cap allows", len(out))
	}
}

func TestCapBuffer(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 6, []string{"abc", "def"}, "abcdef"},
		{"one big write", 6, []string{"abcdefghij"}, "abc\n[... 4 bytes of output dropped ...]\nhij"},
		{"small writes wrap the ring", 6, []string{"ab", "cd", "ef", "gh", "ij"}, "abc\n[... 4 bytes of output dropped ...]\nhij"},
		{"byte by byte", 4, strings.Split("0123456789", ""), "01\n[... 6 bytes of output dropped ...]\n89"},
		{"cut inside a character", 4, []string{"aé", "zzzz", "€b"}, "a\n[... 9 bytes of output dropped ...]\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCapBuffer(tt.max)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestInfoAndView(t *testing.T) {
	tl := newShell(Options{})
	info := tl.Info()
	if info.Name != "bash" || !info.Parallel || !json.Valid(info.Parameters) {
		t.Errorf("Info() = %+v", info)
	}
	v := tl.View(tool.NewCall("1", "bash", `{"cmd": "ls -la\necho hi"}`))
	if v.Format != "bash" || v.Content != "ls -la\necho hi" {
		t.Errorf("View = %+v", v)
	}
	v = tl.View(tool.NewCall("2", "bash", `{"cmd": `))
	if v.Format != "text" || v.Content != `bash({"cmd": )` {
		t.Errorf("View of an unparsed call = %+v", v)
	}
}

func TestRegistered(t *testing.T) {
	dir := t.TempDir()
	tl, err := toolbox.New("bash", toolbox.Env{Dir: dir, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := tl.(*shellTool)
	if !ok {
		t.Fatalf("tool.New returned %T", tl)
	}
	if b.dir != dir || b.timeout != time.Second || b.maxBytes != defaultMaxBytes {
		t.Errorf("registered tool = %+v", b)
	}
	if d := newShell(Options{}); d.timeout != defaultTimeout {
		t.Errorf("default timeout = %s", d.timeout)
	}
}

func TestParallelCalls(t *testing.T) {
	tl := newShell(Options{Dir: t.TempDir()})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			want := fmt.Sprintf("call %d\n", i)
			got, err := call(t, t.Context(), tl, "sleep 0.1; echo call "+strconv.Itoa(i))
			if err == nil && got != want {
				err = fmt.Errorf("got %q, want %q", got, want)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
