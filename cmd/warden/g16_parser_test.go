package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

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
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), "run", task, "--keep-workdir", "--transcript", tr)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden run: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if w, ok := strings.CutPrefix(line, "workdir: "); ok {
			workdir = w
		}
	}
	if workdir == "" {
		t.Fatalf("no workdir in stdout:\n%s", out.String())
	}
	t.Cleanup(func() { os.RemoveAll(workdir) })
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e struct {
			Event    string `json:"event"`
			CallID   string `json:"call_id"`
			Decision string `json:"decision"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("transcript line %s: %v", line, err)
		}
		if e.Event == "approval" && e.CallID == first {
			d1 = e.Decision
		}
		if e.Event == "approval" && e.CallID == second {
			d2 = e.Decision
		}
	}
	return workdir, d1, d2, out.String()
}
