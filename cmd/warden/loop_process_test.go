package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/internal/openaitest"
)

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
