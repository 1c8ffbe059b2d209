package gate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/tooltest"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/tool"
)

func tc(id, fn, args string) tool.Call { return tool.NewCall(id, fn, args) }

func user(text string) []chat.Message { return []chat.Message{{Role: chat.User, Content: text}} }

// echo is a tool that runs fn.
type echo struct {
	name string
	fn   func(ctx context.Context, args json.RawMessage) (string, error)
}

func (e *echo) Info() tool.Info {
	return tool.Info{Name: e.name, Description: "echo",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"path":{"type":"string"}}}`)}
}

func (e *echo) Run(ctx context.Context, args json.RawMessage) (string, error) { return e.fn(ctx, args) }

// crossing is a tool that asks to write outside the sandbox and reports
// what it was told.
func crossing() tool.Tool { return tooltest.Crossing("/etc/x") }

// arule builds an approval rule for patterns.
func arule(t *testing.T, name string, a approval.Approver, patterns ...string) approval.Rule {
	t.Helper()
	return tooltest.Rule(t, name, a, patterns...)
}

// boundaryOf returns the boundary approver that puts requests to the
// policy of rules.
func boundaryOf(rules ...approval.Rule) agent.BoundaryApprover {
	return agent.BoundaryPolicy(approval.New(rules...))
}

// newRun returns a run on model m recording to a new sink, whose boundary
// approver is a gate of the run with no approvers yet.
func newRun(m model.Model) (*agent.Run, *Gate, *eventtest.Sink) {
	s := &eventtest.Sink{}
	rec := event.NewRecorder("r1", s)
	g := &Gate{RunID: "r1", Events: rec}
	return &agent.Run{ID: "r1", Model: m, Events: rec, Boundary: g}, g, s
}

func must(t *testing.T, res *agent.Result, status string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %s (limit %v, err %v), want %s", res.Status, res.Limit, res.Err, status)
	}
}

// nextTurn runs a further turn of the same run on the conversation so far,
// as `warden run --interactive` does.
func nextTurn(r *agent.Run, a *agent.Agent, res *agent.Result, input string) *agent.Result {
	r.Resumed = true
	msgs := append(append([]chat.Message(nil), res.Messages...), chat.Message{Role: chat.User, Content: input})
	return r.Execute(context.Background(), a, msgs)
}
