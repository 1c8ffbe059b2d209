package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/autoreview"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/triage"
)

// Rules returns the deterministic reviewer of package triage (SPEC G14)
// with the exec rules set (nil for none). It never fails.
func Rules(set *rules.Set) Reviewer {
	return ReviewerFunc(func(_ context.Context, s Step) (Outcome, error) {
		v := triage.JudgeIn(s.Action, s.Request, s.Transcript, set)
		return Outcome{Decision: v.Decision, By: "rules", Reason: v.Reason}, nil
	})
}

// Model returns the model reviewer of package autoreview: it reviews the
// action's JSON against the request and transcript. A denial is Deny; a
// timeout is Escalate (no decision, and not a denial, SPEC G10); a failure
// is Deny with Failed set (warden fails closed).
func Model(r *autoreview.Reviewer) Reviewer {
	return ReviewerFunc(func(ctx context.Context, s Step) (Outcome, error) {
		history, err := action.History(s.Request, s.Transcript)
		if err != nil {
			return Outcome{}, fmt.Errorf("model reviewer: %w", err)
		}
		actionJSON, err := s.Action.Marshal(action.MaxString)
		if err != nil {
			return Outcome{}, fmt.Errorf("model reviewer: %w", err)
		}
		res, _ := r.Review(ctx, history, actionJSON, nil)
		out := Outcome{By: "model", Reason: res.Rationale, Latency: res.Latency,
			InputTokens: res.InputTokens, OutputTokens: res.OutputTokens}
		switch res.Status {
		case action.StatusApproved:
			out.Decision = action.Allow
		case action.StatusDenied:
			out.Decision = action.Deny
		case action.StatusTimedOut:
			out.Decision, out.Reason = action.Escalate, res.Message
		default:
			if ctx.Err() != nil {
				return Outcome{}, fmt.Errorf("model reviewer: %w", ctx.Err())
			}
			out.Decision, out.Failed, out.Reason = action.Deny, true, res.Error
		}
		return out, nil
	})
}

// Chain returns a reviewer that asks first and, when first escalates,
// then: the outcome of the stage that decided, with the latencies and
// tokens of both stages added up. It is how warden runs auto-review: the
// rules first, the model for what they pass on.
func Chain(first, then Reviewer) Reviewer {
	return ReviewerFunc(func(ctx context.Context, s Step) (Outcome, error) {
		a, err := timed(ctx, first, s)
		if err != nil || a.Decision != action.Escalate {
			return a, err
		}
		b, err := timed(ctx, then, s)
		if err != nil {
			return b, err
		}
		b.Latency += a.Latency
		b.InputTokens += a.InputTokens
		b.OutputTokens += a.OutputTokens
		return b, nil
	})
}

// timed asks r and fills in the latency when r did not.
func timed(ctx context.Context, r Reviewer, s Step) (Outcome, error) {
	start := time.Now()
	o, err := r.Review(ctx, s)
	if o.Latency == 0 {
		o.Latency = time.Since(start)
	}
	return o, err
}
