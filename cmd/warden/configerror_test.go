package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

// fileWriter is a model script that writes f.txt in the workdir, then ends.
const fileWriter = "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"echo x > f.txt\"}}]\n- content: done\n"

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
