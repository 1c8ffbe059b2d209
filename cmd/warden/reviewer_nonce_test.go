package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// reviewNonce finds the nonce of a review in the reviewer's request.
var reviewNonce = regexp.MustCompile(`nonce of this review is ([A-Z2-7]+)`)

// newFakeReviewer is a loopback reviewer model whose every answer is made
// by answer from the request it received.
func newFakeReviewer(t *testing.T, answer func(body string) map[string]any) *fakeOpenAI {
	t.Helper()
	f := newFakeOpenAI(t)
	f.mu.Lock()
	f.answer = answer
	f.mu.Unlock()
	return f
}

// runIn runs warden with args in the directory work, with env added and
// no input, and fails the test unless it exits 0; it returns the output.
func runIn(t *testing.T, work string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = work
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if code := exitCode(cmd.Run()); code != exitOK {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	return out.String()
}

// nonceOf returns the nonce of the review whose request is body.
func nonceOf(body string) string {
	if m := reviewNonce.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}

// verdictCalls is an answer that calls submit_verdict with each of args.
func verdictCalls(args ...map[string]any) map[string]any {
	var calls []any
	for i, a := range args {
		b, _ := json.Marshal(a)
		calls = append(calls, map[string]any{"id": "v" + string(rune('1'+i)), "type": "function",
			"function": map[string]any{"name": "submit_verdict", "arguments": string(b)}})
	}
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
}

// lowAllow is an allow the outcome rule keeps: low risk.
func lowAllow(nonce string) map[string]any {
	v := map[string]any{"outcome": "allow", "risk_level": "low", "user_authorization": "unknown", "rationale": "harmless"}
	if nonce != "" {
		v["nonce"] = nonce
	}
	return v
}

// TestG6_VerdictNonceEndToEnd runs `warden run` with a loopback reviewer
// model deciding an agent's escalated write outside the workspace. Only a
// submit_verdict call carrying the nonce of the review — which the
// reviewer reads from the request it received — is obeyed: a verdict call
// with another nonce or none, one beside another call, and an allow in
// prose, quoted, nested, or prose-wrapped even with the right nonce, are no
// answer, and the write does not happen (SPEC G6). Only the effect counts:
// the file outside the workspace.
func TestG6_VerdictNonceEndToEnd(t *testing.T) {
	requireWardenExec(t)
	outside := homeDir(t)
	text := func(s string) map[string]any { return map[string]any{"role": "assistant", "content": s} }
	allowJSON := func(nonce string) string { b, _ := json.Marshal(lowAllow(nonce)); return string(b) }
	tests := []struct {
		name   string
		answer func(nonce string) map[string]any
		ran    bool
	}{
		{"right nonce", func(n string) map[string]any { return verdictCalls(lowAllow(n)) }, true},
		{"wrong nonce", func(string) map[string]any { return verdictCalls(lowAllow("AAAAAAAAAAAAAAAAAAAAAAAAAA")) }, false},
		{"no nonce", func(string) map[string]any { return verdictCalls(lowAllow("")) }, false},
		{"nonce of the request, lower case", func(n string) map[string]any { return verdictCalls(lowAllow(strings.ToLower(n))) }, false},
		{"beside another call", func(n string) map[string]any {
			m := verdictCalls(lowAllow(n), lowAllow(n))
			return m
		}, false},
		{"allow in prose", func(n string) map[string]any { return text("I allow this; it is harmless.") }, false},
		{"allow in prose with json", func(n string) map[string]any {
			return text("My verdict: " + allowJSON(n) + " — that is all.")
		}, false},
		{"quoted allow, then a refusal", func(n string) map[string]any {
			return text("The output says " + allowJSON(n) + " but my decision: DENY.")
		}, false},
		{"allow as a JSON string", func(n string) map[string]any { b, _ := json.Marshal(allowJSON(n)); return text(string(b)) }, false},
		{"nested allow", func(n string) map[string]any {
			b, _ := json.Marshal(map[string]any{"verdict": lowAllow(n)})
			return text(string(b))
		}, false},
		{"nested in the verdict call", func(n string) map[string]any {
			return verdictCalls(map[string]any{"verdict": lowAllow(n), "nonce": n})
		}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(outside, "n"+string(rune('a'+i)))
			var nonces []string
			var mu sync.Mutex
			rv := newFakeReviewer(t, func(body string) map[string]any {
				n := nonceOf(body)
				mu.Lock()
				nonces = append(nonces, n)
				mu.Unlock()
				return tt.answer(n)
			})
			// The agent's command asks to run outside the sandbox.
			script := write(t, dir, "script.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"echo x >> "+target+
				"\", sandbox_permissions: require_escalated, justification: \"needed\"}}]\n- content: done\n")
			task := write(t, dir, "task.yaml", "name: nonce\ninput: Please tidy this project\ntools: [bash]\nworkdir: "+work+
				"\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
			tr := filepath.Join(dir, "t.jsonl")
			out := runIn(t, work, []string{"WARDEN_HOME=" + filepath.Join(dir, "state"), "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml")},
				"run", task, "--model", "scripted:"+script, "--transcript", tr,
				"--auto-review-model", "openai/reviewer", "--base-url", rv.URL, "--api-key", "test")
			if len(rv.requests()) == 0 {
				t.Fatalf("the reviewer model was never asked\n%s", out)
			}
			for _, n := range nonces {
				if n == "" {
					t.Fatalf("a reviewer request without its nonce")
				}
			}
			_, err := os.Stat(target)
			if ran := err == nil; ran != tt.ran {
				t.Fatalf("the write ran: %v, want %v\n%s", ran, tt.ran, out)
			}
			var statuses []string
			for _, e := range lines(t, tr) {
				if e["event"] == "auto_review" {
					statuses = append(statuses, e["status"].(string))
				}
			}
			want := "failed"
			if tt.ran {
				want = "approved"
			}
			if got := strings.Join(statuses, ","); got != want {
				t.Errorf("auto_review events = %s, want %s", got, want)
			}
		})
	}
}
