package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the warden command once for tests that run it as a real
// process.
func binary(t *testing.T) string {
	t.Helper()
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

// A crash mid-run leaves every earlier transcript line intact: the bash tool
// kills warden itself with SIGKILL.
func TestTranscriptSurvivesCrash(t *testing.T) {
	dir := t.TempDir()
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "echo first"}}]
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "kill -9 $PPID; sleep 5"}}]
- content: never reached
`)
	task := write(t, dir, "task.yaml", "name: crash\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), "run", task, "--model", "scripted:"+script, "--transcript", tr)
	err := cmd.Run()
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
	cmd := exec.Command(binary(t), "run", task, "--model", "scripted:"+script,
		"--approval", "human", "--review", "human", "--transcript", tr)
	cmd.Stdin = strings.NewReader("x\nr\na\nc\napprove\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	if code != exitLimited {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitLimited, stderr.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the rejected command ran")
	}
	errs := stderr.String()
	if !strings.Contains(errs, `"x" is not an answer here`) {
		t.Errorf("no re-prompt for an answer not offered:\n%s", errs)
	}
	if strings.Contains(errs, "\x1b[2J") {
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
	if exitCode(exec.Command(binary(t), "exec", "--", "true").Run()) != 0 {
		t.Skip("the sandbox cannot run here")
	}
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
	cmd := exec.Command(binary(t), "run", task, "--model", "scripted:"+script, "--transcript", tr)
	cmd.Stdin = strings.NewReader("a\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
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
	if exitCode(exec.Command(binary(t), "exec", "--", "true").Run()) != 0 {
		t.Skip("the sandbox cannot run here")
	}
	dir := t.TempDir()
	outside := outsideDir(t)
	denied, allowed := filepath.Join(outside, "denied"), filepath.Join(outside, "allowed")
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "echo x > `+denied+`"}}]
- content: '{"outcome": "deny", "risk_level": "high", "user_authorization": "low", "rationale": "nobody asked for that file"}'
- tool_calls: [{id: c2, function: bash, arguments: {cmd: "echo y > `+allowed+`", sandbox_permissions: require_escalated, justification: "the user asked"}}]
- content: 'Verdict: {"outcome": "allow", "risk_level": "low", "rationale": "asked for"}'
- content: done
`)
	task := write(t, dir, "task.yaml", "name: g3\ninput: go\ntools: [bash]\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), "run", task, "--model", "scripted:"+script, "--transcript", tr)
	cmd.Env = append(os.Environ(), "WARDEN_HOME="+dir, "WARDEN_MANAGED_CONFIG="+filepath.Join(dir, "none.toml"))
	cmd.Stdin = strings.NewReader("") // a person is never asked
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
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
	if got := strings.Join(reviews, ","); got != "c1:denied:high:model,c2:approved:low:model" {
		t.Errorf("auto_review events = %s", got)
	}
}
