package approval_test

import (
	"context"
	"slices"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// TestP6_NilAndEmptyPoliciesHaveNoApprovers checks that a nil policy, an
// empty one and one compiled from no entries approve every call and
// record nothing (SPEC A4, P6), and that a compiled policy keeps its
// entries.
func TestP6_NilAndEmptyPoliciesHaveNoApprovers(t *testing.T) {
	empty, err := approval.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &approval.Request{Call: tool.NewCall("1", "bash", `{"cmd":"rm -rf /"}`)}
	for name, p := range map[string]*approval.Policy{"nil": nil, "New()": approval.New(), "Compile(nil)": empty} {
		if p.Len() != 0 || len(p.Entries()) != 0 {
			t.Errorf("%s: Len %d, Entries %v", name, p.Len(), p.Entries())
		}
		out, err := p.Decide(context.Background(), req, func(r approval.Record) { t.Errorf("%s: recorded %+v", name, r) })
		if err != nil || out.Decision != approval.Approve {
			t.Errorf("%s: %+v, %v", name, out, err)
		}
	}
	p, err := approval.Compile([]policy.Entry{{Name: "auto", Tools: []string{"bash"}, Params: map[string]any{"decision": "reject"}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 1 || p.Entries()[0].Name != "auto" {
		t.Errorf("Len %d, Entries %+v", p.Len(), p.Entries())
	}
	if out, err := p.Decide(context.Background(), req, nil); err != nil || out.Decision != approval.Reject || out.Approver != "auto" {
		t.Errorf("%+v, %v", out, err)
	}
	if _, err := approval.Compile([]policy.Entry{{Name: "no-such-approver"}}); err == nil {
		t.Error("an unknown approver compiled")
	}
}

// TestA2_DecisionsAreTheSharedWords checks that the decisions of SPEC A2
// are the words the store offers on the queue and the transcript records
// (internal/vocab), in order.
func TestA2_DecisionsAreTheSharedWords(t *testing.T) {
	got := []string{string(approval.Approve), string(approval.Modify), string(approval.Reject), string(approval.Terminate), string(approval.Escalate)}
	if want := vocab.ApprovalDecisions(); !slices.Equal(got, want) {
		t.Errorf("approval decisions %q, the shared words %q", got, want)
	}
}
