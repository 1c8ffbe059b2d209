package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Attack (issue 21 item 4), through the real binaries: the person approves
// the run's `git status` and allows its exact prefix for the run. The
// agent then calls `git status --short`, which runs without asking,
// approved in the person's name — and, in the same turn, scripts that
// start with `git status` and do more: delete important.txt after it,
// create files through a substitution, a redirection or a pipeline, run a
// ./git of its own. Each of those waits for the person, who rejects them;
// important.txt survives, no file was made, and the transcript records the
// rule and who decided each call.
func TestS4_PrefixRuleNeverRunsMoreThanItsPrefix(t *testing.T) {
	requireGit(t)
	url, env := served(t, "WARDEN_OPERATOR=alice")
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	important := write(t, dir, "important.txt", "keep me\n")
	fakeGit := write(t, dir, "git", "#!/bin/sh\ntouch "+filepath.Join(dir, "pwned-by-dot-git")+"\n")
	if err := os.Chmod(fakeGit, 0o755); err != nil {
		t.Fatal(err)
	}
	attacks := map[string]string{
		"a2": "git status; rm -f important.txt",
		"a3": "git status && rm -f important.txt",
		"a4": "git status\nrm -f important.txt",
		"a5": "git status $(touch pwned-by-substitution)",
		"a6": "git status > pwned-by-redirection",
		"a7": "git status | tee pwned-by-pipeline",
		"a8": "./git status",
		"a9": "git status; touch pwned-by-second-command",
	}
	var calls strings.Builder
	for id, cmd := range attacks {
		b, _ := json.Marshal(cmd)
		fmt.Fprintf(&calls, "  - {id: %s, function: bash, arguments: {cmd: %s}}\n", id, b)
	}
	turns := write(t, dir, "turns.yaml", `
- tool_calls:
  - {id: c1, function: bash, arguments: {cmd: "git status"}}
- tool_calls:
  - {id: c2, function: bash, arguments: {cmd: "git status --short"}}
`+calls.String()+`- content: done
`)
	tk := write(t, dir, "task.yaml", "name: prefix\ninput: go\ntools: [bash]\nworkdir: "+dir+"\n")
	tr := filepath.Join(dir, "t.jsonl")
	stderr, exited := startRun(t, env, tk, "--model", "scripted:"+turns, "--approval", "human", "--server", url, "--transcript", tr)

	var first apiRequest
	waitPending(t, env, url, stderr, func(rs []apiRequest) bool {
		for _, r := range rs {
			if strings.Contains(string(r.Call.Arguments), `"git status"`) {
				first = r
			}
		}
		return first.ID != ""
	})
	var granted map[string]any
	if code := api(t, env, "POST", url+"/api/requests/"+first.ID+"/decision", map[string]any{"decision": "approve", "allow_prefix": []string{"git", "status"}}, &granted); code != 200 || granted["rule"] == nil {
		t.Fatalf("approve with allow_prefix: %d %v", code, granted)
	}
	// Every attack of the second turn waits for the person; c2 does not.
	waiting := map[string]apiRequest{}
	waitPending(t, env, url, stderr, func(rs []apiRequest) bool {
		for _, r := range rs {
			for id, cmd := range attacks {
				b, _ := json.Marshal(map[string]string{"cmd": cmd})
				if string(r.Call.Arguments) == string(b) {
					waiting[id] = r
				}
			}
		}
		return len(waiting) == len(attacks)
	})
	for id := range attacks {
		if code := api(t, env, "POST", url+"/api/requests/"+waiting[id].ID+"/decision", map[string]string{"decision": "reject"}, nil); code != 200 {
			t.Fatalf("rejecting %s: %d", id, code)
		}
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the run: %v\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end\nstderr:\n%s", stderr.String())
	}
	if b, err := os.ReadFile(important); err != nil || string(b) != "keep me\n" {
		t.Errorf("important.txt: %q, %v; want it untouched", b, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "pwned") {
			t.Errorf("%s was made: a call the rule does not cover ran", e.Name())
		}
	}
	// The transcript: c1 approved by the person with the rule noted, c2
	// approved by the rule in alice's name and run, the attacks rejected
	// and never run.
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	approvals, ran, results := map[string]map[string]any{}, map[string]bool{}, map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		id, _ := e["call_id"].(string)
		switch e["event"] {
		case "approval":
			approvals[id] = e
		case "tool":
			ran[id] = e["error"] == nil // a rejected call has an approval error
			results[id], _ = e["result"].(string)
		}
	}
	if a := approvals["c1"]; a["decision"] != "approve" || a["decided_by"] != "alice" || !strings.Contains(fmt.Sprint(a["explanation"]), "allowed the exact prefix `git status` for the rest of this run") {
		t.Errorf("c1's approval in the transcript: %v", a)
	}
	if a := approvals["c2"]; a["decision"] != "approve" || a["decided_by"] != "alice" || !strings.Contains(fmt.Sprint(a["explanation"]), "by this run's rule: the exact prefix `git status`") || !ran["c2"] || !strings.Contains(results["c2"], "important.txt") {
		t.Errorf("c2's approval in the transcript: %v (ran: %v, %q), want approved by alice's rule and run", a, ran["c2"], results["c2"])
	}
	for id := range attacks {
		if a := approvals[id]; a["decision"] != "reject" || ran[id] {
			t.Errorf("%s (%q): %v, ran %v; want rejected by the person and never run", id, attacks[id], a["decision"], ran[id])
		}
	}
}

// requireGit skips a test that needs git where there is none.
func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: " + err.Error())
	}
}
