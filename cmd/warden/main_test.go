package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wardenhq/warden/internal/openaitest"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"

	"github.com/wardenhq/warden/internal/filetest"
)

// warden runs the CLI in-process and returns its exit code and output.
func warden(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainCode(args, &out, &errb)
	return code, out.String(), errb.String()
}

// lines reads a JSONL transcript into generic objects.
func lines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, m)
	}
	return out
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	return filetest.Write(t, dir, name, content)
}

// isolatedEnv returns the environment entries that give a warden process
// its own state in dir/state and no managed configuration, then more.
func isolatedEnv(dir string, more ...string) []string {
	return append(homeEnv(filepath.Join(dir, "state"), dir), more...)
}

// homeEnv returns the environment entries that give a warden process its
// state in home and no managed configuration (dir/none.toml, which does
// not exist).
func homeEnv(home, dir string) []string {
	return []string{"WARDEN_HOME=" + home, "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")}
}

// Tests that run tasks without setting WARDEN_HOME keep warden's state —
// transcripts and the key that authenticates overrides — out of the real
// home directory. (An init function, not TestMain, so that other files of
// the package may have their own TestMain.)
func init() {
	if os.Getenv("WARDEN_HOME") == "" {
		_ = os.Setenv("WARDEN_HOME", filepath.Join(os.TempDir(), "warden-test-home"))
	}
}

// TestMain runs the tests and then removes the binary binary() built (115
// MiB in a temporary directory, which every run left behind).
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if fastDir != "" {
		os.RemoveAll(fastDir)
	}
	os.Exit(code)
}

// binary returns the warden binary for tests that run it as a real
// process: this tree's, built once, unless envTestBinary names another.
func binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(envTestBinary); bin != "" {
		return bin // a build to compare, side by side
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "warden-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "warden")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return binPath
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// envTestBinary names a warden binary the tests run instead of building
// this tree's (to measure two builds side by side, as docs/performance.md
// does).
const envTestBinary = "WARDEN_TEST_BINARY"

// crossingDirs makes a new directory base in the home (see homeDir) and,
// in it, a directory outside the workspace and a home for crossings to aim
// at; the test is skipped where the sandbox cannot run.
func crossingDirs(t *testing.T) (base, outside, home string) {
	t.Helper()
	requireWardenExec(t)
	base = hometest.InHome(t)
	outside, home = filepath.Join(base, "outside"), filepath.Join(base, "home")
	for _, d := range []string{outside, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base, outside, home
}

// fakeOpenAI is a loopback OpenAI-compatible chat completions server
// (openaitest.Server) that answers with its replies in order, then with
// "done".
type fakeOpenAI struct {
	*openaitest.Server
	mu      sync.Mutex
	replies []map[string]any
}

func newFakeOpenAI(t *testing.T, replies ...map[string]any) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{replies: replies}
	f.Server = openaitest.NewServer(t, 1, 1, func(string) map[string]any {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.replies) == 0 {
			return openaitest.Assistant("done")
		}
		msg := f.replies[0]
		f.replies = f.replies[1:]
		return msg
	})
	return f
}

// requests returns the request bodies received so far.
func (f *fakeOpenAI) requests() []string { return f.Bodies() }

// callReply is an assistant message that calls fn with args.
func callReply(id, fn string, args map[string]any) map[string]any {
	a, _ := json.Marshal(args)
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
		map[string]any{"id": id, "type": "function", "function": map[string]any{"name": fn, "arguments": string(a)}},
	}}
}

// modelArgs are the flags that point warden at the fake.
func (f *fakeOpenAI) modelArgs() []string {
	return []string{"--model", "openai/fake", "--base-url", f.URL, "--api-key", "test-key"}
}
