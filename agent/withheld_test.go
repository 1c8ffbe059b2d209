package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// secretTool returns secret without it appearing in its call: the result
// is the only way the secret can reach a model.
func secretTool(name, secret string, parallel bool) *echo {
	return &echo{name: name, parallel: parallel, fn: func(context.Context, json.RawMessage) (string, error) {
		return "the key is " + secret, nil
	}}
}

// nextTurn runs a further turn of the same run on the conversation so far,
// as `warden run --interactive` does.
func nextTurn(r *Run, a *Agent, res *Result, input string) *Result {
	r.Resumed = true
	msgs := append(append([]chat.Message(nil), res.Messages...), chat.Message{Role: chat.User, Content: input})
	return r.Execute(context.Background(), a, msgs)
}

// checkWithheld checks that the conversation answers call id with an error
// and not the secret, that the tool event keeps the result and that a
// withheld event with reason marks it.
func checkWithheld(t *testing.T, s *eventtest.Sink, msgs []chat.Message, id, secret, reason string) {
	t.Helper()
	found := false
	for _, m := range msgs {
		if m.Role == chat.Tool && m.ToolCallID == id {
			found = true
			if strings.Contains(m.Content, secret) || m.Error == nil || !strings.Contains(m.Content, "stopped") {
				t.Errorf("the conversation answers %s with %q (error %+v)", id, m.Content, m.Error)
			}
		}
	}
	if !found {
		t.Errorf("the conversation does not answer %s", id)
	}
	kept := false
	for _, te := range s.Tools() {
		if te.CallID == id && strings.Contains(te.Result, secret) {
			kept = true
		}
	}
	if !kept {
		t.Errorf("the tool event of %s lost the finished result (SPEC R2)", id)
	}
	w := s.WithheldFor(id)
	if len(w) != 1 || w[0].Reason != reason || strings.Contains(w[0].Result, secret) || w[0].Error == nil {
		t.Errorf("withheld events of %s = %+v, want one with reason %s", id, w, reason)
	}
}

// withheldThenNoLeak executes a with r, which must end limited with the
// result of call id withheld for reason, and then checks the next turn
// (noLeakNextTurn).
func withheldThenNoLeak(t *testing.T, r *Run, s *eventtest.Sink, a *Agent, m *modeltest.Replay, id, secret, reason, what string) {
	t.Helper()
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	checkWithheld(t, s, res.Messages, id, secret, reason)
	noLeakNextTurn(t, r, a, res, m, secret, what)
}

// noLeakNextTurn runs the turn after res, which must complete, and fails
// when a request of the model m holds secret; what names the result in the
// message.
func noLeakNextTurn(t *testing.T, r *Run, a *Agent, res *Result, m *modeltest.Replay, secret, what string) {
	t.Helper()
	must(t, nextTurn(r, a, res, "go on"), event.StatusCompleted)
	if l := modeltest.Leaks(t, m.Requests(), secret); len(l) != 0 {
		t.Errorf("model requests %v contain %s", l, what)
	}
}

func TestR2_TerminatedResultNeverReachesModelInTheNextTurn(t *testing.T) {
	const secret = "SECRET-R2-live"
	// The reviewer's explanation quotes the result: it must not reach the
	// model either.
	quoting := review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
		return review.Review{Decision: review.Terminate, Explanation: "the result leaks " + req.Result.Content}, nil
	})
	var histories [][]chat.Message
	var mu sync.Mutex
	spy := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		mu.Lock()
		histories = append(histories, req.History)
		mu.Unlock()
		return approval.Approval{Decision: approval.Approve}, nil
	})
	m := &modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("reading", tc("c1", "read", `{}`)),
		modeltest.Turn("", tc("c2", "echo", `{"text":"again"}`)),
		modeltest.Turn("done"),
	}}
	r, s := newRun(m)
	r.Review = review.New(rrule(t, "quoting", quoting, "read"))
	r.Approval = approval.New(arule(t, "spy", spy, "*"))
	a := &Agent{Tools: []tool.Tool{secretTool("read", secret, false), &echo{name: "echo"}}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	checkWithheld(t, s, res.Messages, "c1", secret, eventkind.WithheldTerminated)

	res = nextTurn(r, a, res, "go on")
	must(t, res, event.StatusCompleted)
	if got := len(m.Requests()); got != 3 {
		t.Fatalf("%d model requests, want 3", got)
	}
	if l := modeltest.Leaks(t, m.Requests(), secret); len(l) != 0 {
		t.Errorf("model requests %v contain the terminated result", l)
	}
	for _, h := range histories {
		for _, msg := range h {
			if strings.Contains(msg.Content, secret) {
				t.Errorf("an approver saw the terminated result in the history: %q", msg.Content)
			}
		}
	}
}

func TestR9_CancelledReviewResultNeverReachesModel(t *testing.T) {
	const secret = "SECRET-R9-cancel"
	cancelled := review.Func(func(context.Context, *review.Request) (review.Review, error) {
		return review.Review{}, context.Canceled // a person closed the review
	})
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "read", `{}`)), modeltest.Turn("done")}}
	r, s := newRun(m)
	r.Review = review.New(rrule(t, "person", cancelled, "read"))
	a := &Agent{Tools: []tool.Tool{secretTool("read", secret, false)}}
	withheldThenNoLeak(t, r, s, a, m, "c1", secret, eventkind.WithheldReviewCancelled, "the result of a cancelled review")
}

func TestR9_SiblingWhoseReviewWasCancelledNeverReachesModel(t *testing.T) {
	const secret = "SECRET-R9-sibling"
	pending, stopper := pendingAndStopper()
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "read", `{}`), tc("c2", "stopper", `{}`)), modeltest.Turn("done")}}
	r, s := newRun(m)
	r.Review = review.New(
		rrule(t, "pending", pending, "read"),
		rrule(t, "stop", verdict(review.Terminate), "stopper"))
	a := &Agent{Tools: []tool.Tool{secretTool("read", secret, true), stopper}}
	withheldThenNoLeak(t, r, s, a, m, "c1", secret, eventkind.WithheldNotReviewed, "a result whose review never decided")
}

func TestR7_FailedReviewResultIsWithheld(t *testing.T) {
	const secret = "SECRET-R7"
	failing := review.Func(func(context.Context, *review.Request) (review.Review, error) {
		return review.Review{}, errors.New("reviewer down")
	})
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "read", `{}`))}})
	r.Review = review.New(rrule(t, "failing", failing, "*"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{secretTool("read", secret, false)}}, user("go"))
	must(t, res, event.StatusError)
	checkWithheld(t, s, res.Messages, "c1", secret, eventkind.WithheldReviewFailed)
}

func TestR2_BoundaryTerminateWithholdsTheResult(t *testing.T) {
	const secret = "SECRET-boundary"
	leaky := &echo{name: "write", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		_, _ = boundary.Ask(ctx, &boundary.Request{Permission: boundary.Write, Paths: []string{"/etc/x"}, Reason: "outside"})
		return "wrote anyway: " + secret, nil // a tool that ignores the decision
	}}
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "write", `{}`)), modeltest.Turn("done")}}
	r, s := newRun(m)
	r.Boundary = BoundaryPolicy(approval.New(arule(t, "person", decide(approval.Terminate), "*")))
	a := &Agent{Tools: []tool.Tool{leaky}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	checkWithheld(t, s, res.Messages, "c1", secret, eventkind.WithheldBoundary)
	r.Boundary = nil
	noLeakNextTurn(t, r, a, res, m, secret, "the result of a call whose boundary request terminated")
}

// A boundary approver that interrupts the turn (the circuit breaker of
// package gate does, SPEC G11) ends it with an interrupt limit once the
// call returns; the call's result is withheld and the decision still
// reached the tool.
func TestR2_BoundaryInterruptWithholdsTheResult(t *testing.T) {
	const secret = "SECRET-interrupt"
	var told []string
	leaky := &echo{name: "write", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		dec, _ := boundary.Ask(ctx, &boundary.Request{Permission: boundary.Write, Paths: []string{"/etc/x"}, Reason: "outside"})
		told = append(told, dec.Explanation)
		return "denied, but: " + secret, nil
	}}
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c", "write", `{}`)), modeltest.Turn("done")}}
	r, s := newRun(m)
	r.Boundary = BoundaryFunc(func(_ context.Context, req *BoundaryRequest) (BoundaryOutcome, error) {
		req.Record(approval.Record{Approver: "judge", Approval: approval.Approval{Decision: approval.Reject, Explanation: "no"}})
		return BoundaryOutcome{
			Outcome:   approval.Outcome{Approval: approval.Approval{Decision: approval.Reject, Explanation: "no"}, Approver: "judge"},
			Interrupt: &Interrupt{By: "the circuit breaker", Message: "too many denials"},
		}, nil
	})
	a := &Agent{Tools: []tool.Tool{leaky}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	if res.Limit.Type != event.LimitInterrupt || res.Limit.Message != "too many denials" {
		t.Fatalf("limit = %+v", res.Limit)
	}
	if len(told) != 1 || told[0] != "no" {
		t.Errorf("the tool was told %q", told)
	}
	checkWithheld(t, s, res.Messages, "c", secret, eventkind.WithheldBoundary)
	last := res.Messages[len(res.Messages)-1]
	if !strings.Contains(last.Content, "the circuit breaker interrupted the turn") || strings.Contains(last.Content, "too many denials") {
		t.Errorf("the interrupted call is answered with %q", last.Content)
	}
	if ap := s.Approvals(); len(ap) != 1 || ap[0].Approver != "judge" || ap[0].Boundary == nil {
		t.Errorf("approval events = %+v", ap)
	}
}

// A sub-agent's reviewer terminates on a result and explains itself by
// quoting it: the hand-off's result, which would carry that explanation,
// does not reach the parent's model either.
func TestR2_SubAgentTerminateNeverReachesTheParentsModel(t *testing.T) {
	const secret = "SECRET-sub"
	quoting := review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
		return review.Review{Decision: review.Terminate, Explanation: "leaks " + req.Result.Content}, nil
	})
	m := &modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("", tc("h1", "transfer_to_helper", `{}`)),
		modeltest.Turn("", tc("s1", "read", `{}`)),
		modeltest.Turn("done"),
	}}
	r, s := newRun(m)
	helper := &Agent{Name: "helper", Tools: []tool.Tool{secretTool("read", secret, false)}, Review: review.New(rrule(t, "quoting", quoting, "read"))}
	a := &Agent{Handoffs: []*Agent{helper}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	if w := s.WithheldFor("h1"); len(w) != 1 || w[0].Reason != eventkind.WithheldStopped {
		t.Errorf("withheld events of the hand-off = %+v", w)
	}
	if w := s.WithheldFor("s1"); len(w) != 1 || w[0].Reason != eventkind.WithheldTerminated {
		t.Errorf("withheld events of the sub-agent's call = %+v", w)
	}
	noLeakNextTurn(t, r, a, res, m, secret, "the secret")
}

// After an approver terminates, the calls that never ran are answered in
// the live conversation, so that a next turn is a valid conversation.
func TestL2_CallsThatNeverRanAreAnsweredForTheNextTurn(t *testing.T) {
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"a"}`), tc("c2", "echo", `{"text":"b"}`)), modeltest.Turn("done")}}
	r, s := newRun(m)
	r.Approval = approval.New(arule(t, "stop", decide(approval.Terminate), "*"))
	a := &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusLimited)
	var answered []string
	for _, msg := range res.Messages {
		if msg.Role == chat.Tool && msg.Error != nil && msg.Error.Type == tool.ErrCancelled {
			answered = append(answered, msg.ToolCallID)
		}
	}
	if strings.Join(answered, ",") != "c1,c2" {
		t.Errorf("answered = %v\n%+v", answered, res.Messages)
	}
	if len(s.Tools()) != 0 {
		t.Errorf("tool events for calls that never ran: %+v", s.Tools())
	}
}

// SPEC R9 "kept": when the run stops for another reason while a review is
// pending, the review is cancelled and records no decision, but the
// result its tool had finished stays in the transcript (the tool event,
// written to a real JSONL file and read back), marked withheld as not
// reviewed, and never reaches the model — whatever stopped the run.
func TestR9_ResultsFinishedBeforeReviewCancelledAreKept(t *testing.T) {
	const secret = "SECRET-R9-kept"
	type stopper struct {
		tool     *echo
		approval approval.Approver // for the stopping call; nil approves
		review   review.Reviewer   // for the stopping call
	}
	for _, c := range []struct {
		name   string
		stop   func(pending <-chan struct{}, cancel context.CancelCauseFunc) stopper
		status string
	}{
		{"a sibling's reviewer terminates", func(pending <-chan struct{}, _ context.CancelCauseFunc) stopper {
			return stopper{tool: &echo{name: "stop", parallel: true, fn: func(context.Context, json.RawMessage) (string, error) {
				<-pending
				return "done", nil
			}}, review: verdict(review.Terminate)}
		}, event.StatusLimited},
		{"a sibling's reviewer fails", func(pending <-chan struct{}, _ context.CancelCauseFunc) stopper {
			return stopper{tool: &echo{name: "stop", parallel: true, fn: func(context.Context, json.RawMessage) (string, error) {
				<-pending
				return "done", nil
			}}, review: review.Func(func(context.Context, *review.Request) (review.Review, error) {
				return review.Review{}, errors.New("reviewer down")
			})}
		}, event.StatusError},
		{"a sibling's approver terminates", func(pending <-chan struct{}, _ context.CancelCauseFunc) stopper {
			return stopper{tool: &echo{name: "stop", parallel: true}, approval: approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
				<-pending
				return approval.Approval{Decision: approval.Terminate, Explanation: "stop"}, nil
			}), review: verdict(review.Continue)}
		}, event.StatusLimited},
		{"a sibling's tool panics", func(pending <-chan struct{}, _ context.CancelCauseFunc) stopper {
			return stopper{tool: &echo{name: "stop", parallel: true, fn: func(context.Context, json.RawMessage) (string, error) {
				<-pending
				panic("tool bug")
			}}, review: verdict(review.Continue)}
		}, event.StatusError},
		{"the operator interrupts the run", func(pending <-chan struct{}, cancel context.CancelCauseFunc) stopper {
			go func() {
				<-pending
				cancel(nil) // as Ctrl-C does (signal.NotifyContext)
			}()
			return stopper{tool: &echo{name: "stop", parallel: true}, review: verdict(review.Continue)}
		}, event.StatusLimited},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			pendingStarted := make(chan struct{})
			var once sync.Once
			pending := review.Func(func(ctx context.Context, _ *review.Request) (review.Review, error) {
				once.Do(func() { close(pendingStarted) })
				<-ctx.Done()
				return review.Review{}, ctx.Err()
			})
			st := c.stop(pendingStarted, cancel)
			path := filepath.Join(t.TempDir(), "run.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "read", `{}`), tc("c2", "stop", `{"text":"x"}`)), modeltest.Turn("done")}}
			r := &Run{ID: "r1", Model: m, Events: event.NewRecorder("r1", event.NewWriter(f))}
			rules := []approval.Rule{arule(t, "yes", decide(approval.Approve), "read")}
			if st.approval != nil {
				rules = append(rules, arule(t, "stopper", st.approval, "stop"))
			} else {
				rules = append(rules, arule(t, "yes", decide(approval.Approve), "stop"))
			}
			r.Approval = approval.New(rules...)
			r.Review = review.New(rrule(t, "pending", pending, "read"), rrule(t, "stopper", st.review, "stop"))
			res := r.Execute(ctx, &Agent{Tools: []tool.Tool{secretTool("read", secret, true), st.tool}}, user("go"))
			must(t, res, c.status)

			// The transcript on disk.
			if _, err := f.Seek(0, 0); err != nil {
				t.Fatal(err)
			}
			var kept, withheld, reviewed, infos int
			if err := event.Read(f, func(e event.Event) error {
				switch d := e.Data.(type) {
				case event.Tool:
					if d.CallID == "c1" && d.Result == "the key is "+secret && d.Error == nil {
						kept++
					}
				case event.Withheld:
					if d.CallID == "c1" && d.Reason == eventkind.WithheldNotReviewed && !strings.Contains(d.Result, secret) {
						withheld++
					}
				case event.Review:
					if d.CallID == "c1" {
						reviewed++
					}
				case event.Info:
					infos++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if kept != 1 || withheld != 1 || reviewed != 0 || infos != 0 {
				t.Errorf("transcript of c1: %d tool events with the finished result (want 1), %d withheld not_reviewed (1), %d review decisions (0), %d info events (0)",
					kept, withheld, reviewed, infos)
			}
			if l := modeltest.Leaks(t, m.Requests(), secret); len(l) != 0 {
				t.Errorf("model requests %v contain the result of a cancelled review", l)
			}
			for _, msg := range res.Messages {
				if strings.Contains(msg.Content, secret) {
					t.Errorf("the conversation carries the result: %q", msg.Content)
				}
			}
		})
	}
}
