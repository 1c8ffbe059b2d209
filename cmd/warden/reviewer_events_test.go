package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// G4, G13 through `warden run`: each tool call the reviewer makes is
// recorded as an auto_review_tool event of its own, tied to the review
// (its review_id and the agent's call it judges) — name, arguments, result
// size, error, refused because its tools stay inside. None of them is a
// decision on the agent's call: the run records one approval and one
// auto_review for that call, no decision or denial event names a reviewer
// call, and no auto_review_tool event has a denial id.
func TestG4_ReviewerToolActivityIsItsOwnEventsWardenRun(t *testing.T) {
	requireWardenExec(t)
	base := homeDir(t)
	outside, work, dir := filepath.Join(base, "outside"), filepath.Join(base, "work"), t.TempDir()
	for _, d := range []string{outside, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, work, "notes.txt", "twelve bytes")
	q := strconv.Quote
	main := write(t, dir, "main.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: "+q("touch "+filepath.Join(work, "done"))+
		", sandbox_permissions: require_escalated, justification: \"needed\"}}]\n- content: done\n")
	reviewer := write(t, dir, "reviewer.yaml", "- tool_calls:\n"+
		"  - {id: r1, function: bash, arguments: {cmd: "+q("echo pwned > "+filepath.Join(outside, "keep"))+", sandbox_permissions: require_escalated, justification: \"the user said so\"}}\n"+
		"  - {id: r2, function: bash, arguments: {cmd: "+q("echo new > "+filepath.Join(outside, "new"))+"}}\n"+
		"  - {id: r3, function: read_file, arguments: {path: notes.txt}}\n"+
		`- content: '{"outcome": "deny", "risk_level": "high", "user_authorization": "unknown", "rationale": "no"}'`+"\n")
	task := write(t, dir, "task.yaml", "name: activity\ninput: go\ntools: [bash]\nworkdir: "+work+
		"\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
	tr := filepath.Join(dir, "t.jsonl")
	out := runIn(t, work, []string{"HOME=" + base, "WARDEN_HOME=" + filepath.Join(dir, "state"), "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")},
		"run", task, "--model", "scripted:"+main, "--auto-review-model", "scripted:"+reviewer, "--transcript", tr)
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("the reviewer's shell created a file outside the workspace")
	}

	var reviewID string
	var tools []map[string]any
	approvals := 0
	reviewerCalls := map[string]bool{"r1": true, "r2": true, "r3": true}
	for _, e := range lines(t, tr) {
		switch e["event"] {
		case "auto_review":
			if reviewID != "" {
				t.Errorf("a second auto_review event: %v", e["status"])
			}
			reviewID, _ = e["review_id"].(string)
			if e["call_id"] != "c1" || e["status"] != "denied" || e["denial_id"] == "" {
				t.Errorf("auto_review event: call %v status %v denial %v", e["call_id"], e["status"], e["denial_id"])
			}
			if len(tools) != 3 {
				t.Errorf("%d auto_review_tool events before the review's, want 3", len(tools))
			}
		case "auto_review_tool":
			tools = append(tools, e)
		case "approval":
			approvals++
		}
		if id, _ := e["call_id"].(string); reviewerCalls[id] {
			t.Errorf("a %v event names the reviewer's call %s as the agent's", e["event"], id)
		}
		if e["event"] != "auto_review_tool" {
			if call, ok := e["call"].(map[string]any); ok && reviewerCalls[call["id"].(string)] {
				t.Errorf("a %v event is a decision on the reviewer's call %v", e["event"], call["id"])
			}
		}
	}
	if reviewID == "" || approvals != 1 {
		t.Fatalf("review id %q, %d approval events (want 1)\n%s", reviewID, approvals, out)
	}
	want := []struct {
		id, function string
		refused      bool
		bytes        int
	}{{"r1", "bash", true, -1}, {"r2", "bash", true, -1}, {"r3", "read_file", false, len("twelve bytes")}}
	for i, e := range tools {
		if i >= len(want) {
			break
		}
		w := want[i]
		if e["review_id"] != reviewID || e["call_id"] != "c1" || e["tool_call_id"] != w.id || e["function"] != w.function {
			t.Errorf("tool event %d: %v", i, e)
		}
		if _, ok := e["denial_id"]; ok {
			t.Errorf("tool event %d has a denial id", i)
		}
		if refused, _ := e["refused"].(bool); refused != w.refused {
			t.Errorf("tool event %d refused = %v, want %v: %v", i, refused, w.refused, e["error"])
		}
		if args, _ := e["arguments"].(map[string]any); args == nil {
			t.Errorf("tool event %d without arguments", i)
		}
		n, _ := e["result_bytes"].(float64)
		if (w.bytes >= 0 && int(n) != w.bytes) || n <= 0 {
			t.Errorf("tool event %d result_bytes = %v, want %d", i, n, w.bytes)
		}
		// The escalated call is refused with a permission error; the plain
		// write ran, its sandbox blocked it, and nobody was asked.
		if errObj, _ := e["error"].(map[string]any); (w.id == "r1") != (errObj != nil && errObj["type"] == "permission") {
			t.Errorf("tool event %d error = %v", i, e["error"])
		}
	}
}
