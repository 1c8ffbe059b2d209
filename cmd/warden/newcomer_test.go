package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noKeyEnv is an environment without any model API key or credential.
func noKeyEnv(t *testing.T, dir string) []string {
	return []string{"WARDEN_HOME=" + filepath.Join(dir, "home"), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=",
		"ANTHROPIC_AUTH_TOKEN=", "ANTHROPIC_FEDERATION_RULE_ID=", "ANTHROPIC_CONFIG_DIR=" + t.TempDir()}
}

// Issue 10 item 5: a missing API key is a configuration error found before
// anything runs (exit 2, no request, no transcript), naming the variable
// and --api-key; given either way, the run goes ahead.
func TestNewcomer5_MissingKeyIsConfigError(t *testing.T) {
	dir := t.TempDir()
	task := write(t, dir, "task.yaml", "name: k\ninput: say hi\n")
	f := newFakeOpenAI(t)
	for _, tc := range []struct {
		args    []string
		env, fl string
	}{
		{[]string{"--model", "openai/gpt-4o", "--base-url", f.URL}, "OPENAI_API_KEY", "--api-key"},
		{[]string{"--model", "anthropic/claude-x", "--base-url", f.URL}, "ANTHROPIC_API_KEY", "--api-key"},
		{[]string{"--model", "scripted:" + write(t, dir, "m.yaml", "- content: hi\n"), "--auto-review-model", "openai/r", "--approvals-reviewer", "auto_review"}, "OPENAI_API_KEY", "--api-key"},
	} {
		tr := filepath.Join(dir, "t.jsonl")
		code, stdout, stderr := runBinary(t, noKeyEnv(t, dir), "", append([]string{"run", task, "--transcript", tr}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.env) || !strings.Contains(stderr, tc.fl) {
			t.Errorf("%v: exit %d, want 2 naming %s and %s\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.env, tc.fl, stdout, stderr)
		}
		if _, err := os.Stat(tr); !os.IsNotExist(err) {
			t.Errorf("%v: a transcript was created (%v)", tc.args, err)
		}
		// warden check finds the same.
		code, _, stderr = runBinary(t, noKeyEnv(t, dir), "", append([]string{"check", task}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.env) {
			t.Errorf("check %v: exit %d\n%s", tc.args, code, stderr)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
	// The key from the flag or from the environment.
	tr := filepath.Join(dir, "ok.jsonl")
	if code, _, stderr := runBinary(t, noKeyEnv(t, dir), "", "run", task, "--quiet", "--transcript", tr, "--model", "openai/fake", "--base-url", f.URL, "--api-key", "k"); code != exitOK {
		t.Errorf("with --api-key: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runBinary(t, append(noKeyEnv(t, dir), "OPENAI_API_KEY=k"), "", "run", task, "--quiet", "--transcript", tr, "--model", "openai/fake", "--base-url", f.URL); code != exitOK {
		t.Errorf("with OPENAI_API_KEY: exit %d\n%s", code, stderr)
	}
	// warden eval: the reviewer's model too.
	code, _, stderr := runBinary(t, noKeyEnv(t, dir), "", "eval", "--reviewer", "auto_review", "--model", "openai/r", "testdata/eval.jsonl")
	if code != exitUsage || !strings.Contains(stderr, "OPENAI_API_KEY") {
		t.Errorf("eval without a key: exit %d\n%s", code, stderr)
	}
}

// dirEntries lists what is in dir (nothing when it does not exist).
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// Issue 10 item 5: warden check validates a task with everything it
// references, as warden run resolves it, without running or creating
// anything; each problem is reported at file:line:col with exit 2.
func TestNewcomer5_CheckTask(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "approval.yaml", "approvers:\n  - name: auto\n    tool: bash\n    args:\n      cmd: {commands: [ls]}\n")
	write(t, dir, "review.yaml", "reviewers:\n  - name: auto\n    decision: continue\n")
	write(t, dir, "team.rules", "prefix_rule(pattern = [\"git\", \"push\"], decision = \"prompt\")\n")
	write(t, dir, "model.yaml", "- content: done\n")
	valid := "name: ok\ninput: go\nmodel: scripted:model.yaml\ntools: [bash]\napproval: approval.yaml\nreview: review.yaml\n" +
		"rules: [team.rules]\nsandbox: {mode: full-access}\napprovals_reviewer: [first_pass, human]\n"
	task := write(t, dir, "task.yaml", valid)
	home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	os.MkdirAll(tmp, 0o755)
	env := []string{"WARDEN_HOME=" + home, "TMPDIR=" + tmp}
	code, stdout, stderr := runBinary(t, env, "", "check", task)
	if code != exitOK || !strings.Contains(stdout, task+": ok (") || stderr != "" {
		t.Fatalf("valid task: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := append(dirEntries(t, home), dirEntries(t, tmp)...); len(got) != 0 {
		t.Errorf("check created %v", got)
	}

	write(t, dir, "bad-approval.yaml", "approvers:\n  - name: auto\n    tool: bash\n    args:\n      cmd: {commands: [ls, \"\"]}\n")
	write(t, dir, "bad.rules", "prefix_rule(pattern = [\"git\"], decision = \"maybe\")\n")
	write(t, dir, "bad-model.yaml", "- content: ok\n- tool_calls: {a: 1}\n")
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"unknown keys", "name: ok\n", "name: ok\nnmae: x\nfoo: 1\n", []string{"task-bad.yaml:2:1: unknown key \"nmae\"", "task-bad.yaml:3:1: unknown key \"foo\""}},
		{"policy file", "approval: approval.yaml", "approval: bad-approval.yaml", []string{"bad-approval.yaml:5:"}},
		{"rules file", "rules: [team.rules]", "rules: [bad.rules]", []string{"bad.rules:1:"}},
		{"missing rules file", "rules: [team.rules]", "rules: [nope.rules]", []string{"task-bad.yaml:7:8: ", "nope.rules"}},
		{"model file", "model: scripted:model.yaml", "model: scripted:bad-model.yaml", []string{"bad-model.yaml:2:15: tool_calls"}},
		{"sandbox", "sandbox: {mode: full-access}", "sandbox: {mode: half-open}", []string{"task-bad.yaml:8:17: ", "half-open"}},
		{"approvals reviewer", "approvals_reviewer: [first_pass, human]", "approvals_reviewer: [first_pass, nobody]", []string{"task-bad.yaml:9:21: ", "nobody"}},
		{"unknown tool", "tools: [bash]", "tools: [bsh]", []string{"task-bad.yaml:4:9: unknown tool \"bsh\""}},
	} {
		bad := write(t, dir, "task-bad.yaml", strings.Replace(valid, tc.from, tc.to, 1))
		code, stdout, stderr := runBinary(t, env, "", "check", bad)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", tc.name, code, stdout, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, stderr)
			}
		}
		if !regexp.MustCompile(`(?m)^\S+:\d+:\d+: `).MatchString(stderr) {
			t.Errorf("%s: no file:line:col:\n%s", tc.name, stderr)
		}
	}
	// The auto-review policy of $WARDEN_HOME is read when auto_review decides.
	os.MkdirAll(home, 0o755)
	write(t, home, "config.toml", "[auto_review]\npolicy = 3\n")
	ar := write(t, dir, "task-ar.yaml", strings.Replace(valid, "approvals_reviewer: [first_pass, human]", "approvals_reviewer: auto_review", 1))
	if code, _, stderr := runBinary(t, env, "", "check", ar); code != exitUsage || !strings.Contains(stderr, "config.toml:2:10: ") {
		t.Errorf("bad auto-review policy: exit %d\n%s", code, stderr)
	}
	if got := dirEntries(t, tmp); len(got) != 0 {
		t.Errorf("check created %v", got)
	}
	// policy check on a task file says what to use instead.
	if code, _, stderr := runBinary(t, env, "", "policy", "check", task); code != exitUsage || !strings.Contains(stderr, "warden check") {
		t.Errorf("policy check of a task: exit %d\n%s", code, stderr)
	}
	// Usage errors.
	if code, _, stderr := runBinary(t, env, "", "check"); code != exitUsage || !strings.Contains(stderr, "missing TASK.yaml") {
		t.Errorf("check without a task: exit %d\n%s", code, stderr)
	}
}

// runPath returns the workdir line of warden run's stdout.
func workdirOf(t *testing.T, stdout string) string {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if w, ok := strings.CutPrefix(l, "workdir: "); ok {
			return w
		}
	}
	t.Fatalf("no workdir: line in\n%s", stdout)
	return ""
}

// Issue 10 item 8: a temporary workdir made for a run is removed when the
// run ends, its path still printed; --keep-workdir keeps it; resuming a run
// whose workdir was removed is a configuration error that says to use
// --keep-workdir.
func TestNewcomer8_TemporaryWorkdirRemoved(t *testing.T) {
	dir := t.TempDir()
	env, task, tr := scratchTask(t, dir, "name: tmp\ninput: go\ntools: [bash]\napproval: [{name: auto}]\n")
	model := write(t, dir, "m.yaml", fileWriter)
	code, stdout, stderr := runBinary(t, env, "", "run", task, "--quiet", "--model", "scripted:"+model, "--transcript", tr)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	wd := workdirOf(t, stdout)
	if _, err := os.Stat(wd); !os.IsNotExist(err) {
		t.Errorf("workdir %s still exists (%v)", wd, err)
	}
	if !strings.Contains(stderr, "removed the temporary workdir "+wd) || !strings.Contains(stderr, "--keep-workdir") {
		t.Errorf("stderr does not say the workdir was removed:\n%s", stderr)
	}
	runID := lines(t, tr)[0]["run_id"].(string)
	code, _, stderr = runBinary(t, env, "", "run", "--resume", runID, "--input", "more", "--transcript", tr, "--model", "scripted:"+model)
	if code != exitUsage || !strings.Contains(stderr, "--keep-workdir") || !strings.Contains(stderr, wd) {
		t.Errorf("resume of a removed workdir: exit %d, want 2 suggesting --keep-workdir\n%s", code, stderr)
	}

	tr2 := filepath.Join(dir, "t2.jsonl")
	code, stdout, stderr = runBinary(t, env, "", "run", task, "--quiet", "--keep-workdir", "--model", "scripted:"+model, "--transcript", tr2)
	if code != exitOK {
		t.Fatalf("--keep-workdir: exit %d\n%s", code, stderr)
	}
	wd = workdirOf(t, stdout)
	t.Cleanup(func() { os.RemoveAll(wd) })
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil {
		t.Errorf("--keep-workdir: %v", err)
	}
	// A resumed run leaves its directory where it is.
	runID = lines(t, tr2)[0]["run_id"].(string)
	if code, _, stderr := runBinary(t, env, "", "run", "--resume", runID, "--input", "more", "--quiet", "--transcript", tr2, "--model", "scripted:"+model); code != exitOK {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil {
		t.Errorf("after the resume: %v", err)
	}
}

// Issue 10 item 8: an interrupted run keeps its temporary workdir, to be
// resumed, and says so.
func TestNewcomer8_InterruptedRunKeepsWorkdir(t *testing.T) {
	dir := t.TempDir()
	task := write(t, dir, "task.yaml", "name: int\ninput: go\ntools: [bash]\napproval: [{name: auto}]\n")
	model := write(t, dir, "m.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch started; sleep 30\"}}]\n- content: done\n")
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), "run", task, "--quiet", "--model", "scripted:"+model, "--transcript", tr)
	cmd.Env = append(os.Environ(), "WARDEN_HOME="+filepath.Join(dir, "home"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(tr)
		if bytes.Contains(data, []byte(`"event":"approval"`)) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no approval event\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the command is running
	cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	wd := workdirOf(t, out.String())
	t.Cleanup(func() { os.RemoveAll(wd) })
	if _, err := os.Stat(wd); err != nil {
		t.Errorf("the interrupted run's workdir is gone: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted") || !strings.Contains(errb.String(), wd) {
		t.Errorf("stderr does not say the workdir was kept:\n%s", errb.String())
	}
}

// Issue 10 item 8: a task's input, a task file and a scripted model file
// have size limits; going over is a configuration error that names the
// file, its size and the limit, before anything runs.
func TestNewcomer8_SizeLimits(t *testing.T) {
	dir := t.TempDir()
	env := []string{"WARDEN_HOME=" + filepath.Join(dir, "home")}
	model := write(t, dir, "m.yaml", "- content: done\n")
	big := strings.Repeat("a", 1<<20+1)
	for _, tc := range []struct {
		name, task, model string
		want              []string
	}{
		{"input", "name: big\ninput: " + big + "\n", model, []string{"task.yaml:2:8: ", "input is 1 MiB", "limit is 1 MiB"}},
		{"task file", "name: big\ninput: go\nsystem: " + strings.Repeat("s", 5<<20) + "\n", model, []string{"task.yaml", "5 MiB", "limit is 4 MiB"}},
		{"model file", "name: m\ninput: go\n", write(t, dir, "big.yaml", "- content: "+strings.Repeat("b", 17<<20)+"\n"), []string{"big.yaml", "17.0 MiB", "limit is 16 MiB"}},
	} {
		task := write(t, dir, "task.yaml", tc.task)
		tr := filepath.Join(dir, tc.name+".jsonl")
		code, _, stderr := runBinary(t, env, "", "run", task, "--model", "scripted:"+tc.model, "--transcript", tr)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2\n%.500s", tc.name, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%.500s", tc.name, w, stderr)
			}
		}
		if _, err := os.Stat(tr); !os.IsNotExist(err) {
			t.Errorf("%s: a transcript was written", tc.name)
		}
	}
}

// Issue 10 item 8: a byte that is not UTF-8 is reported at its own
// line:column in task, policy, rules and model files, not at 1:1.
func TestNewcomer8_NonUTF8Position(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.yaml", "- content: ok\n")
	task := write(t, dir, "task.yaml", "name: u\nsystem: plain\ninput: \"h\xe9llo\"\n")
	for _, args := range [][]string{{"check", task}, {"run", task, "--model", "scripted:" + model}} {
		code, _, stderr := runBinary(t, nil, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "task.yaml:3:10: ") || !strings.Contains(stderr, "UTF-8") {
			t.Errorf("%s: exit %d\n%s", args[0], code, stderr)
		}
	}
	pol := write(t, dir, "p.yaml", "approvers:\n  - name: auto\n    tools: \"bash(cmd='l\xffs\"\n")
	if code, _, stderr := runBinary(t, nil, "", "policy", "check", pol); code != exitUsage || !strings.Contains(stderr, "p.yaml:3:24: ") {
		t.Errorf("policy check: exit %d\n%s", code, stderr)
	}
	badModel := write(t, dir, "bad.yaml", "- content: ok\n- content: \"\xc3\"\n")
	good := write(t, dir, "good.yaml", "name: u\ninput: go\n")
	if code, _, stderr := runBinary(t, nil, "", "check", good, "--model", "scripted:"+badModel); code != exitUsage || !strings.Contains(stderr, "bad.yaml:2:13: ") {
		t.Errorf("model file: exit %d\n%s", code, stderr)
	}
}

// Issue 10 item 8: a transcript whose last line a crash cut short is shown
// up to that line with a warning (exit 0); a bad line in the middle stays
// an error; --resume works from the last complete event and the next event
// starts a line of its own.
func TestNewcomer8_CutLastLine(t *testing.T) {
	dir := t.TempDir()
	env := []string{"WARDEN_HOME=" + filepath.Join(dir, "home")}
	work := filepath.Join(dir, "work")
	os.MkdirAll(work, 0o755)
	task := write(t, dir, "task.yaml", "name: cut\ninput: go\nworkdir: work\ntools: [bash]\napproval: [{name: auto}]\n")
	model := write(t, dir, "m.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"echo first\"}}]\n- content: all done\n")
	tr := filepath.Join(dir, "t.jsonl")
	if code, _, stderr := runBinary(t, env, "", "run", task, "--quiet", "--model", "scripted:"+model, "--transcript", tr); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	whole, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(whole, []byte("\n"))
	runID := lines(t, tr)[0]["run_id"].(string)
	// A crash while the run_end line was written: its start is there, its
	// end and newline are not.
	i := bytes.LastIndex(whole[:len(whole)-1], []byte("\n")) + 1
	cut := append(append([]byte{}, whole[:i]...), whole[i:i+25]...)
	if err := os.WriteFile(tr, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBinary(t, env, "", "transcript", "show", tr)
	if code != exitOK || !strings.Contains(stdout, "all done") || !strings.Contains(stderr, "warning") ||
		!strings.Contains(stderr, "line "+itoa(n)) {
		t.Errorf("show of a cut transcript: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The same bytes in the middle are an error.
	middle := append(append(append([]byte{}, whole[:i]...), whole[i:i+25]...), '\n')
	middle = append(middle, whole[i:]...)
	mid := write(t, dir, "mid.jsonl", string(middle))
	if code, _, stderr := runBinary(t, env, "", "transcript", "show", mid); code != exitError || !strings.Contains(stderr, "line "+itoa(n)) {
		t.Errorf("a bad middle line: exit %d, want 1\n%s", code, stderr)
	}

	model2 := write(t, dir, "m2.yaml", "- content: resumed fine\n")
	code, stdout, stderr = runBinary(t, env, "", "run", "--resume", runID, "--input", "more", "--quiet", "--transcript", tr, "--model", "scripted:"+model2)
	if code != exitOK || !strings.Contains(stdout, "resumed fine") {
		t.Fatalf("resume of a cut transcript: exit %d\n%s\n%s", code, stdout, stderr)
	}
	after, _ := os.ReadFile(tr)
	if !bytes.HasPrefix(after, whole[:i]) {
		t.Errorf("the complete events before the cut line changed")
	}
	code, stdout, stderr = runBinary(t, env, "", "transcript", "show", tr)
	if code != exitOK || stderr != "" || !strings.Contains(stdout, "resumed fine") || !strings.Contains(stdout, "cut short") {
		t.Errorf("show after the resume: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, e := range lines(t, tr) { // every line decodes
		if e["event"] == nil {
			t.Errorf("a line without an event: %v", e)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Issue 10 item 8: errors never print Go type names.
func TestNewcomer8_NoGoTypeNames(t *testing.T) {
	dir := t.TempDir()
	goType := regexp.MustCompile(`Go (value|struct)|struct \{|map\[string\]|json\.RawMessage|\[\]string|interface \{`)
	for _, tc := range []struct {
		file, content string
		args          []string
	}{
		{"array.jsonl", "[1, 2]\n", []string{"transcript", "show"}},
		{"field.jsonl", `{"event":"run_start","id":"1","run_id":"r","agent":"main","task":["x"]}` + "\n", []string{"transcript", "show"}},
		{"model.jsonl", `{"event":"model","id":"1","run_id":"r","agent":"main","input_tokens":"many"}` + "\n", []string{"transcript", "show"}},
		{"entry.jsonl", `{"event":"run_start","id":"1","run_id":"r","agent":"main","approval":[{"name":3}]}` + "\n", []string{"transcript", "show"}},
		{"calls.jsonl", `{"event":"model","id":"1","run_id":"r","agent":"main","output":{"tool_calls":{"a":1}}}` + "\n", []string{"transcript", "show"}},
		{"data.jsonl", "[1]\n", []string{"eval", "--reviewer", "rules"}},
		{"obj.jsonl", `{"id": {"a": 1}}` + "\n", []string{"eval", "--reviewer", "rules"}},
	} {
		path := write(t, dir, tc.file, tc.content)
		code, stdout, stderr := runBinary(t, nil, "", append(tc.args, path)...)
		if code == exitOK || goType.MatchString(stdout+stderr) || !strings.Contains(stderr, tc.file) {
			t.Errorf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), tc.file, code, stdout, stderr)
		}
	}
}

// Issue 10 item 8: a run that did not complete keeps its temporary workdir
// for --resume, and says why.
func TestNewcomer8_UnfinishedRunKeepsWorkdir(t *testing.T) {
	dir := t.TempDir()
	env, task, tr := scratchTask(t, dir, "name: lim\ninput: go\ntools: [bash]\napproval: [{name: auto}]\nlimits: {turns: 1}\n")
	code, stdout, stderr := runBinary(t, env, "", "run", task, "--quiet", "--model", "scripted:"+write(t, dir, "m.yaml", fileWriter), "--transcript", tr)
	if code != exitLimited {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	wd := workdirOf(t, stdout)
	t.Cleanup(func() { os.RemoveAll(wd) })
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil || !strings.Contains(stderr, "kept the temporary workdir "+wd) {
		t.Errorf("a limited run's workdir: %v\n%s", err, stderr)
	}
	runID := lines(t, tr)[0]["run_id"].(string)
	model2 := write(t, dir, "m2.yaml", "- tool_calls: [{id: c2, function: bash, arguments: {cmd: \"cat f.txt\"}}]\n- content: done\n")
	if code, _, stderr := runBinary(t, env, "", "run", "--resume", runID, "--input", "go on", "--quiet", "--transcript", tr, "--model", "scripted:"+model2); code != exitLimited && code != exitOK {
		t.Errorf("resume: exit %d\n%s", code, stderr)
	}
}

// fileWriter is a model script that writes f.txt in the workdir, then ends.
const fileWriter = "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"echo x > f.txt\"}}]\n- content: done\n"

// scratchTask writes the task taskYAML in dir and returns the environment
// that gives its runs their own warden home in dir, the task file and a
// transcript path in dir.
func scratchTask(t *testing.T, dir, taskYAML string) (env []string, task, transcript string) {
	t.Helper()
	return []string{"WARDEN_HOME=" + filepath.Join(dir, "home")}, write(t, dir, "task.yaml", taskYAML), filepath.Join(dir, "t.jsonl")
}
