package main

import (
	"os"
	"path/filepath"
	"testing"
)

// One reading of the arguments (SPEC A8), against `warden run`: a call
// whose arguments name cmd twice, or by another case, is a parsing error
// before the allow-list approver sees it, so the other spelling never runs.
func TestA8_DuplicateAndCaseVariantArgumentsAreParsingErrors(t *testing.T) {
	dir := t.TempDir()
	work, outside := filepath.Join(dir, "work"), t.TempDir()
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := write(t, work, "victim.txt", "precious")
	x := filepath.Join(outside, "x")
	raw := func(id, fn, args string) string {
		return "- tool_calls: [{id: " + id + ", function: " + fn + ", arguments_raw: '" + args + "'}]\n"
	}
	script := write(t, dir, "turns.yaml",
		raw("b1", "bash", `{"cmd":"ls","CMD":"touch `+x+`"}`)+
			raw("b2", "bash", `{"cmd":"ls","cmd":"touch `+x+`"}`)+
			raw("b3", "bash", `{"CMD":"touch `+x+`"}`)+
			raw("e1", "text_editor", `{"command":"create","path":"inside.txt","file_text":"ok","PATH":"victim.txt","File_Text":"pwned"}`)+
			raw("e2", "text_editor", `{"command":"create","path":"inside.txt","file_text":"ok","path":"victim.txt"}`)+
			"- content: done\n")
	write(t, dir, "approval.yaml", "approvers:\n  - name: auto\n    tools: [\"bash(cmd='ls\", \"text_editor(command='create', path='inside.txt'\"]\n")
	task := write(t, dir, "task.yaml", "name: a8\ninput: go\nworkdir: work\ntools: [bash, text_editor]\napproval: approval.yaml\n")
	tr := filepath.Join(dir, "t.jsonl")
	p := wardenProc{env: []string{"WARDEN_HOME=" + filepath.Join(dir, "home")}}
	p.ok(t, "run", task, "--model", "scripted:"+script, "--transcript", tr)
	if _, err := os.Stat(x); err == nil {
		t.Error("touch ran outside the workspace")
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious" {
		t.Errorf("victim.txt = %q", data)
	}
	for _, e := range lines(t, tr) {
		switch e["event"] {
		case "approval":
			t.Errorf("an approver saw %v", e["call"])
		case "tool":
			if er, _ := e["error"].(map[string]any); er == nil || er["type"] != "parsing" {
				t.Errorf("%v: error %v, want parsing", e["call_id"], e["error"])
			}
		}
	}
}
