package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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
