package approval_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// BenchmarkPolicyDecide50 measures approval.Policy.Decide with 50 entries
// of mixed bare names, globs and structured argument patterns, where an
// `auto` approver near the end decides.
func BenchmarkPolicyDecide50(b *testing.B) {
	var entries []policy.Entry
	for i := 0; len(entries) < 49; i++ {
		switch i % 4 {
		case 0:
			entries = append(entries, policy.Entry{Name: "auto", Tools: []string{fmt.Sprintf("tool_%d", i)}})
		case 1:
			entries = append(entries, policy.Entry{Name: "auto", Tools: []string{fmt.Sprintf("bash(cmd='rm -rf /srv/%d", i)}, Params: map[string]any{"decision": "reject"}})
		case 2:
			entries = append(entries, policy.Entry{Name: "auto", Tools: []string{fmt.Sprintf("web_*(url='https://*.example%d.com/*", i)}})
		case 3:
			entries = append(entries, policy.Entry{Name: "auto", Tool: "bash", Args: map[string]string{"cmd": fmt.Sprintf("git push * --force-%d*", i)}, Params: map[string]any{"decision": "escalate"}})
		}
	}
	entries = append(entries, policy.Entry{Name: "auto", Tools: []string{"bash(cmd='go test"}})
	p, err := approval.Compile(entries)
	if err != nil {
		b.Fatal(err)
	}
	req := &approval.Request{Call: tool.NewCall("call_1", "bash", `{"cmd":"go test ./... -run TestX","timeout":60}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := p.Decide(ctx, req, nil)
		if err != nil || out.Decision != approval.Approve {
			b.Fatalf("%+v %v", out, err)
		}
	}
}
