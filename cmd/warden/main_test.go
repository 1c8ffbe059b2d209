package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	return append([]string{"WARDEN_HOME=" + filepath.Join(dir, "state"), "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")}, more...)
}

// contract lists the fields every event kind must carry (issue #2).
var contract = map[string][]string{
	"run_start": {"task", "model", "approval", "review"},
	"model":     {"input_tokens", "output_tokens", "output"},
	"approval":  {"call_id", "call", "approver", "decision", "modified", "explanation"},
	"tool":      {"call_id", "function", "arguments", "executed", "result", "truncated", "error", "failed"},
	"review":    {"call_id", "function", "reviewer", "decision", "explanation"},
	"info":      {"message"},
	"limit":     {"type", "message"},
	"error":     {"message"},
	"run_end":   {"status", "limit"},
}

func TestQuickstart(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	code, out, errs := warden(t, "run", "../../examples/quickstart/task.yaml", "--transcript", tr)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	evs := lines(t, tr)
	decisions := map[string]int{}
	for _, e := range evs {
		for _, k := range []string{"event", "id", "time", "run_id", "agent"} {
			if _, ok := e[k]; !ok {
				t.Errorf("%v event lacks %s", e["event"], k)
			}
		}
		for _, k := range contract[e["event"].(string)] {
			if _, ok := e[k]; !ok {
				t.Errorf("%v event lacks %s", e["event"], k)
			}
		}
		if e["event"] == "approval" || e["event"] == "review" {
			decisions[e["event"].(string)+":"+e["decision"].(string)]++
		}
	}
	for _, want := range []string{"approval:approve", "approval:reject", "approval:escalate", "review:continue"} {
		if decisions[want] == 0 {
			t.Errorf("quickstart shows no %s (decisions %v)", want, decisions)
		}
	}
	if last := evs[len(evs)-1]; last["event"] != "run_end" || last["status"] != "completed" || last["limit"] != nil {
		t.Errorf("last event = %v", last)
	}
	if !strings.Contains(out, "transcript: "+tr) || !strings.Contains(errs, "approval") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errs)
	}
	// transcript show renders the same file.
	code, shown, _ := warden(t, "transcript", "show", tr)
	if code != exitOK || !strings.Contains(shown, "reject") || !strings.Contains(shown, "run_end") {
		t.Errorf("transcript show: exit %d\n%s", code, shown)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "echo hi"}}]
- content: done
`)
	loop := write(t, dir, "loop.yaml", strings.Repeat("- tool_calls: [{function: bash, arguments: {cmd: 'true'}}]\n", 5))
	task := write(t, dir, "task.yaml", "name: t\ninput: go\ntools: [bash]\n")
	limited := write(t, dir, "limited.yaml", "name: t\ninput: go\ntools: [bash]\nlimits: {turns: 2}\n")
	terminate := write(t, dir, "stop.yaml", "approvers:\n  - name: auto\n    decision: terminate\n")
	badPolicy := write(t, dir, "bad.yaml", "approvers:\n  - name: nosuch\n")
	tests := []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"completed", []string{"run", task, "--model", "scripted:" + script}, exitOK, ""},
		{"turn limit", []string{"run", limited, "--model", "scripted:" + loop}, exitLimited, "turn"},
		{"operator limit", []string{"run", task, "--model", "scripted:" + script, "--approval", terminate}, exitLimited, "operator"},
		{"no such task", []string{"run", filepath.Join(dir, "none.yaml"), "--model", "scripted:" + script}, exitUsage, "none.yaml"},
		{"bad model spec", []string{"run", task, "--model", "nosuch/x"}, exitUsage, "unknown provider"},
		{"bad policy", []string{"run", task, "--model", "scripted:" + script, "--approval", badPolicy}, exitUsage, "bad.yaml:2:5: unknown approver \"nosuch\""},
		{"unknown policy name", []string{"run", task, "--model", "scripted:" + script, "--review", "nobody"}, exitUsage, "registered"},
		{"bad flag", []string{"run", task, "--frobnicate"}, exitUsage, "frobnicate"},
		{"no args", []string{"run"}, exitUsage, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "--transcript", filepath.Join(t.TempDir(), "t.jsonl"))
			if tt.name == "no args" {
				args = tt.args
			}
			code, _, errs := warden(t, args...)
			if code != tt.want || !strings.Contains(errs, tt.msg) {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.want, errs)
			}
		})
	}
}

func TestConfigErrorRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := write(t, dir, "turns.yaml", "- tool_calls: [{function: bash, arguments: {cmd: 'touch "+marker+"'}}]\n")
	task := write(t, dir, "task.yaml", "name: t\ninput: go\ntools: [bash]\napproval: [{name: auto, tools: 'bash(cmd=[', decision: maybe}]\n")
	tr := filepath.Join(dir, "t.jsonl")
	code, _, errs := warden(t, "run", task, "--model", "scripted:"+script, "--transcript", tr)
	if code != exitUsage || !strings.Contains(errs, "task.yaml:") {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command ran despite a configuration error")
	}
}

func TestPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.yaml", "approvers:\n  - name: human\n    tools: [bash]\n  - name: auto\n    tools: '*'\n")
	bad := write(t, dir, "bad.yaml", "reviewers:\n  - name: auto\n    tools: bash\n    decision: reject\n")
	unknown := write(t, dir, "unknown.yaml", "approvers:\n  - name: auto\n  - name: humann\n")
	code, out, _ := warden(t, "policy", "check", good, "../../examples/approval.yaml", "../../examples/review.yaml")
	if code != exitOK || strings.Count(out, ": ok") != 3 {
		t.Errorf("good files: exit %d\n%s", code, out)
	}
	code, _, errs := warden(t, "policy", "check", good, bad, unknown)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{
		bad + ":2:5: reviewer auto: decision \"reject\"",
		unknown + ":3:5: unknown approver \"humann\" (registered: auto, auto_review, first_pass, human", // auto_review is registered (P3)
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

func TestRulesCheck(t *testing.T) {
	dir := t.TempDir()
	starlark := write(t, dir, "team.rules", `
prefix_rule(pattern = ["git", "push"], decision = "prompt", match = ["git push origin main"])
prefix_rule(pattern = [["rm", "shred"]], decision = "forbidden", justification = "use trash")
prefix_rule(pattern = ["go", "test"], decision = "allow")
`)
	yamlRules := write(t, dir, "more.yaml", "rules:\n  - pattern: [curl]\n    decision: prompt\n")
	broken := write(t, dir, "broken.rules", `prefix_rule(pattern = ["git"], decision = "allow", match = ["hg status"])`)
	tests := []struct {
		name  string
		args  []string
		want  int
		wants []string
	}{
		{"allow", []string{"--rules", starlark, "--", "go test ./..."}, 0, []string{"decision: allow"}},
		{"prompt by rule", []string{"--rules", starlark, "--", "cd x && git push origin main"}, 10, []string{"decision: prompt", "2. git push origin main", "team.rules:2:1"}},
		{"forbidden wins", []string{"--rules", starlark, "--rules", yamlRules, "--", "curl x | sudo /bin/rm -rf ~"}, 11, []string{"decision: forbidden", "use trash", "more.yaml:2:5"}},
		{"argv form", []string{"--rules", starlark, "--", "shred", "-u", "f"}, 11, []string{"decision: forbidden"}},
		{"no rule, not dangerous", []string{"--", "make build"}, 0, []string{"decision: allow"}},
		{"no rule, dangerous", []string{"--", "find . -name '*.o' -exec rm -rf {} +"}, 10, []string{"decision: prompt", "dangerous"}},
		{"opaque", []string{"--", `eval "$CMD"`}, 10, []string{"opaque"}},
		{"rules file does not load", []string{"--rules", broken, "--", "ls"}, 2, nil},
		{"missing rules file", []string{"--rules", filepath.Join(dir, "none.rules"), "--", "ls"}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := warden(t, append([]string{"rules", "check"}, tt.args...)...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.want, out, errs)
			}
			for _, w := range tt.wants {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tt.want == 2 && !strings.Contains(errs, dir) {
				t.Errorf("load error does not say where: %s", errs)
			}
		})
	}
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
