package gate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/tool"
)

// A gate with nothing to decide denies, as a run without a boundary
// approver does (SPEC G3: fail closed), and a typed-nil gate too.
func TestG3_GateWithoutApproversDenies(t *testing.T) {
	for name, g := range map[string]*Gate{"no next": {RunID: "r1"}, "nil gate": nil,
		"empty policy": {RunID: "r1", Next: agent.BoundaryPolicy(approval.New())}} {
		t.Run(name, func(t *testing.T) {
			r, _, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "write", `{}`))}})
			r.Boundary = g
			must(t, r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{crossing()}}, user("go")), event.StatusCompleted)
			te := s.Find(eventkind.Tool)
			if len(te) != 1 || te[0].Data.(event.Tool).Result != "approval: "+agent.NoBoundaryApprover {
				t.Errorf("tool events = %+v", te)
			}
		})
	}
}

// The gate records the review of every approver asked, in order — an
// escalation's and the decider's — as auto_review events of the call,
// after the approval events, from the typed record on each approval
// (SPEC G13); an approver with no record (a person) leaves none.
func TestG13_EveryReviewInTheChainIsRecorded(t *testing.T) {
	passOn := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{Decision: approval.Escalate, AutoReview: &event.AutoReview{Status: "passed_on", Source: event.SourceFirstPass}}, nil
	})
	person := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{Decision: approval.Escalate, Explanation: "away"}, nil
	})
	r, g, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "write", `{}`))}})
	g.Next = boundaryOf(arule(t, "rules", passOn, "*"), arule(t, "person", person, "*"), arule(t, "auto_review", reviewed(action.StatusApproved), "*"))
	must(t, r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{crossing()}}, user("go")), event.StatusCompleted)
	var got []string
	for _, e := range s.All() {
		switch d := e.Data.(type) {
		case event.Approval:
			got = append(got, "approval:"+d.Approver)
		case event.AutoReview:
			if d.CallID != "c1" {
				t.Errorf("auto_review of call %q", d.CallID)
			}
			got = append(got, "auto_review:"+string(d.Status))
		case event.Tool:
			got = append(got, "tool:"+d.Result)
		}
	}
	want := "approval:rules approval:person approval:auto_review auto_review:passed_on auto_review:approved tool:written"
	if strings.Join(got, " ") != want {
		t.Errorf("events\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// An error of the deciding approvers ends the run, and the gate records
// no review of it and counts nothing.
func TestG10_NextFailureEndsTheRun(t *testing.T) {
	r, g, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "write", `{}`)), modeltest.Turn("never")}})
	g.Sealer = testKey(t)
	g.Next = agent.BoundaryFunc(func(context.Context, *agent.BoundaryRequest) (agent.BoundaryOutcome, error) {
		return agent.BoundaryOutcome{Outcome: approval.Outcome{Approval: approval.Approval{Decision: approval.Approve,
			AutoReview: &event.AutoReview{Status: action.StatusDenied}}}}, errors.New("reviewer unreachable")
	})
	res := r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{crossing()}}, user("go"))
	must(t, res, event.StatusError)
	if !strings.Contains(res.Err.Error(), "reviewer unreachable") {
		t.Errorf("err = %v", res.Err)
	}
	if n := len(s.Find(eventkind.AutoReview)); n != 0 || len(g.Denials()) != 0 {
		t.Errorf("%d auto_review events, denials %+v", n, g.Denials())
	}
}

// The person's request that starts a turn is authenticated by the gate, so
// that a resumed run takes it as the person's (SPEC G15); the gate tells a
// Next that keeps per-turn state of each turn, too.
func TestG15_TurnStartAuthenticated(t *testing.T) {
	r, g, s := newRun(&modeltest.Replay{})
	g.Sealer = testKey(t)
	var told []string
	g.Next = hooked{func(ts *event.TurnStart, input []chat.Message) []chat.Message {
		told = append(told, ts.Input)
		return input
	}}
	a := &agent.Agent{}
	res := r.Execute(context.Background(), a, user("first"))
	must(t, res, event.StatusCompleted)
	must(t, nextTurn(r, a, res, "second"), event.StatusCompleted)
	l := ledger.NewLedger("r1", g.Sealer)
	var inputs []string
	for _, e := range s.Find(eventkind.TurnStart) {
		if in, ok := l.TurnInput(e.Data.(event.TurnStart)); ok {
			inputs = append(inputs, in)
		}
	}
	if strings.Join(inputs, ",") != "first,second" || len(l.Warnings()) != 0 {
		t.Errorf("verified inputs %q, warnings %q", inputs, l.Warnings())
	}
	if strings.Join(told, ",") != "first,second" {
		t.Errorf("Next was told of turns %q", told)
	}
	// Another run's key verifies none of them.
	other, err := FileSealer(t.TempDir() + "/k")
	if err != nil {
		t.Fatal(err)
	}
	l = ledger.NewLedger("r1", other)
	for _, e := range s.Find(eventkind.TurnStart) {
		if _, ok := l.TurnInput(e.Data.(event.TurnStart)); ok {
			t.Error("a turn verified under another key")
		}
	}
}

// hooked is a boundary approver that denies everything and keeps per-turn
// state through start.
type hooked struct {
	start func(ts *event.TurnStart, input []chat.Message) []chat.Message
}

func (h hooked) ApproveBoundary(context.Context, *agent.BoundaryRequest) (agent.BoundaryOutcome, error) {
	return agent.BoundaryOutcome{Outcome: approval.Outcome{Approval: approval.Approval{Decision: approval.Reject}}}, nil
}

func (h hooked) StartTurn(ts *event.TurnStart, input []chat.Message) []chat.Message {
	return h.start(ts, input)
}
