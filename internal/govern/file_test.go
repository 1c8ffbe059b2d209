package govern

import (
	"strings"
	"testing"
)

// FuzzX1_HookConfig: the configuration file is read strictly or refused
// with a position: what it accepts has only known values (a checked
// approvals_reviewer, a positive timeout, a sandbox mode), and no input
// panics.
func FuzzX1_HookConfig(f *testing.F) {
	for _, s := range []string{
		"approval: p.yaml\nreview: r.yaml\nrules: [a.rules, b.rules]\napprovals_reviewer: [first_pass, auto_review]\nauto_review_model: openai/x\nserver: http://127.0.0.1:1\ndb: sqlite:/x\ntimeout: 2m\nsandbox: workspace-write\n",
		"rules: a.rules, b.rules\napprovals_reviewer: user\n", "", "- a\n", "timeout: -1s\n", "approval: [x]\n", "sandbox: full-access\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseFile(data, "hooks.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hooks.yaml") {
				t.Fatalf("an error without the file's name: %v", err)
			}
			return
		}
		if c.Timeout < 0 {
			t.Fatalf("accepted a negative timeout: %v", c.Timeout)
		}
		switch c.Sandbox {
		case "", "read-only", "workspace-write", "full-access":
		default:
			t.Fatalf("accepted sandbox %q", c.Sandbox)
		}
	})
}
