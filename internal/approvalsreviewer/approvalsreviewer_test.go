package approvalsreviewer

import (
	"context"
	"errors"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// TestG3_APersonAloneDecidesAndNothingElseIsBuiltWithoutTheDecider: in a
// program that links no decider (this test's, as warden-hook), the list of
// a person alone ([user], [human], or none) is built — the person decides
// every request, recorded as the approver human, and the person's
// escalation is no approval — and every
// other list is ErrNoDecider, never a decider that approves.
func TestG3_APersonAloneDecidesAndNothingElseIsBuiltWithoutTheDecider(t *testing.T) {
	asked := 0
	person := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		asked++
		return approval.Approval{Decision: approval.Escalate, Explanation: "a person decides this at the host"}, nil
	})
	req := &approval.Request{Call: tool.NewCall("c1", "Bash", `{"command":"rm -rf /"}`), Boundary: &boundary.Request{Permission: boundary.Exec, Command: "rm -rf /"}}
	for _, who := range [][]string{nil, {User}, {Human}} {
		p, err := Build(Session{Reviewers: who, Person: person})
		if err != nil {
			t.Fatalf("%v: %v", who, err)
		}
		before := asked
		var chain []string
		out, err := p.Decide(context.Background(), req, func(r approval.Record) { chain = append(chain, r.Approver) })
		if err != nil || out.Decision == approval.Approve || asked != before+1 || len(chain) == 0 || chain[0] != Human {
			t.Fatalf("%v: %+v, %v, asked %d times, recorded %v; want the person asked once, as %s, and no approval", who, out, err, asked-before, chain, Human)
		}
	}
	for _, who := range [][]string{{FirstPass}, {AutoReview}, {OldFirstPass}, {FirstPass, Human}} {
		if Buildable(who) {
			t.Errorf("%v is buildable without the decider", who)
		}
		if p, err := Build(Session{Reviewers: who, Person: person}); !errors.Is(err, ErrNoDecider) || p != nil {
			t.Errorf("%v: %v, %v; want ErrNoDecider", who, p, err)
		}
	}
}
