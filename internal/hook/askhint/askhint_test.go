package askhint

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/sandbox"
)

// TestX4_AskHintInTheHostsWords: the hint of a blocked action in a shell
// call confined for a host names that host's shell tool and escalation
// field, with a value warden reads back strictly (escalationOf), and
// never `warden exec` flags; a host without such a field gets no hint
// here (warden exec's own stands), and what no value grants is said so.
func TestX4_AskHintInTheHostsWords(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	out, _ = filepath.EvalSymlinks(out)
	ws, _ = filepath.EvalSymlinks(ws)
	write := sandbox.Block{Kind: sandbox.KindWrite, Path: filepath.Join(out, "f"), Resolved: filepath.Join(out, "f")}
	wsw := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: ws}
	ro := sandbox.Policy{Mode: sandbox.ReadOnly, Workdir: ws}
	for _, tc := range []struct {
		name, host string
		p          sandbox.Policy
		b          sandbox.Block
		want       string // "" for no hint
	}{
		{"claude write", "claude-code", wsw, write, `call Bash again with the same command and "dangerouslyDisableSandbox": true`},
		{"claude network", "claude-code", wsw, sandbox.Block{Kind: sandbox.KindNetwork}, `"dangerouslyDisableSandbox": true`},
		{"gemini write", "gemini", wsw, write, `call run_shell_command again with the same command and "additional_permissions": {"fileSystem":{"write":["` + out + `"]}}`},
		{"gemini network", "gemini", wsw, sandbox.Block{Kind: sandbox.KindNetwork, DNS: true}, `"additional_permissions": {"network":true}`},
		{"gemini read", "gemini", wsw, sandbox.Block{Kind: sandbox.KindRead, Path: "/root/x", Resolved: "/root/x"}, `"additional_permissions": {"fileSystem":{"read":["/root/x"]}}`},
		{"gemini protected", "gemini", wsw, sandbox.Block{Kind: sandbox.KindWrite, Path: ws + "/.git/hooks/x", Resolved: ws + "/.git/hooks/x", Protected: true}, "no additional_permissions of run_shell_command grants it"},
		{"gemini read-only write", "gemini", ro, write, "no additional_permissions of run_shell_command grants it under warden's sandbox (read-only)"},
		{"gemini privilege", "gemini", wsw, sandbox.Block{Kind: sandbox.KindPrivilege}, "no additional_permissions"},
		{"cursor", "cursor", wsw, write, ""},
		{"codex", "codex", wsw, write, ""},
		{"unknown host", "nobody", wsw, write, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hint, ok := AskHint(tc.host, tc.p, tc.b)
			if tc.want == "" {
				if ok {
					t.Fatalf("hint %q, want none", hint)
				}
				return
			}
			if !ok || !strings.Contains(hint, tc.want) {
				t.Fatalf("hint %q (%v), want it to hold %q", hint, ok, tc.want)
			}
			if strings.Contains(hint, "--") {
				t.Fatalf("hint %q names warden exec flags", hint)
			}
			if _, after, found := strings.Cut(hint, `"additional_permissions": `); found {
				var raw json.RawMessage
				if err := json.NewDecoder(strings.NewReader(after)).Decode(&raw); err != nil {
					t.Fatal(err)
				}
				if _, _, _, err := hook.Permissions(raw); err != nil {
					t.Fatalf("warden does not read the value it hints, %s: %v", raw, err)
				}
			}
		})
	}
}
