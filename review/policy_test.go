package review_test

import (
	"context"
	"slices"
	"testing"

	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// TestP6_NilAndEmptyPoliciesHaveNoReviewers checks that a nil policy, an
// empty one and one compiled from no entries let every result continue
// and record nothing (SPEC R3, P6), and that a compiled policy keeps its
// entries.
func TestP6_NilAndEmptyPoliciesHaveNoReviewers(t *testing.T) {
	empty, err := review.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &review.Request{Call: tool.NewCall("1", "bash", `{"cmd":"ls"}`)}
	for name, p := range map[string]*review.Policy{"nil": nil, "New()": review.New(), "Compile(nil)": empty} {
		if p.Len() != 0 || len(p.Entries()) != 0 {
			t.Errorf("%s: Len %d, Entries %v", name, p.Len(), p.Entries())
		}
		out, err := p.Decide(context.Background(), req, func(r review.Record) { t.Errorf("%s: recorded %+v", name, r) })
		if err != nil || out.Decision != review.Continue {
			t.Errorf("%s: %+v, %v", name, out, err)
		}
	}
	p, err := review.Compile([]policy.Entry{{Name: "auto", Tools: []string{"bash"}, Params: map[string]any{"decision": "terminate"}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 1 || p.Entries()[0].Name != "auto" {
		t.Errorf("Len %d, Entries %+v", p.Len(), p.Entries())
	}
	if out, err := p.Decide(context.Background(), req, nil); err != nil || out.Decision != review.Terminate || out.Reviewer != "auto" {
		t.Errorf("%+v, %v", out, err)
	}
	if _, err := review.Compile([]policy.Entry{{Name: "no-such-reviewer"}}); err == nil {
		t.Error("an unknown reviewer compiled")
	}
}

// TestR2_DecisionsAreTheSharedWords checks that the decisions of SPEC R2
// are the words the store offers on the queue and the transcript records
// (internal/vocab), in order.
func TestR2_DecisionsAreTheSharedWords(t *testing.T) {
	got := []string{string(review.Continue), string(review.Terminate), string(review.Escalate)}
	if want := vocab.ReviewDecisions(); !slices.Equal(got, want) {
		t.Errorf("review decisions %q, the shared words %q", got, want)
	}
}
