package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/tooltest"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

func tc(id, fn, args string) tool.Call { return tool.NewCall(id, fn, args) }

// echo is a tool that returns its "text" argument and counts its runs.
type echo struct {
	name     string
	parallel bool
	mu       sync.Mutex
	runs     []string
	fn       func(ctx context.Context, args json.RawMessage) (string, error)
}

func (e *echo) Info() tool.Info {
	return tool.Info{Name: e.name, Description: "echo", Parallel: e.parallel,
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
}

func (e *echo) Run(ctx context.Context, args json.RawMessage) (string, error) {
	e.mu.Lock()
	e.runs = append(e.runs, string(args))
	e.mu.Unlock()
	if e.fn != nil {
		return e.fn(ctx, args)
	}
	var a struct{ Text string }
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	return a.Text, nil
}

func (e *echo) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.runs)
}

// pendingAndStopper returns a reviewer that waits until its review is
// cancelled, and a parallel tool "stopper" that returns once that review
// has started: a review of stopper that terminates the run then leaves the
// pending one undecided.
func pendingAndStopper() (review.Reviewer, *echo) {
	started := make(chan struct{})
	pending := review.Func(func(ctx context.Context, _ *review.Request) (review.Review, error) {
		close(started)
		<-ctx.Done()
		return review.Review{}, ctx.Err()
	})
	stopper := &echo{name: "stopper", parallel: true, fn: func(context.Context, json.RawMessage) (string, error) {
		<-started
		return "stop", nil
	}}
	return pending, stopper
}

// arule builds an approval rule for patterns.
func arule(t *testing.T, name string, a approval.Approver, patterns ...string) approval.Rule {
	t.Helper()
	return tooltest.Rule(t, name, a, patterns...)
}

// rrule builds a review rule for patterns.
func rrule(t *testing.T, name string, r review.Reviewer, patterns ...string) review.Rule {
	t.Helper()
	return tooltest.Rule(t, name, r, patterns...)
}

func decide(d approval.Decision) approval.Approver { return approval.Auto(d, "auto "+string(d)) }
func verdict(d review.Decision) review.Reviewer    { return review.Auto(d, "auto "+string(d)) }

// newRun returns a run on model m recording to a new sink.
func newRun(m model.Model) (*Run, *eventtest.Sink) {
	s := &eventtest.Sink{}
	return &Run{ID: "r1", Model: m, Events: event.NewRecorder("r1", s)}, s
}

func user(text string) []chat.Message { return []chat.Message{{Role: chat.User, Content: text}} }

func must(t *testing.T, res *Result, status string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %s (limit %v, err %v), want %s", res.Status, res.Limit, res.Err, status)
	}
}

var _ = fmt.Sprint
