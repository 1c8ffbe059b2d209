package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

func TestR1_ReviewerSeesExecutedCallTruncatedResultAndFullOutput(t *testing.T) {
	var got *review.Request
	spy := review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
		got = req
		return review.Review{Decision: review.Continue}, nil
	})
	mod := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		c := req.Call
		_ = c.SetArguments([]byte(`{"text":"` + strings.Repeat("x", 100) + `"}`))
		return approval.Approval{Decision: approval.Modify, Modified: &c}, nil
	})
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("calling", tc("c1", "echo", `{"text":"short"}`))}})
	r.MaxOutput = 40
	r.Approval = approval.New(arule(t, "mod", mod, "*"))
	r.Review = review.New(rrule(t, "spy", spy, "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go")), event.StatusCompleted)
	if got == nil {
		t.Fatal("reviewer not asked")
	}
	if !strings.Contains(string(got.Call.Arguments), strings.Repeat("x", 100)) {
		t.Errorf("reviewer saw the proposed call, not the executed one: %s", got.Call.Arguments)
	}
	if got.Output != strings.Repeat("x", 100) {
		t.Errorf("output = %q, want untruncated", got.Output)
	}
	if !strings.Contains(got.Result.Content, "truncated") || len(got.Result.Content) >= 100+80 {
		t.Errorf("result = %q, want the truncated result", got.Result.Content)
	}
	if got.Message != "calling" || len(got.History) != 2 || got.History[1].Role != chat.Assistant {
		t.Errorf("message %q, history %+v", got.Message, got.History)
	}
}

func TestR2_TerminateCancelsRunningSiblingsAndKeepsFinished(t *testing.T) {
	slowStarted := make(chan struct{})
	slow := &echo{name: "slow", parallel: true, fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(slowStarted)
		<-ctx.Done()
		return "", ctx.Err()
	}}
	fast := &echo{name: "fast", parallel: true, fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		<-slowStarted
		return "fast done", nil
	}}
	later := &echo{name: "later"}
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("",
		tc("c1", "slow", `{}`), tc("c2", "fast", `{}`), tc("c3", "later", `{}`))}})
	r.Review = review.New(rrule(t, "stop", verdict(review.Terminate), "fast"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{slow, fast, later}}, user("go"))
	must(t, res, event.StatusLimited)
	if res.Limit.Type != event.LimitOperator {
		t.Errorf("limit = %+v", res.Limit)
	}
	byID := map[string]event.Tool{}
	for _, te := range s.Tools() {
		if _, dup := byID[te.CallID]; dup {
			t.Errorf("two tool events for %s", te.CallID)
		}
		byID[te.CallID] = te
	}
	if te := byID["c1"]; te.Error == nil || te.Error.Type != tool.ErrCancelled {
		t.Errorf("running sibling = %+v, want cancelled", te)
	}
	if te := byID["c2"]; te.Result != "fast done" {
		t.Errorf("terminated call's result = %+v, want kept", te)
	}
	if _, ran := byID["c3"]; ran || later.count() != 0 {
		t.Error("a later call ran after terminate")
	}
	if lim := s.Find(eventkind.Limit); len(lim) != 1 || lim[0].Data.(event.Limit).Type != "operator" {
		t.Errorf("limit events = %+v", lim)
	}
}

func TestR3_UncoveredResultContinues(t *testing.T) {
	tests := []struct {
		name       string
		rules      []review.Rule
		wantEvents string
	}{
		{"no reviewer matches", []review.Rule{rrule(t, "h", verdict(review.Terminate), "bash")}, ""},
		{"every match escalates", []review.Rule{
			rrule(t, "a", verdict(review.Escalate), "*"),
			rrule(t, "b", verdict(review.Escalate), "echo"),
		}, "a:escalate,b:escalate,policy:continue"},
		{"explicit continue", []review.Rule{rrule(t, "a", verdict(review.Continue), "*")}, "a:continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"x"}`))}})
			r.Review = review.New(tt.rules...)
			must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go")), event.StatusCompleted)
			var got []string
			for _, rv := range s.Reviews() {
				got = append(got, rv.Reviewer+":"+rv.Decision)
			}
			if strings.Join(got, ",") != tt.wantEvents {
				t.Errorf("review events = %v, want %s", got, tt.wantEvents)
			}
		})
	}
}

func TestR4_OnlyCallsThatRanAreReviewed(t *testing.T) {
	reviewed := map[string]bool{}
	var mu sync.Mutex
	spy := review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
		mu.Lock()
		reviewed[req.Call.ID] = true
		mu.Unlock()
		return review.Review{Decision: review.Continue}, nil
	})
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("",
		tc("rejected", "echo", `{"text":"no"}`),
		tool.NewCall("unparseable", "echo", `{`),
		tc("unknown", "nosuch", `{}`),
		tc("ran", "echo", `{"text":"yes"}`))}})
	r.Approval = approval.New(
		arule(t, "no", decide(approval.Reject), "echo(text='no"),
		arule(t, "yes", decide(approval.Approve), "*"))
	r.Review = review.New(rrule(t, "spy", spy, "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go")), event.StatusCompleted)
	if len(reviewed) != 1 || !reviewed["ran"] {
		t.Errorf("reviewed = %v, want only the call that ran", reviewed)
	}
}

func TestR5_ToolErrorsAreReviewed(t *testing.T) {
	var got *review.Request
	spy := review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
		got = req
		return review.Review{Decision: review.Continue}, nil
	})
	failing := &echo{name: "echo", fn: func(context.Context, json.RawMessage) (string, error) {
		return "", tool.Errorf(tool.ErrPermission, "read-only file system")
	}}
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{}`))}})
	r.Review = review.New(rrule(t, "spy", spy, "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{failing}}, user("go")), event.StatusCompleted)
	if got == nil || got.Result.Error == nil || got.Result.Error.Type != tool.ErrPermission {
		t.Fatalf("reviewer got %+v", got)
	}
}

func TestR6_HandoffReviewedWhenSubAgentReturns(t *testing.T) {
	var order []string
	var mu sync.Mutex
	spy := review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
		mu.Lock()
		order = append(order, req.Call.Function+"="+req.Result.Content)
		mu.Unlock()
		return review.Review{Decision: review.Continue}, nil
	})
	m := &modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("handing off", tc("h1", "transfer_to_helper", `{}`)),
		modeltest.Turn("", tc("s1", "echo", `{"text":"sub work"}`)),
		modeltest.Turn("helper answer"),
		modeltest.Turn("all done"),
	}}
	r, s := newRun(m)
	r.Review = review.New(rrule(t, "spy", spy, "*"))
	helper := &Agent{Name: "helper", Tools: []tool.Tool{&echo{name: "echo"}}}
	res := r.Execute(context.Background(), &Agent{Handoffs: []*Agent{helper}}, user("go"))
	must(t, res, event.StatusCompleted)
	if got := strings.Join(order, "|"); got != "echo=sub work|transfer_to_helper=helper answer" {
		t.Errorf("review order = %s", got)
	}
	// The sub-agent's events carry its name and the hand-off span.
	for _, e := range s.All() {
		if te, ok := e.Data.(event.Tool); ok && te.CallID == "s1" && (e.Agent != "helper" || e.Span != "h1") {
			t.Errorf("sub-agent tool event agent=%s span=%s", e.Agent, e.Span)
		}
	}
}

func TestR7_ReviewerFailureEndsRunWithError(t *testing.T) {
	for name, rv := range map[string]review.Reviewer{
		"error": review.Func(func(context.Context, *review.Request) (review.Review, error) {
			return review.Review{}, errors.New("down")
		}),
		"panic": review.Func(func(context.Context, *review.Request) (review.Review, error) { panic("boom") }),
	} {
		t.Run(name, func(t *testing.T) {
			r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"x"}`)), modeltest.Turn("never")}})
			r.Review = review.New(rrule(t, "bad", rv, "*"))
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
			must(t, res, event.StatusError)
			if len(s.Tools()) != 1 || len(s.Reviews()) != 0 {
				t.Errorf("events = %v", s.Kinds())
			}
		})
	}
}

func TestR8_ReviewerAndApproverModelCallsNotCounted(t *testing.T) {
	judge := model.Func(func(context.Context, model.Request) (model.Response, error) {
		return model.Response{Message: chat.Message{Content: "ok"}, Usage: model.Usage{InputTokens: 5000, OutputTokens: 5000}}, nil
	})
	modelApprover := approval.Func(func(ctx context.Context, req *approval.Request) (approval.Approval, error) {
		if _, err := judge.Generate(ctx, model.Request{}); err != nil {
			return approval.Approval{}, err
		}
		return approval.Approval{Decision: approval.Approve}, nil
	})
	modelReviewer := review.Func(func(ctx context.Context, req *review.Request) (review.Review, error) {
		if _, err := judge.Generate(ctx, model.Request{}); err != nil {
			return review.Review{}, err
		}
		return review.Review{Decision: review.Continue}, nil
	})
	m := &modeltest.Replay{Usage: model.Usage{InputTokens: 10, OutputTokens: 10},
		Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"x"}`)), modeltest.Turn("done")}}
	r, _ := newRun(m)
	r.Limits = Limits{Tokens: 100, Turns: 2}
	r.Approval = approval.New(arule(t, "judge", modelApprover, "*"))
	r.Review = review.New(rrule(t, "judge", modelReviewer, "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go")), event.StatusCompleted)
	if turns, tokens := r.Usage(); turns != 2 || tokens != 40 {
		t.Errorf("usage = %d turns, %d tokens; want 2, 40", turns, tokens)
	}
}

func TestR9_CancelledReviewStopsWithOperatorLimit(t *testing.T) {
	cancelled := review.Func(func(context.Context, *review.Request) (review.Review, error) {
		return review.Review{}, context.Canceled // e.g. a person closed the review
	})
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"kept"}`))}})
	r.Review = review.New(rrule(t, "person", cancelled, "*"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
	must(t, res, event.StatusLimited)
	if res.Limit.Type != event.LimitOperator {
		t.Errorf("limit = %+v", res.Limit)
	}
	if te := s.Tools(); len(te) != 1 || te[0].Result != "kept" {
		t.Errorf("tool events = %+v", te)
	}
	if len(s.Reviews()) != 0 {
		t.Errorf("review events = %+v, want none", s.Reviews())
	}
	infos := s.Find(eventkind.Info)
	if len(infos) != 1 || !strings.Contains(infos[0].Data.(event.Info).Message, "cancelled") {
		t.Errorf("info events = %+v", infos)
	}
}

func TestR9_RunStopsPendingReviewsRecordNoDecision(t *testing.T) {
	pending, stopper := pendingAndStopper()
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"a"}`), tc("c2", "stopper", `{}`))}})
	r.Review = review.New(
		rrule(t, "pending", pending, "echo"),
		rrule(t, "stop", verdict(review.Terminate), "stopper"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo", parallel: true}, stopper}}, user("go"))
	must(t, res, event.StatusLimited)
	for _, rv := range s.Reviews() {
		if rv.CallID == "c1" {
			t.Errorf("pending review recorded a decision: %+v", rv)
		}
	}
	if len(s.Find(eventkind.Info)) != 0 {
		t.Errorf("info events for a review stopped by the run: %v", s.Find(eventkind.Info))
	}
	_ = time.Second
}
