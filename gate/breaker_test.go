package gate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/tool"
)

func TestG11_BreakerThresholds(t *testing.T) {
	tests := []struct {
		name     string
		outcomes string // d = denial, a = anything else
		tripAt   int    // 1-based index of the review that trips; 0 for none
	}{
		{"three consecutive", "ddd", 3},
		{"two then a reset", "ddadd", 0},
		{"reset by a non-denial then three", "ddaddd", 6},
		{"ten within fifty", "dadadadadadadadadad", 19},
		{"nine within fifty", "dadadadadadadadada", 0},
		{"ten spread over more than fifty", "d" + strings.Repeat("a", 49) + "dadadadadadadadada", 0},
		{"trips once per turn", "dddddddd", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Breaker
			got := 0
			for i, c := range tt.outcomes {
				if trip, why := b.record(c == 'd'); trip {
					if got != 0 {
						t.Fatalf("tripped twice (at %d and %d)", got, i+1)
					}
					if why == "" {
						t.Error("trip without a reason")
					}
					got = i + 1
				}
			}
			if got != tt.tripAt {
				t.Errorf("tripped at %d, want %d", got, tt.tripAt)
			}
		})
	}
}

func TestG11_BreakerClearsWhenATurnStarts(t *testing.T) {
	b := Breaker{Consecutive: 2, Denials: 3, Window: 5}
	b.record(true)
	if trip, _ := b.record(true); !trip {
		t.Fatal("configured threshold of 2 did not trip")
	}
	b.reset()
	if trip, _ := b.record(true); trip {
		t.Error("state survived Reset")
	}
	if trip, _ := b.record(true); !trip {
		t.Error("a new turn cannot trip again")
	}
}

// reviewed is an approver that answers like the reviewer agent: every
// request decided with status, with its auto_review record.
// writes returns n turns of a model that calls the tool write once each.
func writes(n int) []chat.Message {
	var turns []chat.Message
	for range n {
		turns = append(turns, modeltest.Turn("", tc("c", "write", `{}`)))
	}
	return turns
}

// reviewedRun is newRun on m with a gate whose next approver, the
// auto-reviewer, gives every boundary request a review of status.
func reviewedRun(t *testing.T, m model.Model, status action.Status) (*agent.Run, *Gate, *eventtest.Sink) {
	t.Helper()
	r, g, s := newRun(m)
	g.Next = boundaryOf(arule(t, "auto_review", reviewed(status), "*"))
	return r, g, s
}

func reviewed(status action.Status) approval.Approver {
	return approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		d := approval.Reject
		if status == action.StatusApproved {
			d = approval.Approve
		}
		return approval.Approval{Decision: d, Explanation: "reviewer: " + string(status),
			AutoReview: &event.AutoReview{Status: status, Source: event.SourceModel, Rationale: "because", RiskLevel: "high"}}, nil
	})
}

func TestG11_BreakerInterruptsTheTurn(t *testing.T) {
	turns := writes(6)
	r, _, s := reviewedRun(t, &modeltest.Replay{Turns: turns}, action.StatusDenied)
	res := r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{crossing()}}, user("go"))
	must(t, res, event.StatusLimited)
	if res.Limit.Type != event.LimitInterrupt {
		t.Errorf("limit = %+v", res.Limit)
	}
	if n := len(s.Find(eventkind.AutoReview)); n != 3 {
		t.Errorf("%d auto_review events, want 3", n)
	}
	if w := s.Find(eventkind.Warning); len(w) != 1 || !strings.Contains(w[0].Data.(event.Warning).Message, "3 consecutive") {
		t.Errorf("warnings = %+v", w)
	}
	for _, e := range s.Find(eventkind.AutoReview) {
		if ar := e.Data.(event.AutoReview); ar.CallID != "c" || ar.Status != "denied" {
			t.Errorf("auto_review event = %+v", ar)
		}
	}
	end := s.Find(eventkind.RunEnd)[0].Data.(event.RunEnd)
	if end.Limit == nil || *end.Limit != "interrupt" {
		t.Errorf("run_end = %+v", end)
	}
}

func TestG11_TimeoutsDoNotTripTheBreaker(t *testing.T) {
	turns := writes(5)
	r, _, s := reviewedRun(t, &modeltest.Replay{Turns: turns}, action.StatusTimedOut)
	must(t, r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{crossing()}}, user("go")), event.StatusCompleted)
	if len(s.Find(eventkind.Warning)) != 0 || len(s.Find(eventkind.AutoReview)) != 5 {
		t.Errorf("events = %v", s.Kinds())
	}
}

func TestR2_BreakerTripWithholdsTheResult(t *testing.T) {
	const secret = "SECRET-breaker"
	turns := writes(3)
	leaky := &echo{name: "write", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		_, _ = boundary.Ask(ctx, &boundary.Request{Permission: boundary.Write, Paths: []string{"/etc/x"}, Reason: "outside"})
		return "denied, but: " + secret, nil
	}}
	m := &modeltest.Replay{Turns: append(turns, modeltest.Turn("done"))}
	r, g, s := reviewedRun(t, m, action.StatusDenied)
	a := &agent.Agent{Tools: []tool.Tool{leaky}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	if res.Limit.Type != event.LimitInterrupt {
		t.Fatalf("limit = %+v", res.Limit)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != chat.Tool || strings.Contains(last.Content, secret) || !strings.Contains(last.Content, "circuit breaker") {
		t.Errorf("the tripping call is answered with %q", last.Content)
	}
	if w := s.WithheldFor("c"); len(w) != 1 || w[0].Reason != eventkind.WithheldBoundary {
		t.Errorf("withheld = %+v", w)
	}
	g.Next = nil
	must(t, nextTurn(r, a, res, "go on"), event.StatusCompleted)
	// The first two results were delivered in the interrupted turn (the
	// model saw them before the breaker tripped); only the third is new.
	reqs := m.Requests()
	if l := modeltest.Leaks(t, reqs[3:], "denied, but: "+secret+"\n"); len(l) != 0 {
		t.Errorf("requests after the trip %v contain its result", l)
	}
	if n := modeltest.Mentions(t, reqs[len(reqs)-1], secret); n != 2 {
		t.Errorf("the next turn carries the secret %d times, want the 2 results delivered before the trip", n)
	}
}

// TestG11_BreakerReplayRestoresTheTurn: a breaker replaying a turn's
// reviews (another process's) trips as the gate that made them would
// have, and counts on from there.
func TestG11_BreakerReplayRestoresTheTurn(t *testing.T) {
	var b Breaker
	if b.Replay([]bool{true, true}) {
		t.Fatal("two denials tripped the breaker")
	}
	if trip, _ := b.record(true); !trip {
		t.Fatal("a third consecutive denial after two replayed did not trip the breaker")
	}
	var c Breaker
	if !c.Replay([]bool{true, true, true, false}) {
		t.Fatal("three consecutive denials replayed did not trip the breaker")
	}
}
