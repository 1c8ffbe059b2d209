package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// SPEC G14 and issue 20 item 8: warden rules check and warden check warn of
// an allow rule on a bare shell or interpreter, at the rule's position, on
// stderr; the decision, the exit code and "ok" are unchanged, and a narrow
// rule is not warned of.
func TestG14_CheckWarnsOfBroadAllowRules(t *testing.T) {
	dir := t.TempDir()
	broad := write(t, dir, "broad.rules", "prefix_rule(pattern = [\"cargo\", \"test\"])\nprefix_rule(pattern = [\"python3\"])\n")
	narrow := write(t, dir, "narrow.rules", "prefix_rule(pattern = [\"python3\", \"-m\", \"pytest\"])\n")
	const script = `python3 -c 'import shutil; shutil.rmtree("/home")'`
	warning := broad + ":2:1: warning: the allow rule [\"python3\"] allows every python3 command"

	// rules check: the warning is true — the broad rule allows the
	// destructive inline code (exit 0), the narrow one does not (10).
	code, stdout, stderr := runBinary(t, nil, "", "rules", "check", "--rules", broad, "--", script)
	if code != 0 || !strings.Contains(stderr, warning) || strings.Contains(stdout, "warning") {
		t.Errorf("rules check, broad rule: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr = runBinary(t, nil, "", "rules", "check", "--rules", narrow, "--", script)
	if code != 10 || strings.Contains(stderr, "warning") {
		t.Errorf("rules check, narrow rule: exit %d\n%s", code, stderr)
	}

	// warden check: the task's rules: and --rules are both looked at.
	model := write(t, dir, "m.yaml", "- content: done\n")
	withRules := write(t, dir, "task.yaml", "input: hi\nmodel: scripted:m.yaml\nrules: [broad.rules]\n")
	plain := write(t, dir, "plain.yaml", "input: hi\nmodel: scripted:"+filepath.Base(model)+"\n")
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"check", withRules}, true},
		{[]string{"check", plain, "--rules", broad}, true},
		{[]string{"check", plain, "--rules", narrow}, false},
		{[]string{"check", plain}, false},
	} {
		code, stdout, stderr := runBinary(t, noKeyEnv(t, dir), "", tc.args...)
		if code != exitOK || !strings.Contains(stdout, ": ok (") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
		if got := strings.Contains(stderr, warning); got != tc.warn {
			t.Errorf("%v: warned %v, want %v\n%s", tc.args, got, tc.warn, stderr)
		}
	}
}

// Issue 20 item 5: the first pass is the approver "first_pass"; "rules",
// its old name, still works — in approvals_reviewer lists and policy
// files — with a warning on stderr, so that "rules" can mean exec rules
// only.
func TestG14_FirstPassOldNameWarnsAtCheck(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WARDEN_HOME", filepath.Join(dir, "home"))
	write(t, dir, "model.yaml", "- content: done\n")
	write(t, dir, "approval.yaml", "approvers:\n  - name: rules\n    tool: bash\n")
	base := "name: ok\ninput: go\nmodel: scripted:model.yaml\ntools: [bash]\nsandbox: {mode: full-access}\n"
	for _, tc := range []struct {
		name, task string
		warn       []string // each a line of stderr; none: stderr is empty
	}{
		{"new name", base + "approvals_reviewer: [first_pass, human]\n", nil},
		{"old name in approvals_reviewer", base + "approvals_reviewer: [rules, human]\n",
			[]string{`task.yaml:6:21: approvals_reviewer: "rules" is the old name of the approver "first_pass": write "first_pass"`}},
		{"old name in a policy file", base + "approval: approval.yaml\n",
			[]string{`approval.yaml:2:5: "rules" is the old name of the approver "first_pass"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := write(t, dir, "task.yaml", tc.task)
			code, stdout, stderr := warden(t, "check", task)
			if code != exitOK || !strings.Contains(stdout, task+": ok (") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if len(tc.warn) == 0 && stderr != "" {
				t.Fatalf("stderr %q, want none", stderr)
			}
			for _, w := range tc.warn {
				if !strings.Contains(stderr, "warning: "+filepath.Join(dir, "")) || !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks the warning %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// The old name builds the same first pass as the new one: warden eval
// reaches the same decisions on every item under either, and only the
// old name is warned about.
func TestG14_FirstPassOldNameDecidesAsTheNewName(t *testing.T) {
	report := func(name string) (map[string]any, string) {
		out := filepath.Join(t.TempDir(), "report.json")
		code, stdout, stderr := wardenEval(t, "--reviewer", name, "testdata/eval.jsonl", "--json", out)
		if code != exitOK {
			t.Fatalf("--reviewer %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
		return readEvalReport(t, out), stderr
	}
	newer, newErr := report("first_pass")
	older, oldErr := report("rules")
	if newErr != "" || !strings.Contains(oldErr, `warning: --reviewer: "rules" is the old name of the approver "first_pass"`) {
		t.Errorf("stderr first_pass %q, rules %q", newErr, oldErr)
	}
	if newer["reviewer"] != "first_pass" || older["reviewer"] != "rules" {
		t.Errorf("reviewers %v, %v: each report names the reviewer as given", newer["reviewer"], older["reviewer"])
	}
	for _, k := range []string{"overall", "by_category", "by_source", "without_ambiguous"} {
		if !reflect.DeepEqual(newer[k], older[k]) {
			t.Errorf("%s differs:\nfirst_pass %v\nrules      %v", k, newer[k], older[k])
		}
	}
}

// warden policy check and --approval warn about the old name too; the
// policy still loads.
func TestG14_FirstPassOldNameWarnsAtPolicyCheckAndFlag(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WARDEN_HOME", filepath.Join(dir, "home"))
	old := write(t, dir, "old.yaml", "approvers:\n  - name: rules\n    tool: bash\n")
	cur := write(t, dir, "new.yaml", "approvers:\n  - name: first_pass\n    tool: bash\n")
	code, stdout, stderr := warden(t, "policy", "check", old, cur)
	if code != exitOK || !strings.Contains(stdout, old+": ok (1 approver)") || !strings.Contains(stdout, cur+": ok (1 approver)") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if want := "warning: " + old + `:2:5: "rules" is the old name of the approver "first_pass"`; !strings.Contains(stderr, want) || strings.Count(stderr, "warning:") != 1 {
		t.Errorf("stderr lacks %q once:\n%s", want, stderr)
	}
	write(t, dir, "model.yaml", "- content: done\n")
	task := write(t, dir, "task.yaml", "name: ok\ninput: go\nmodel: scripted:model.yaml\ntools: [bash]\n")
	code, _, stderr = warden(t, "check", "--approval", "rules", task)
	if code != exitOK || !strings.Contains(stderr, `warning: --approval: "rules" is the old name`) {
		t.Errorf("--approval rules: exit %d\n%s", code, stderr)
	}
}

// warden run warns about the old name on stderr, runs, and records the
// approvals reviewers as the task wrote them.
func TestG14_FirstPassOldNameWarnsAtRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WARDEN_HOME", filepath.Join(dir, "home"))
	script := write(t, dir, "turns.yaml", "- content: done\n")
	task := write(t, dir, "task.yaml", "name: t\ninput: go\ntools: [bash]\nsandbox: {mode: workspace-write}\napprovals_reviewer: [rules, human]\n")
	tr := filepath.Join(dir, "t.jsonl")
	code, out, errs := warden(t, "run", task, "--model", "scripted:"+script, "--transcript", tr, "--sandbox-unenforced")
	if code != exitOK || !strings.Contains(out, "done") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(errs, `warden: warning: `+task+`:5:21: approvals_reviewer: "rules" is the old name of the approver "first_pass"`) {
		t.Errorf("stderr lacks the warning:\n%s", errs)
	}
	start := lines(t, tr)[0]
	settings, _ := start["settings"].(map[string]any)
	if got, _ := settings["approvals_reviewer"].([]any); len(got) != 2 || got[0] != "rules" || got[1] != "human" {
		t.Errorf("run_start settings %v: want approvals_reviewer [rules human] as written", settings)
	}
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
