package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), append([]string{"run", task, "--keep-workdir", "--transcript", tr}, extra...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("warden run: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		if w, ok := strings.CutPrefix(sc.Text(), "workdir: "); ok {
			workdir = w
		}
	}
	if workdir == "" {
		t.Fatalf("no workdir in stdout:\n%s", out.String())
	}
	t.Cleanup(func() { os.RemoveAll(workdir) })
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Errorf("pwned created in the directory warden ran from")
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e struct {
			Event, CallID, Decision string
		}
		if err := json.Unmarshal(line, &struct {
			Event    *string `json:"event"`
			CallID   *string `json:"call_id"`
			Decision *string `json:"decision"`
		}{&e.Event, &e.CallID, &e.Decision}); err != nil {
			t.Fatalf("transcript line %s: %v", line, err)
		}
		if e.Event == "approval" && e.CallID == callID {
			decision = e.Decision
		}
	}
	return workdir, decision, out.String()
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
	var out, errb bytes.Buffer
	cmd := exec.Command(binary(t), "policy", "check", bad)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err == nil || !strings.Contains(out.String()+errb.String(), "bad.yaml:5:28: args.cmd.commands[1]: empty command prefix") {
		t.Errorf("policy check bad.yaml: %v\n%s%s", err, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	cmd = exec.Command(binary(t), "policy", "check", good, "../../examples/shell.yaml", "../../examples/quickstart/approval.yaml")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Errorf("policy check good.yaml: %v\n%s%s", err, out.String(), errb.String())
	}
}
