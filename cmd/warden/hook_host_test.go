package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hook/hosttest"
	"github.com/wardenhq/warden/internal/shell"
)

// hostBinary finds a real host's binary, skipping the test without it
// (failing it in CI, WARDEN_REQUIRE_HOSTS).
func hostBinary(t *testing.T, name, env string) string {
	bin := hosttest.Find(name, env)
	if bin == "" {
		if os.Getenv("WARDEN_REQUIRE_HOSTS") != "" {
			t.Fatalf("%s not found (%s)", name, env)
		}
		t.Skipf("%s not found: set %s", name, env)
	}
	return bin
}

// TestX1_ClaudeCodeRejectKeepsTheFile drives the real Claude Code, offline
// against a loopback model that asks it to delete a file, through the
// hooks `warden hook install claude-code --scope project` writes: with an
// approval policy that rejects the deletion, the file survives, the model
// receives the reason, and the session is a run in warden's transcript; with
// one that approves, the file is gone.
func TestX1_ClaudeCodeRejectKeepsTheFile(t *testing.T) {
	claude := hostBinary(t, "claude", "WARDEN_TEST_CLAUDE")
	for _, tc := range []struct {
		name, policy string
		survives     bool
	}{
		{"reject", "approvers:\n  - name: auto\n    decision: reject\n    explanation: no deleting here\n    tools: \"Bash(command='rm \"\n  - name: auto\n    decision: approve\n", true},
		{"approve", "approvers:\n  - name: auto\n    decision: approve\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home, project, wh := filepath.Join(dir, "home"), filepath.Join(dir, "proj"), filepath.Join(dir, "warden")
			for _, d := range []string{home, project, wh, filepath.Join(dir, "tmp")} {
				os.MkdirAll(d, 0o700)
			}
			victim := filepath.Join(project, "important.txt")
			os.WriteFile(victim, []byte("keep me\n"), 0o600)
			os.WriteFile(filepath.Join(wh, "hooks.yaml"), []byte("approval: policy.yaml\n"), 0o600)
			os.WriteFile(filepath.Join(wh, "policy.yaml"), []byte(tc.policy), 0o600)
			h, _ := hook.Lookup("claude-code")
			p := hook.Place{Scope: "project", Home: home, Project: project, Command: shell.Quote(binary(t)) + " hook claude-code"}
			if _, err := hook.Install(h, p, false); err != nil {
				t.Fatal(err)
			}
			model := hosttest.NewAnthropic(t, "rm -f "+shell.Quote(victim))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, claude, "-p", "delete important.txt", "--output-format", "stream-json", "--verbose")
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+filepath.Join(dir, "tmp"), "WARDEN_HOME="+wh, "WARDEN_DB=",
				"ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "IS_SANDBOX=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("claude: %v\n%s", err, out.String())
			}
			_, err := os.Stat(victim)
			if survives := err == nil; survives != tc.survives {
				t.Fatalf("important.txt survives: %v, want %v\nclaude:\n%s\nrequests: %v", survives, tc.survives, out.String(), model.Requests())
			}
			reqs := model.Requests()
			if tc.survives && (len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1], "no deleting here")) {
				t.Fatalf("the model did not receive warden's reason: %v", reqs)
			}
			if strings.Contains(out.String(), "hook error") {
				t.Fatalf("a hook failed (warden could not read what Claude Code sent):\n%s", out.String())
			}
			runs, _ := filepath.Glob(filepath.Join(wh, "runs", "claude-code-*.jsonl"))
			if len(runs) != 1 {
				t.Fatalf("runs %v, want the session's", runs)
			}
			if code, o, e := runWith(t, wh, "transcript", "verify", runs[0]); code != 0 {
				t.Fatalf("verify: %s %s", o, e)
			}
			// The session's turn, its approval and, when the call ran, its
			// result are recorded.
			_, shown, _ := runWith(t, wh, "transcript", "show", runs[0])
			want := []string{`turn      "delete important.txt"`, "approval  Bash(command='rm -f"}
			if !tc.survives {
				want = append(want, "tool      Bash")
			}
			for _, w := range want {
				if !strings.Contains(shown, w) {
					t.Fatalf("the transcript lacks %q:\n%s", w, shown)
				}
			}
		})
	}
}
