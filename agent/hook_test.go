package agent

import (
	"context"
	"go/build"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/modeltest"
)

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
	ts := s.Find(event.KindTurnStart)
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
