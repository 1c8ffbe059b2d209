package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// quickstartRun runs the real warden binary on the quickstart task from an
// empty directory and returns the run's work directory, the approval
// decision of the call with id callID, and stdout.
func quickstartRun(t *testing.T, callID string, extra ...string) (workdir, decision, stdout string) {
	t.Helper()
	task, err := filepath.Abs("../../examples/quickstart/task.yaml")
	if err != nil {
		t.Fatal(err)
	}
	workdir, from, decisions, stdout := keptRun(t, task, extra...)
	if _, err := os.Stat(filepath.Join(from, "pwned")); err == nil {
		t.Errorf("pwned created in the directory warden ran from")
	}
	return workdir, decisions[callID], stdout
}

// The quickstart's shell-aware pattern approves `ls` and `cat` but rejects
// the chained `ls; touch pwned`, which then creates nothing; the same run
// under the text glob bash(cmd='ls approves it and pwned is created.
func TestP8_QuickstartRejectsChainedCommand(t *testing.T) {
	workdir, decision, out := quickstartRun(t, "call_chain")
	if decision != "reject" {
		t.Errorf("ls; touch pwned: approval %q, want reject\n%s", decision, out)
	}
	if _, err := os.Stat(filepath.Join(workdir, "pwned")); !os.IsNotExist(err) {
		t.Errorf("pwned exists in %s (stat: %v)", workdir, err)
	}
	if _, err := os.Stat(filepath.Join(workdir, "NOTES.md")); err != nil {
		t.Errorf("the run's work directory lacks NOTES.md: %v", err)
	}
	for _, want := range []string{"approve", "reject", "escalate", "continue"} {
		if !strings.Contains(out, want) {
			t.Errorf("quickstart output shows no %s:\n%s", want, out)
		}
	}

	// Control: with a text glob, the chain is approved and runs.
	glob := filepath.Join(t.TempDir(), "glob.yaml")
	if err := os.WriteFile(glob, []byte("approvers:\n  - name: auto\n    tools: [\"bash(cmd='ls\", text_editor]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	workdir, decision, out = quickstartRun(t, "call_chain", "--approval", glob)
	if decision != "approve" {
		t.Errorf("glob: ls; touch pwned: approval %q, want approve\n%s", decision, out)
	}
	if _, err := os.Stat(filepath.Join(workdir, "pwned")); err != nil {
		t.Errorf("glob: pwned not created in %s: %v", workdir, err)
	}
}

// warden policy check reports a malformed commands list at file:line:col.
func TestP8_PolicyCheckCommands(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.yaml", "approvers:\n  - name: auto\n    tool: bash\n    args:\n      cmd: {commands: [ls, \"\"]}\n")
	good := write(t, dir, "good.yaml", "approvers:\n  - name: auto\n    tool: bash\n    args:\n      cmd: {commands: [ls, \"git status\"]}\n")
	if code, out, errs := runBinary(t, nil, "", "policy", "check", bad); code == exitOK || !strings.Contains(out+errs, "bad.yaml:5:28: args.cmd.commands[1]: empty command prefix") {
		t.Errorf("policy check bad.yaml: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runBinary(t, nil, "", "policy", "check", good, "../../examples/shell.yaml", "../../examples/quickstart/approval.yaml"); code != exitOK {
		t.Errorf("policy check good.yaml: exit %d\n%s%s", code, out, errs)
	}
}

// TestG16_QuickstartPolicyKeepsVictim runs the real warden binary with the
// quickstart's approval policy (commands: [ls, cat], and mkdir for the
// setup) on a scripted model that makes victim/ and then sends
// `A=1<CR>ls rm -rf victim`, which the parser once read as ls and bash runs
// as rm: the call is rejected and victim/ is still there.
func TestG16_QuickstartPolicyKeepsVictim(t *testing.T) {
	dir := t.TempDir()
	approval, err := os.ReadFile("../../examples/quickstart/approval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	policy := strings.Replace(string(approval), "cmd: {commands: [ls, cat]}", `cmd: {commands: [ls, cat, "mkdir victim"]}`, 1)
	if policy == string(approval) {
		t.Fatal("the quickstart's approver is not commands: [ls, cat]")
	}
	write(t, dir, "approval.yaml", policy)
	write(t, dir, "review.yaml", "reviewers:\n  - name: auto\n    decision: continue\n")
	for _, attack := range []string{"A=1\rls rm -rf victim", "ls # \\\nrm -rf victim"} {
		write(t, dir, "model.yaml", "- tool_calls:\n"+
			"    - {id: call_mkdir, function: bash, arguments: {cmd: \"mkdir victim\"}}\n"+
			"- tool_calls:\n"+
			"    - {id: call_attack, function: bash, arguments: {cmd: "+strconv.Quote(attack)+"}}\n"+
			"- content: done\n")
		task := write(t, dir, "task.yaml", "name: g16\nmodel: scripted:model.yaml\ninput: go\ntools: [bash]\n"+
			"approval: approval.yaml\nreview: review.yaml\nlimits: {turns: 5}\n")
		workdir, mkdir, attackDecision, out := runTask(t, task, "call_mkdir", "call_attack")
		if mkdir != "approve" {
			t.Fatalf("mkdir victim: approval %q, want approve\n%s", mkdir, out)
		}
		if attackDecision == "approve" {
			t.Errorf("%q approved\n%s", attack, out)
		}
		if _, err := os.Stat(filepath.Join(workdir, "victim")); err != nil {
			t.Errorf("%q: victim gone: %v\n%s", attack, err, out)
		}
	}
}

// runTask runs the real warden binary on task from an empty directory and
// returns the run's work directory, the approval decisions of the calls
// first and second, and stdout.
func runTask(t *testing.T, task, first, second string) (workdir, d1, d2, stdout string) {
	t.Helper()
	workdir, _, decisions, stdout := keptRun(t, task)
	return workdir, decisions[first], decisions[second], stdout
}

// keptRun runs the real warden binary on task from a new empty directory,
// from, with extra arguments, keeping the run's work directory until the
// test ends, and returns that work directory, from, the approval decision
// of each call by its id, and stdout.
func keptRun(t *testing.T, task string, extra ...string) (workdir, from string, decisions map[string]string, stdout string) {
	t.Helper()
	from = t.TempDir()
	tr := filepath.Join(from, "t.jsonl")
	code, out, errb := wardenProc{dir: from, env: []string{"HOME=" + from}}.run(t, append([]string{"run", task, "--keep-workdir", "--transcript", tr}, extra...)...)
	if code != exitOK {
		t.Fatalf("warden run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	for _, line := range strings.Split(out, "\n") {
		if w, ok := strings.CutPrefix(line, "workdir: "); ok {
			workdir = w
		}
	}
	if workdir == "" {
		t.Fatalf("no workdir in stdout:\n%s", out)
	}
	t.Cleanup(func() { os.RemoveAll(workdir) })
	decisions = map[string]string{}
	for _, e := range lines(t, tr) {
		if e["event"] == "approval" {
			id, _ := e["call_id"].(string)
			decisions[id], _ = e["decision"].(string)
		}
	}
	return workdir, from, decisions, out
}

// Issue 18 item 9 (SPEC P2): a newcomer copies a call from what `warden
// run` printed, or from `warden transcript show`, into an approval policy
// that rejects it; the next run of the same call is rejected — the file it
// would create is never created. The model sends the arguments in another
// order than the tool's schema, and not sorted either.
func TestP2_PatternCopiedFromRunOutputRejectsTheCall(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	args := `{"path":"made.txt","file_text":"hello","command":"create"}`
	model := write(t, dir, "m.yaml", "- tool_calls: [{id: c1, function: text_editor, arguments_raw: '"+args+"'}]\n- content: done\n")
	task := write(t, dir, "task.yaml", "name: copy\ninput: go\ntools: [text_editor]\nworkdir: "+work+"\n")
	allow := write(t, dir, "allow.yaml", "approvers:\n  - name: auto\n")
	env := []string{"WARDEN_HOME=" + filepath.Join(dir, "home")}
	tr := filepath.Join(dir, "t.jsonl")
	code, stdout, stderr := runBinary(t, env, "", "run", task, "--model", "scripted:"+model, "--approval", allow, "--transcript", tr)
	if code != exitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	made := filepath.Join(work, "made.txt")
	if _, err := os.Stat(made); err != nil {
		t.Fatalf("the first run did not create the file: %v", err)
	}
	os.Remove(made)
	approvalLine := regexp.MustCompile(`(?m)^approval\s+(text_editor\(.*?\))  auto`)
	m := approvalLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no approval line in the run's output:\n%s", stderr)
	}
	fromRun := m[1]
	code, shown, stderr := runBinary(t, env, "", "transcript", "show", tr)
	if code != exitOK {
		t.Fatalf("transcript show: exit %d\n%s", code, stderr)
	}
	m = approvalLine.FindStringSubmatch(shown)
	if m == nil || m[1] != fromRun {
		t.Fatalf("transcript show renders the call otherwise than the run: %q, run %q\n%s", m, fromRun, shown)
	}
	if want := "text_editor(command='create', path='made.txt', file_text='hello')"; fromRun != want {
		t.Errorf("the call is shown as %s, want the schema's order %s", fromRun, want)
	}
	// The pattern, copied whole and cut before its last argument.
	for _, copied := range []string{fromRun, fromRun[:strings.LastIndex(fromRun, ",")]} {
		reject := write(t, dir, "reject.yaml", "approvers:\n  - name: auto\n    decision: reject\n    tools: "+strconv.Quote(copied)+"\n  - name: auto\n")
		code, stdout, stderr = runBinary(t, env, "", "run", task, "--model", "scripted:"+model, "--approval", reject, "--transcript", filepath.Join(dir, "t2.jsonl"))
		if code != exitOK {
			t.Fatalf("second run: exit %d\n%s\n%s", code, stdout, stderr)
		}
		if _, err := os.Stat(made); err == nil {
			t.Errorf("the pattern %q copied from the screen did not match: the call ran\n%s", copied, stderr)
			os.Remove(made)
		}
		if !strings.Contains(stderr, "→ reject") {
			t.Errorf("no rejection shown for %q:\n%s", copied, stderr)
		}
	}
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
