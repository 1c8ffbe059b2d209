package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/openaitest"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
)

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
	outside := hometest.InHome(t)
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
	p := wardenProc{env: homeEnv(dir, dir)}
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
	p := wardenProc{env: homeEnv(dir, dir)}
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
	// Retries after the single-use override are denied: by the model, or
	// first by the first pass where the dry run shows the append would
	// rewrite the file outside the workspace the override's retry created
	// (SPEC G17).
	if got := strings.Join(reviews, ","); !retriesDenied(got, 1) {
		t.Errorf("auto_review events = %s", got)
	}
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
	p := wardenProc{env: homeEnv(dir, dir), stdin: "/approve\n1\nplease retry\n\n"}
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

const processSecret = "SECRET-proc-91c4e2"

// secretTask writes a task whose working directory holds a key file and
// whose review policy terminates the run on every bash result.
func secretTask(t *testing.T, dir string) string {
	t.Helper()
	return leakTask(t, dir, "", "bash")
}

// leakTask writes, in dir, a task reading the key file in its working
// directory dir/work, with the task keys settings (YAML lines), whose
// review policy terminates the run on every result of the tools pattern.
// It returns the task file's path.
func leakTask(t *testing.T, dir, settings, tools string) string {
	t.Helper()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, work, "key.txt", processSecret+"\n")
	return write(t, dir, "task.yaml", "name: leak\ninput: read the key\nworkdir: work\ntools: [bash]\n"+settings+`review:
  - name: auto
    tools: `+tools+`
    decision: terminate
    explanation: the result holds a key
`)
}

// keyReader is a fake model that runs cmd (which reads the key), then says
// it will not use what it read.
func keyReader(t *testing.T, cmd string) *fakeOpenAI {
	t.Helper()
	return newFakeOpenAI(t, callReply("c1", "bash", map[string]any{"cmd": cmd}), openaitest.Assistant("I will not use it."))
}

// checkNoLeak fails when a request after the first holds the secret, and
// checks the transcript keeps the result and marks it withheld.
func checkNoLeak(t *testing.T, f *fakeOpenAI, want int, transcript string) {
	t.Helper()
	reqs := f.requests()
	if len(reqs) != want {
		t.Fatalf("%d model requests, want %d", len(reqs), want)
	}
	for i, body := range reqs {
		if strings.Contains(body, processSecret) {
			t.Errorf("model request %d contains the terminated result:\n%s", i+1, body)
		}
	}
	if !strings.Contains(reqs[len(reqs)-1], "stopped at this call") {
		t.Errorf("the last request does not say the run was stopped at the call:\n%s", reqs[len(reqs)-1])
	}
	kept, withheld := false, false
	for _, e := range lines(t, transcript) {
		switch e["event"] {
		case "tool":
			kept = kept || strings.Contains(fmt.Sprint(e["result"]), processSecret)
		case "withheld":
			withheld = e["call_id"] == "c1" && e["reason"] == "review_terminated" && !strings.Contains(fmt.Sprint(e["result"]), processSecret)
		}
	}
	if !kept || !withheld {
		t.Errorf("transcript: result kept %v, withheld event %v", kept, withheld)
	}
}

func TestR2_TerminatedResultNeverReachesModelInteractive(t *testing.T) {
	dir := t.TempDir()
	task := secretTask(t, dir)
	f := keyReader(t, "cat key.txt")
	tr := filepath.Join(dir, "t.jsonl")
	args := append([]string{"run", task, "--interactive", "--transcript", tr}, f.modelArgs()...)
	// The workspace under dir is never inside warden's home (G16).
	p := wardenProc{env: []string{"WARDEN_HOME=" + filepath.Join(dir, "state")}, stdin: "what was in it?\n\n"}
	p.ok(t, args...)
	checkNoLeak(t, f, 2, tr)
}

func TestR2_TerminatedResultNeverReachesModelOnResume(t *testing.T) {
	dir := t.TempDir()
	task := secretTask(t, dir)
	f := keyReader(t, "cat key.txt")
	tr := filepath.Join(dir, "t.jsonl")
	p := wardenProc{env: []string{"WARDEN_HOME=" + filepath.Join(dir, "state")}} // the workspace under dir is never inside warden's home (G16)
	run := func(args ...string) (int, string) {
		return p.combined(t, append(args, f.modelArgs()...)...)
	}
	if code, out := run("run", task, "--transcript", tr); code != exitLimited {
		t.Fatalf("first turn: exit %d\n%s", code, out)
	}
	runID := lines(t, tr)[0]["run_id"].(string)
	if code, out := run("run", "--resume", runID, "--input", "what was in it?", "--transcript", tr); code != exitOK {
		t.Fatalf("resumed turn: exit %d\n%s", code, out)
	}
	checkNoLeak(t, f, 2, tr)
}

// The caps on one message, through the real binary: flags reach the loop.
func TestL1_CallsPerMessageFlag(t *testing.T) {
	dir := t.TempDir()
	var calls []string
	for i := 0; i < 5; i++ {
		calls = append(calls, fmt.Sprintf(`{id: c%d, function: bash, arguments: {cmd: "echo %d >> log"}}`, i, i))
	}
	script := write(t, dir, "turns.yaml", "- tool_calls: ["+strings.Join(calls, ", ")+"]\n- content: done\n")
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	task := write(t, dir, "task.yaml", "name: caps\ninput: go\nworkdir: work\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	code, _, errs := warden(t, "run", task, "--model", "scripted:"+script, "--transcript", tr,
		"--max-calls-per-message", "2", "--max-concurrent-calls", "1", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	data, _ := os.ReadFile(filepath.Join(work, "log"))
	if string(data) != "0\n1\n" {
		t.Errorf("log = %q, want the first two calls only", data)
	}
	parsing := 0
	for _, e := range lines(t, tr) {
		if er, _ := e["error"].(map[string]any); e["event"] == "tool" && er["type"] == "parsing" {
			parsing++
		}
	}
	if parsing != 3 {
		t.Errorf("%d parsing errors, want 3", parsing)
	}
	if code, _, errs := warden(t, "run", task, "--model", "scripted:"+script, "--max-concurrent-calls", "-1"); code != exitUsage {
		t.Errorf("a negative cap: exit %d\n%s", code, errs)
	}
}

// --pin-policy through the real binary: a sub-agent with its own empty
// approval policy is held to the operator's.
func TestP4_PinPolicyFlag(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: h1, function: transfer_to_open, arguments: {}}]
- tool_calls: [{id: o1, function: bash, arguments: {cmd: "touch ran"}}]
- content: open done
- content: done
`)
	task := write(t, dir, "task.yaml", "name: pin\ninput: go\nworkdir: work\ntools: [transfer_to_open]\nagents:\n  open:\n    tools: [bash]\n    approval: []\n")
	strict := write(t, dir, "strict.yaml", "approvers:\n  - name: auto\n    tools: bash\n    decision: reject\n  - name: auto\n")
	tr := filepath.Join(dir, "t.jsonl")
	code, _, errs := warden(t, "run", task, "--model", "scripted:"+script, "--approval", strict, "--pin-policy", "--transcript", tr, "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Error("the sub-agent's command ran although the pinned policy rejects bash")
	}
	start := lines(t, tr)[0]
	agents, _ := start["agents"].([]any)
	if start["pin_policy"] != true || len(agents) != 2 {
		t.Fatalf("run_start = %v", start)
	}
	if open := agents[1].(map[string]any); open["agent"] != "open" || open["approval_from"] != "run" {
		t.Errorf("run_start agents[1] = %v", open)
	}
}

// A person terminates at the console's review prompt, then asks a further
// question: the next request still does not carry the result they stopped.
func TestR2_ConsoleTerminateThenNextTurnInteractive(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, work, "key.txt", processSecret+"\n")
	task := write(t, dir, "task.yaml", "name: console\ninput: read the key\nworkdir: work\ntools: [bash]\n")
	f := keyReader(t, "cat key.txt")
	tr := filepath.Join(dir, "t.jsonl")
	args := append([]string{"run", task, "--interactive", "--review", "human", "--transcript", tr}, f.modelArgs()...)
	// The workspace under dir is never inside warden's home (G16).
	p := wardenProc{env: []string{"WARDEN_HOME=" + filepath.Join(dir, "state")}, stdin: "t\nwhat was in it?\n\n"}
	stderr := p.ok(t, args...)
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2\nstderr:\n%s", len(reqs), stderr)
	}
	for i, body := range reqs {
		if strings.Contains(body, processSecret) {
			t.Errorf("model request %d contains the result the person terminated on", i+1)
		}
	}
}
