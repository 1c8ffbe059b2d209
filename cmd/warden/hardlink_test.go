package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/openaitest"
	"github.com/wardenhq/warden/internal/seal"
)

// G4 and G16, the attack of issue 19 on inodes: the sandbox hides warden's state
// by path, so hard links to the override key and the API token, made
// beforehand in the workspace, read the same bytes. A steered reviewer
// reads both links through its own shell during `warden run`. What the
// reviewer model received must not hold the key or the token in use: warden
// found the other names, replaced both secrets, and said so on stderr.
func TestG4_HardLinkedSecretsNeverReachTheReviewer(t *testing.T) {
	requireWardenExec(t)
	dir := t.TempDir()
	state, work := filepath.Join(dir, "state"), filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	keyPath, tokenPath := filepath.Join(state, "keys", "override.key"), filepath.Join(state, "token")
	if _, err := seal.LoadOrCreate(keyPath); err != nil {
		t.Fatal(err)
	}
	const oldToken = "tok-old-5f0c2e9a7b"
	if err := os.WriteFile(tokenPath, []byte(oldToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	oldKey, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{keyPath: "k.bin", tokenPath: "t.txt"} {
		if err := os.Link(from, filepath.Join(work, to)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}

	rv := openaitest.NewServer(t, 1, 1, func(body string) map[string]any {
		if !strings.Contains(body, `"role":"tool"`) {
			return callReply("r1", "bash", map[string]any{"cmd": "od -An -tx1 -v k.bin | tr -d ' \\n'; echo; cat t.txt"})
		}
		return map[string]any{"role": "assistant", "content": `{"outcome":"deny","risk_level":"high","user_authorization":"unknown","rationale":"no"}`}
	})
	main := write(t, dir, "main.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch done\", sandbox_permissions: require_escalated, justification: \"needed\"}}]\n- content: done\n")
	task := write(t, dir, "task.yaml", "name: links\ninput: go\ntools: [bash]\nworkdir: "+work+
		"\nsandbox: {mode: workspace-write}\napprovals_reviewer: auto_review\n")
	out := runIn(t, work, []string{"WARDEN_HOME=" + state, "WARDEN_MANAGED_CONFIG=" + filepath.Join(dir, "none.toml"), "WARDEN_TOKEN="},
		"run", task, "--model", "scripted:"+main, "--transcript", filepath.Join(dir, "t.jsonl"),
		"--auto-review-model", "openai/reviewer", "--base-url", rv.URL, "--api-key", "test")

	newKey, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatalf("no key in use after the run: %v\n%s", err, out)
	}
	newToken, _ := os.ReadFile(tokenPath) // none until warden serve makes one
	if string(newKey) == string(oldKey) || strings.Contains(string(newToken), oldToken) {
		t.Errorf("the exposed secrets are still in use\n%s", out)
	}
	if !strings.Contains(out, "hard links") {
		t.Errorf("warden did not say it replaced the exposed secrets:\n%s", out)
	}
	reqs := rv.Bodies()
	sawOld := false
	for i, body := range reqs {
		if strings.Contains(body, hex.EncodeToString(newKey)) || (len(newToken) > 0 && strings.Contains(body, strings.TrimSpace(string(newToken)))) {
			t.Errorf("reviewer request %d holds a secret in use", i)
		}
		sawOld = sawOld || (strings.Contains(body, hex.EncodeToString(oldKey)) && strings.Contains(body, oldToken))
	}
	// The attack ran: the reviewer read both links, and got the old,
	// retired secrets.
	if !sawOld {
		t.Errorf("the reviewer never read the links (%d requests)\n%s", len(reqs), out)
	}
}
