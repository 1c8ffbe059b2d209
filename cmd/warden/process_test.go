package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// envTestBinary names a warden binary the tests run instead of building
// this tree's (to measure two builds side by side, as docs/performance.md
// does).
const envTestBinary = "WARDEN_TEST_BINARY"

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

// A crash mid-run leaves every earlier transcript line intact: warden is
// killed with SIGKILL while its second tool call runs. (Tool processes
// cannot do it themselves: they run in PID namespaces of their own where
// the kernel allows.)
func TestTranscriptSurvivesCrash(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "second-call-started")
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "echo first"}}]
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "touch `+started+`; sleep 30"}}]
- content: never reached
`)
	task := write(t, dir, "task.yaml", "name: crash\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), "run", task, "--model", "scripted:"+script, "--transcript", tr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the second tool call never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	err := cmd.Wait()
	if code := exitCode(err); code != -1 {
		t.Fatalf("warden was not killed: exit %d (%v)", code, err)
	}
	evs := lines(t, tr) // fails on any torn line
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e["event"].(string))
	}
	got := strings.Join(kinds, ",")
	if !strings.HasPrefix(got, "run_start,turn_start,model,tool,model") || strings.Contains(got, "run_end") {
		t.Errorf("events = %s", got)
	}
	if evs[3]["result"] != "first\n" {
		t.Errorf("first tool event = %v", evs[2])
	}
}

// The console surface through a real process: prompts on stderr, one-line
// answers on stdin, end of input dismisses.
func TestConsoleAnswersOnStdin(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "made")
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "touch `+marker+`"}}]
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "echo \u001b[2J fake"}}]
- tool_calls: [{id: c3, function: bash, arguments: {cmd: "echo three"}}]
- content: done
`)
	task := write(t, dir, "task.yaml", "name: console\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	// c1: an answer not offered, then reject; c2: approve; review of c2:
	// continue; c3: approve, then input ends during its review: terminate.
	code, _, stderr := wardenProc{stdin: "x\nr\na\nc\napprove\n"}.run(t, "run", task, "--model", "scripted:"+script,
		"--approval", "human", "--review", "human", "--transcript", tr)
	if code != exitLimited {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitLimited, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the rejected command ran")
	}
	if !strings.Contains(stderr, `"x" is not an answer here`) {
		t.Errorf("no re-prompt for an answer not offered:\n%s", stderr)
	}
	if strings.Contains(stderr, "\x1b[2J") {
		t.Error("tool output reached the console unescaped")
	}
	var decisions []string
	for _, e := range lines(t, tr) {
		switch e["event"] {
		case "approval", "review":
			decisions = append(decisions, e["call_id"].(string)+":"+e["decision"].(string))
		case "run_end":
			if e["status"] != "limited" || e["limit"] != "operator" {
				t.Errorf("run_end = %v", e)
			}
		}
	}
	if got := strings.Join(decisions, ","); got != "c1:reject,c2:approve,c2:continue,c3:approve,c3:terminate" {
		t.Errorf("decisions = %s", got)
	}
}

// A sandboxed run through a real process: a write outside the writable
// roots is blocked, becomes a request on the console, and runs once a
// person approves it; a forbidden command never runs; a routine one asks
// nobody.
func TestSandboxedRunEscalatesToTheConsole(t *testing.T) {
	requireWardenExec(t)
	dir := t.TempDir()
	work := t.TempDir()
	outside := outsideDir(t)
	target := filepath.Join(outside, "f")
	kept := filepath.Join(outside, "kept")
	if err := os.WriteFile(kept, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "echo hi > `+target+`"}}]
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "rm `+kept+`"}}]
- tool_calls: [{id: c3, function: bash, arguments: {cmd: "ls"}}]
- content: done
`)
	write(t, dir, "team.rules", `prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "use trash")`)
	task := write(t, dir, "task.yaml", "name: sandboxed\ninput: go\ntools: [bash]\nworkdir: "+work+"\nsandbox: {mode: workspace-write}\nrules: [team.rules]\n")
	tr := filepath.Join(dir, "t.jsonl")
	wardenProc{stdin: "a\n"}.ok(t, "run", task, "--model", "scripted:"+script, "--transcript", tr)
	if data, err := os.ReadFile(target); err != nil || string(data) != "hi\n" {
		t.Errorf("approved write: %q, %v", data, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Error("a forbidden command ran")
	}
	var approvals []string
	for _, e := range lines(t, tr) {
		if e["event"] == "approval" {
			b, _ := e["boundary"].(map[string]any)
			approvals = append(approvals, fmt.Sprintf("%s:%s:%v", e["call_id"], e["decision"], b["kind"]))
		}
		if e["event"] == "tool" && e["call_id"] == "c2" {
			if er, _ := e["error"].(map[string]any); er["type"] != "permission" {
				t.Errorf("forbidden command: %v", e)
			}
		}
	}
	if got := strings.Join(approvals, ","); got != "c1:approve:write" {
		t.Errorf("approvals = %s", got)
	}
}

// With approvals_reviewer auto_review, boundary requests go to the reviewer
// agent instead of a person (SPEC G3): here it runs on the scripted model,
// whose next turns are its verdicts.
func TestG3_AutoReviewDecidesBoundaryRequests(t *testing.T) {
	requireWardenExec(t)
	dir := t.TempDir()
	outside := homeDir(t)
	denied, allowed := filepath.Join(outside, "denied"), filepath.Join(outside, "allowed")
	routine := filepath.Join(outsideDir(t), "scratch")
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c0, function: bash, arguments: {cmd: "echo z > `+routine+`"}}]
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "echo x > `+denied+`"}}]
- content: '{"outcome": "deny", "risk_level": "high", "user_authorization": "low", "rationale": "nobody asked for that file"}'
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "echo y > `+allowed+`", sandbox_permissions: require_escalated, justification: "the user asked"}}]
- content: '{"outcome": "allow", "risk_level": "low", "rationale": "asked for"}'
- content: done
`)
	task := write(t, dir, "task.yaml", "name: g3\ninput: go\ntools: [bash]\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
	tr := filepath.Join(dir, "t.jsonl")
	// A person is never asked.
	p := wardenProc{env: []string{"WARDEN_HOME=" + dir, "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")}}
	p.ok(t, "run", task, "--model", "scripted:"+script, "--transcript", tr)
	if _, err := os.Stat(denied); err == nil {
		t.Error("the denied write happened")
	}
	if data, err := os.ReadFile(allowed); err != nil || string(data) != "y\n" {
		t.Errorf("the allowed escalation: %q, %v", data, err)
	}
	var reviews []string
	for _, e := range lines(t, tr) {
		if e["event"] == "auto_review" {
			reviews = append(reviews, fmt.Sprintf("%s:%s:%s:%s", e["call_id"], e["status"], e["risk_level"], e["source"]))
			for _, k := range []string{"action", "user_authorization", "rationale", "model", "input_tokens", "output_tokens", "latency_ms"} {
				if _, ok := e[k]; !ok {
					t.Errorf("auto_review event lacks %s", k)
				}
			}
		}
	}
	if data, err := os.ReadFile(routine); err != nil || string(data) != "z\n" {
		t.Errorf("the routine write the first pass allowed: %q, %v", data, err)
	}
	if got := strings.Join(reviews, ","); got != "c0:approved:low:rules,c1:denied:high:model,c2:approved:low:model" {
		t.Errorf("auto_review events = %s", got)
	}
}

// A denial a person overrides lets the resumed run retry exactly that
// action once; the retry is still reviewed, with the person's marker, and a
// second retry is reviewed without it (SPEC G11, G12).
func TestG12_OverrideAllowsOneRetryAfterResume(t *testing.T) {
	requireWardenExec(t)
	dir := t.TempDir()
	target, call := homeAppend(t)
	first := write(t, dir, "turn1.yaml", `
- tool_calls: [`+call+`]
- content: '{"outcome": "deny", "risk_level": "medium", "rationale": "not asked for"}'
- content: I stopped.
`)
	second := write(t, dir, "turn2.yaml", `
- tool_calls: [`+call+`]
- content: '{"outcome": "allow", "risk_level": "medium", "user_authorization": "high", "rationale": "the person approved this retry"}'
- tool_calls: [`+call+`]
- content: '{"outcome": "deny", "risk_level": "medium", "rationale": "no new approval"}'
- content: done
`)
	task := write(t, dir, "task.yaml", "name: g12\ninput: append x\ntools: [bash]\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
	tr := filepath.Join(dir, "t.jsonl")
	p := wardenProc{env: []string{"WARDEN_HOME=" + dir, "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")}}
	run := func(args ...string) (int, string) { return p.combined(t, args...) }
	if code, out := run("run", task, "--model", "scripted:"+first, "--transcript", tr); code != exitOK {
		t.Fatalf("turn 1: exit %d\n%s", code, out)
	}
	var runID, denialID string
	for _, e := range lines(t, tr) {
		runID = e["run_id"].(string)
		if e["event"] == "auto_review" && e["status"] == "denied" {
			denialID, _ = e["denial_id"].(string)
		}
	}
	if denialID == "" {
		t.Fatal("no denial id in the transcript")
	}
	if code, out := run("auto-review", "approve", "nosuch", "--run", runID, "--transcript", tr); code != exitUsage {
		t.Errorf("approving an unknown denial: exit %d\n%s", code, out)
	}
	if code, out := run("auto-review", "approve", denialID, "--run", runID, "--transcript", tr, "--note", "go ahead"); code != exitOK {
		t.Fatalf("approve: exit %d\n%s", code, out)
	}
	if code, out := run("run", "--resume", runID, "--input", "please retry", "--model", "scripted:"+second, "--transcript", tr); code != exitOK {
		t.Fatalf("turn 2: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(target); string(data) != "x\n" {
		t.Errorf("target = %q, want exactly one approved retry", data)
	}
	var reviews []string
	ids := map[string]bool{}
	for _, e := range lines(t, tr) {
		if ids[e["id"].(string)] {
			t.Errorf("event id %s used twice", e["id"])
		}
		ids[e["id"].(string)] = true
		switch e["event"] {
		case "auto_review":
			reviews = append(reviews, fmt.Sprintf("%s/%s", e["status"], e["source"]))
		case "run_start":
			if e["run_id"] != runID {
				t.Errorf("resumed under another run id")
			}
		}
	}
	if got := strings.Join(reviews, ","); got != "denied/model,approved/override,denied/model" {
		t.Errorf("auto_review events = %s", got)
	}
}

// homeDir returns a new directory in the home directory: outside the
// sandbox's writable roots, and not a temporary place that the first pass
// of auto-review lets commands write to without asking the model.
func homeDir(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	dir, err := os.MkdirTemp(home, "warden-test-")
	if err != nil {
		t.Skipf("cannot write in the home directory: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// crossingDirs makes a new directory base in the home (see homeDir) and,
// in it, a directory outside the workspace and a home for crossings to aim
// at; the test is skipped where the sandbox cannot run.
func crossingDirs(t *testing.T) (base, outside, home string) {
	t.Helper()
	requireWardenExec(t)
	base = homeDir(t)
	outside, home = filepath.Join(base, "outside"), filepath.Join(base, "home")
	for _, d := range []string{outside, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base, outside, home
}

// The console's /approve picker between turns (SPEC G12): the person picks
// a denial, and the next turn may retry exactly that action once.
func TestG12_ConsoleApprovePickerBetweenTurns(t *testing.T) {
	requireWardenExec(t)
	dir := t.TempDir()
	target, call := homeAppend(t)
	script := write(t, dir, "turns.yaml", `
- tool_calls: [`+call+`]
- content: '{"outcome": "deny", "risk_level": "medium", "rationale": "not asked for"}'
- content: I stopped.
- tool_calls: [`+call+`]
- content: '{"outcome": "allow", "risk_level": "low", "rationale": "the person approved it"}'
- content: done
`)
	task := write(t, dir, "task.yaml", "name: picker\ninput: append x\ntools: [bash]\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
	tr := filepath.Join(dir, "t.jsonl")
	p := wardenProc{env: []string{"WARDEN_HOME=" + dir, "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")}, stdin: "/approve\n1\nplease retry\n\n"}
	stderr := p.ok(t, "run", task, "--interactive", "--model", "scripted:"+script, "--transcript", tr)
	if data, _ := os.ReadFile(target); string(data) != "x\n" {
		t.Errorf("target = %q\n%s", data, stderr)
	}
	var kinds []string
	for _, e := range lines(t, tr) {
		switch e["event"] {
		case "auto_review":
			kinds = append(kinds, fmt.Sprintf("review:%s/%s", e["status"], e["source"]))
		case "override", "turn_start", "run_start":
			kinds = append(kinds, e["event"].(string))
		}
	}
	if got := strings.Join(kinds, ","); got != "run_start,turn_start,review:denied/model,override,turn_start,review:approved/override" {
		t.Errorf("events = %s", got)
	}
}
