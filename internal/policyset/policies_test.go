package policyset_test

import (
	"context"
	"slices"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// decider is what the tests ask of approval.Policy and review.Policy: the
// part both build on policyset.Policy.
type decider struct {
	len     func() int
	entries func() []policy.Entry
	// decide returns the decision and who made it, and whether anything
	// was recorded.
	decide func() (decision, by string, recorded bool, err error)
}

func approvals(p *approval.Policy) decider {
	req := &approval.Request{Call: tool.NewCall("1", "bash", `{"cmd":"rm -rf /"}`)}
	return decider{p.Len, p.Entries, func() (string, string, bool, error) {
		recorded := false
		out, err := p.Decide(context.Background(), req, func(approval.Record) { recorded = true })
		return string(out.Decision), out.Approver, recorded, err
	}}
}

func reviews(p *review.Policy) decider {
	req := &review.Request{Call: tool.NewCall("1", "bash", `{"cmd":"ls"}`)}
	return decider{p.Len, p.Entries, func() (string, string, bool, error) {
		recorded := false
		out, err := p.Decide(context.Background(), req, func(review.Record) { recorded = true })
		return string(out.Decision), out.Reviewer, recorded, err
	}}
}

// TestP6_NilAndEmptyPoliciesDecideNothing checks, for approval and review
// policies alike, that a nil policy, an empty one and one compiled from
// no entries let the call run or the result through and record nothing
// (SPEC A4, R3, P6), that a compiled policy keeps its entries and asks its
// handler, and that an unknown name does not compile.
func TestP6_NilAndEmptyPoliciesDecideNothing(t *testing.T) {
	emptyA, errA := approval.Compile(nil)
	emptyR, errR := review.Compile(nil)
	if errA != nil || errR != nil {
		t.Fatal(errA, errR)
	}
	entry := func(decision string) []policy.Entry {
		return []policy.Entry{{Name: "auto", Tools: []string{"bash"}, Params: map[string]any{"decision": decision}}}
	}
	oneA, errA := approval.Compile(entry("reject"))
	oneR, errR := review.Compile(entry("terminate"))
	if errA != nil || errR != nil {
		t.Fatal(errA, errR)
	}
	for _, tc := range []struct {
		name      string
		p         decider
		n         int
		decision  string
		by        string
		recording bool
	}{
		{"nil approval", approvals(nil), 0, "approve", "", false},
		{"approval.New()", approvals(approval.New()), 0, "approve", "", false},
		{"approval.Compile(nil)", approvals(emptyA), 0, "approve", "", false},
		{"one approver", approvals(oneA), 1, "reject", "auto", true},
		{"nil review", reviews(nil), 0, "continue", "policy", false},
		{"review.New()", reviews(review.New()), 0, "continue", "policy", false},
		{"review.Compile(nil)", reviews(emptyR), 0, "continue", "policy", false},
		{"one reviewer", reviews(oneR), 1, "terminate", "auto", true},
	} {
		if got := tc.p.len(); got != tc.n || len(tc.p.entries()) != tc.n {
			t.Errorf("%s: Len %d, Entries %v", tc.name, got, tc.p.entries())
		}
		if tc.n > 0 && tc.p.entries()[0].Name != "auto" {
			t.Errorf("%s: Entries %+v", tc.name, tc.p.entries())
		}
		decision, by, recorded, err := tc.p.decide()
		if err != nil || decision != tc.decision || by != tc.by || recorded != tc.recording {
			t.Errorf("%s: %s by %q (recorded %v), %v; want %s by %q (recorded %v)", tc.name, decision, by, recorded, err, tc.decision, tc.by, tc.recording)
		}
	}
	if _, err := approval.Compile([]policy.Entry{{Name: "no-such-approver"}}); err == nil {
		t.Error("an unknown approver compiled")
	}
	if _, err := review.Compile([]policy.Entry{{Name: "no-such-reviewer"}}); err == nil {
		t.Error("an unknown reviewer compiled")
	}
}

// TestA2_R2_DecisionsAreTheSharedWords checks that the decisions of SPEC
// A2 and R2 are the words the store offers on the queue and the
// transcript records (internal/vocab), in order.
func TestA2_R2_DecisionsAreTheSharedWords(t *testing.T) {
	a := []string{string(approval.Approve), string(approval.Modify), string(approval.Reject), string(approval.Terminate), string(approval.Escalate)}
	if want := vocab.ApprovalDecisions(); !slices.Equal(a, want) {
		t.Errorf("approval decisions %q, the shared words %q", a, want)
	}
	r := []string{string(review.Continue), string(review.Terminate), string(review.Escalate)}
	if want := vocab.ReviewDecisions(); !slices.Equal(r, want) {
		t.Errorf("review decisions %q, the shared words %q", r, want)
	}
}
