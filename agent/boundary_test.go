package agent

import (
	"context"
	"encoding/json"
	"errors"
	"go/build"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/internal/tooltest"
	"github.com/wardenhq/warden/tool"
)

func TestG2_BoundaryRequestsGoToTheBoundaryPolicy(t *testing.T) {
	var seen *approval.Request
	spy := func(d approval.Decision) approval.Approver {
		return approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
			seen = req
			return approval.Approval{Decision: d, Explanation: "because"}, nil
		})
	}
	tests := []struct {
		name       string
		boundary   *approval.Policy
		wantResult string
		wantStatus string
	}{
		{"approved", approval.New(arule(t, "person", spy(approval.Approve), "*")), "written", event.StatusCompleted},
		{"rejected", approval.New(arule(t, "person", spy(approval.Reject), "*")), "approval: because", event.StatusCompleted},
		{"nobody decides", approval.New(arule(t, "person", spy(approval.Escalate), "*")), "approval: no approver approved this call (approval is deny by default)", event.StatusCompleted},
		{"no boundary policy", nil, "approval: no approver for boundary requests is configured: denied", event.StatusCompleted},
		{"terminated", approval.New(arule(t, "person", spy(approval.Terminate), "*")), "approval: terminated: because", event.StatusLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("writing", tc("c1", "write", `{}`))}})
			r.Boundary = BoundaryPolicy(tt.boundary)
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{tooltest.Crossing("/etc/x")}}, user("go"))
			must(t, res, tt.wantStatus)
			te := s.Tools()
			if len(te) != 1 || te[0].Result != tt.wantResult {
				t.Fatalf("tool events = %+v", te)
			}
			if tt.boundary == nil {
				return
			}
			if seen == nil || seen.Boundary == nil || seen.Boundary.Permission != boundary.Write || seen.Call.ID != "c1" || seen.Message != "writing" {
				t.Errorf("approver saw %+v", seen)
			}
			ap := s.Approvals()
			if len(ap) == 0 || ap[0].Boundary == nil || ap[0].CallID != "c1" || ap[0].Approver != "person" {
				t.Errorf("approval events = %+v", ap)
			}
		})
	}
}

func TestG2_BoundaryApproverFailureEndsTheRun(t *testing.T) {
	failing := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{}, errors.New("reviewer unreachable")
	})
	// A tool that ignores the error it was given must still not run past it.
	careless := &echo{name: "write", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		_, _ = boundary.Ask(ctx, &boundary.Request{Permission: boundary.Network, Reason: "blocked"})
		return "went ahead", nil
	}}
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "write", `{}`)), modeltest.Turn("never")}})
	r.Boundary = BoundaryPolicy(approval.New(arule(t, "flaky", failing, "*")))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{careless}}, user("go"))
	must(t, res, event.StatusError)
	if !strings.Contains(res.Err.Error(), "reviewer unreachable") {
		t.Errorf("err = %v", res.Err)
	}
}

// hook is a boundary approver that denies everything and keeps what it
// is told of turns.
type hook struct {
	turns []*event.TurnStart
	note  string
}

func (h *hook) ApproveBoundary(context.Context, *BoundaryRequest) (BoundaryOutcome, error) {
	return BoundaryOutcome{Outcome: approval.Outcome{Approval: approval.Approval{Decision: approval.Reject}}}, nil
}

func (h *hook) StartTurn(ts *event.TurnStart, input []chat.Message) []chat.Message {
	h.turns = append(h.turns, ts)
	if ts != nil {
		ts.MAC = "sealed:" + ts.Input
	}
	out := append([]chat.Message(nil), input[:len(input)-1]...)
	out = append(out, chat.Message{Role: chat.User, Content: h.note})
	return append(out, input[len(input)-1])
}

// A boundary approver that is a TurnHook is told when each turn starts,
// before its turn_start event is recorded, and what it adds reaches the
// agent (SPEC G11, G12).
func TestG11_TurnHookToldWhenATurnStarts(t *testing.T) {
	m := &modeltest.Replay{}
	r, s := newRun(m)
	h := &hook{note: "a note"}
	r.Boundary = h
	a := &Agent{}
	res := r.Execute(context.Background(), a, user("first"))
	must(t, res, event.StatusCompleted)
	must(t, nextTurn(r, a, res, "second"), event.StatusCompleted)
	if len(h.turns) != 2 || h.turns[0] == nil || h.turns[0].Input != "first" || h.turns[1].Input != "second" {
		t.Fatalf("turns told = %+v", h.turns)
	}
	ts := s.Find(eventkind.TurnStart)
	if len(ts) != 2 || ts[0].Data.(event.TurnStart).MAC != "sealed:first" || ts[1].Data.(event.TurnStart).MAC != "sealed:second" {
		t.Errorf("turn_start events = %+v", ts)
	}
	msgs := m.Requests()[0].Messages
	if n := len(msgs); n < 2 || msgs[n-2].Content != "a note" || msgs[n-1].Content != "first" {
		t.Errorf("the agent's first request = %+v", msgs)
	}
	// A turn that does not start with a request of the person is told too,
	// with no record.
	h.turns = nil
	must(t, r.Execute(context.Background(), a, []chat.Message{{Role: chat.Assistant, Content: "hi"}}), event.StatusCompleted)
	if len(h.turns) != 1 || h.turns[0] != nil {
		t.Errorf("turns told = %+v", h.turns)
	}
}

// The generic loop knows no concrete reviewer: the governance of boundary
// requests lives behind Run.Boundary (issue 7 item 5).
func TestAgentImportsNoReviewer(t *testing.T) {
	const module = "github.com/wardenhq/warden/"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		if seen[path] || !strings.HasPrefix(path, module) {
			return
		}
		seen[path] = true
		pkg, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, module)), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			walk(imp)
		}
	}
	walk(module + "agent")
	for _, banned := range []string{"autoreview", "triage", "gate"} {
		if seen[module+banned] {
			t.Errorf("agent depends on %s", banned)
		}
	}
	if !seen[module+"approval"] {
		t.Errorf("the walk found no dependencies: %v", seen)
	}
}
