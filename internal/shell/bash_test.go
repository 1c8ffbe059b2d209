package shell_test

// The differential harness (SPEC G16): scripts run under the real bash with
// a PATH of logging stand-ins, and what bash ran is compared with what
// Parse says the script runs.
//
// Safety: bash runs with an empty environment (PATH = the stand-ins only),
// in a temporary directory, under a timeout, in new user, PID, network, IPC
// and UTS namespaces. When the tests run as root, the namespace's root is a
// host uid that owns nothing but the temporary directory, and processes,
// memory, CPU time and file sizes are capped (ulimit -u -d -t -f, which that
// uid cannot raise), so neither a
// program named by path (/bin/rm), nor a builtin (kill -9 -1, exec, cd,
// redirections) nor a fork bomb can touch anything outside. Not as root, the
// namespace's root is the caller's own uid: fixed, reviewed scripts (the
// table and the fuzz seeds) still run, but mutated inputs (go test -fuzz)
// are refused.
//
// Restricted mode (bash -r) was not used: it refuses redirections, cd and
// names with slashes, which would change what the script runs and hide the
// very constructs compared here.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/shell"
)

// standInNames are the programs the stand-ins play.
var standInNames = []string{
	"ls", "cat", "rm", "git", "cp", "mv", "a", "b", "c", "x", "y", "z",
	"sudo", "env", "nice", "xargs", "find", "grep", "bash", "sh", "curl",
	"head", "wc", "sort", "tee", "chmod", "mkdir", "touch", "go", "make",
	"npm", "python3", "sed", "awk", "tr", "cut", "date", "id", "whoami",
}

func TestMain(m *testing.M) {
	code := m.Run()
	if runner != nil {
		os.RemoveAll(runner.root)
	}
	os.Exit(code)
}

// standInScript is the logging stand-in every program name links to: it
// appends the name it was run by (the link, not argv[0], which the caller
// chooses with exec -a or hash -p) and its arguments to ../log, as the
// count of words and the words, each ended by a NUL byte, in one write
// (printf flushes once). bash -p ignores the functions, BASH_ENV and
// options a script exports.
const standInScript = `#!/bin/bash -p
builtin printf '%s\0' "$(($# + 1))" "${0##*/}" "$@" >> "${0%/*}/../log"
`

// bashRunner runs scripts under the real bash with the stand-ins.
type bashRunner struct {
	root  string // 0755 temporary directory
	bin   string // the stand-ins
	log   string
	work  string // the scripts' working directory
	uid   int    // the host uid the namespace's root maps to
	owned bool   // uid owns nothing but root (tests run as root)
}

var (
	runnerOnce sync.Once
	runner     *bashRunner
	runnerErr  error
	runnerMu   sync.Mutex // one script at a time per process: one log
)

// bashPath is the bash the differential tests run.
const bashPath = "/bin/bash"

// needBash returns the process's runner, skipping the test when bash (or
// user namespaces) are missing, unless $WARDEN_REQUIRE_BASH is set (CI
// sets it): then the test fails.
func needBash(tb testing.TB) *bashRunner {
	tb.Helper()
	if _, err := os.Stat(bashPath); err != nil {
		missing(tb, fmt.Sprintf("no %s (%v): the differential tests against bash did not run", bashPath, err))
	}
	runnerOnce.Do(func() {
		runner, runnerErr = newBashRunner()
		if runnerErr == nil {
			// The namespaces bash runs in may be refused here.
			if _, err := runner.run(context.Background(), "true"); err != nil {
				runnerErr = err
			}
		}
	})
	if runnerErr != nil {
		missing(tb, "cannot set up bash with stand-ins: "+runnerErr.Error())
	}
	return runner
}

func missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv("WARDEN_REQUIRE_BASH") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

func newBashRunner() (*bashRunner, error) {
	root, err := os.MkdirTemp("", "warden-bash-diff-")
	if err != nil {
		return nil, err
	}
	r := &bashRunner{root: root, bin: filepath.Join(root, "bin"), log: filepath.Join(root, "log"), work: filepath.Join(root, "work")}
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(r.bin, 0o755); err != nil {
		return nil, err
	}
	// A script, not this test binary: it starts in a millisecond, with
	// or without the race detector.
	self := filepath.Join(r.bin, ".standin")
	if err := os.WriteFile(self, []byte(standInScript), 0o755); err != nil {
		return nil, err
	}
	for _, n := range standInNames {
		if err := os.Symlink(".standin", filepath.Join(r.bin, n)); err != nil {
			return nil, err
		}
	}
	r.uid = os.Getuid()
	if r.uid == 0 {
		// A uid nothing on the host belongs to.
		r.uid = 1_900_000_000 + os.Getpid()%100_000
		r.owned = true
	}
	return r, nil
}

// ran is what bash did with a script.
type ran struct {
	argvs  [][]string // the stand-ins' argv, in the order they were logged
	stderr string
	exit   int
}

// errTimeout says bash did not finish in time.
var errTimeout = errors.New("bash timed out")

// run runs script with bash -c, as the bash tool runs commands.
func (r *bashRunner) run(ctx context.Context, script string) (ran, error) {
	runnerMu.Lock()
	defer runnerMu.Unlock()
	if err := os.RemoveAll(r.work); err != nil {
		return ran{}, err
	}
	if err := os.Mkdir(r.work, 0o755); err != nil {
		return ran{}, err
	}
	if err := os.WriteFile(r.log, nil, 0o600); err != nil {
		return ran{}, err
	}
	if r.uid != os.Getuid() {
		for _, p := range []string{r.work, r.log} {
			if err := os.Chown(p, r.uid, r.uid); err != nil {
				return ran{}, err
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	// The outer bash caps processes, CPU seconds and file sizes, then
	// becomes the bash that runs the script (so the script's own bash is
	// exactly `bash --norc --noprofile -c SCRIPT`).
	cmd := exec.CommandContext(ctx, bashPath, "--norc", "--noprofile", "-c",
		`ulimit -u 256 -t 4 -f 4096 -d 1048576 && exec `+bashPath+` --norc --noprofile -c "$1"`, "bash", script)
	cmd.Env = []string{"PATH=" + r.bin, "HOME=" + r.work, "LC_ALL=C.UTF-8"}
	cmd.Dir = r.work
	var stderr bytes.Buffer
	cmd.Stdin = nil
	cmd.Stdout = io.Discard
	cmd.Stderr = &limited{w: &stderr, n: 1 << 16}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: r.uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: r.uid, Size: 1}},
		// Without setuid inside the namespace the process would keep
		// its host uid: become the namespace's root, that is r.uid.
		Credential: &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true},
		Pdeathsig:  syscall.SIGKILL,
	}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	out := ran{stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		out.exit = ee.ExitCode()
	} else if err != nil && ctx.Err() == nil {
		return out, err
	}
	data, rerr := os.ReadFile(r.log)
	if rerr != nil {
		return out, rerr
	}
	out.argvs, rerr = parseLog(data)
	if rerr != nil {
		return out, rerr
	}
	if ctx.Err() != nil {
		// What was logged before the timeout is still returned.
		return out, errTimeout
	}
	return out, nil
}

// parseLog reads the stand-ins' records.
func parseLog(data []byte) ([][]string, error) {
	var out [][]string
	for len(data) > 0 {
		i := bytes.IndexByte(data, 0)
		if i < 0 {
			return nil, fmt.Errorf("torn log record %q", data)
		}
		n, err := strconv.Atoi(string(data[:i]))
		if err != nil {
			return nil, fmt.Errorf("bad log record %q", data)
		}
		data = data[i+1:]
		argv := make([]string, n)
		for k := range argv {
			j := bytes.IndexByte(data, 0)
			if j < 0 {
				return nil, fmt.Errorf("torn log record %q", data)
			}
			argv[k] = string(data[:j])
			data = data[j+1:]
		}
		out = append(out, argv)
	}
	return out, nil
}

// limited writes at most n bytes to w, dropping the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	q := p
	if len(q) > l.n {
		q = q[:l.n]
	}
	l.n -= len(q)
	if len(q) > 0 {
		if _, err := l.w.Write(q); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// fuzzing reports whether go test -fuzz is generating inputs.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// explained reports whether argv, a command bash ran (the program's name,
// then its arguments), is one Parse found: a command whose words are all
// literal and equal to argv, or one whose literal words before its first
// non-literal one begin argv. Programs compare by base name.
func explained(argv []string, args [][]string, literal [][]bool) bool {
	for i, a := range args {
		if len(a) == 0 || !literal[i][0] || shell.Base(a[0]) != argv[0] {
			continue
		}
		k := slices.Index(literal[i], false)
		if k < 0 {
			if slices.Equal(a[1:], argv[1:]) {
				return true
			}
			continue
		}
		if len(argv) >= k && slices.Equal(a[1:k], argv[1:k]) {
			return true
		}
	}
	return false
}

// quoteArgv renders argv for messages.
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// FuzzG14_QuoteBash checks Quote against the real bash: the command line
// `x QUOTED` runs the stand-in x with the one argument s, for any s a
// process argument can hold (no NUL byte), and Split reads QUOTED back as s.
func FuzzG14_QuoteBash(f *testing.F) {
	for _, s := range []string{
		"", "a", "a b", "it's", `"$x"`, "a\nb", "-rf", "if", "!", "a=b", "~", "~/x", "{a,b}", "*", "?", "[a]",
		"#x", "$(id)", "`id`", `back\slash`, "tab\there", "é", "\x01", "\xff", "'", "''", `"`, "a'b\"c$d", "$'x'",
		"it's\nhere", "'\x01'", "\xff'$(id)'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 || len(s) > 4096 {
			t.Skip("a process argument holds no NUL byte")
		}
		q := shell.Quote(s)
		if words, err := shell.Split(q); err != nil || len(words) != 1 || words[0] != s {
			t.Fatalf("Split(Quote(%q)) = %q, %v", s, words, err)
		}
		r := needBash(t)
		if fuzzing() && !r.owned {
			t.Skip("fuzzing runs mutated scripts under bash only as root (as a uid that owns nothing)")
		}
		got, err := r.run(context.Background(), "x "+q)
		if err != nil {
			t.Fatalf("bash -c %q: %v", "x "+q, err)
		}
		if want := [][]string{{"x", s}}; !slices.EqualFunc(got.argvs, want, slices.Equal) {
			t.Fatalf("bash ran x %s as %v, want %v (stderr %q)", q, got.argvs, want, got.stderr)
		}
	})
}
