package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/internal/vocab"
)

// Decider returns the reviewer that puts each step to p, the boundary
// decider of a run — build it with the constructor `warden run` ships it
// with (package internal/decider), so that what is measured is what runs.
// Each step is asked as the approval request of a boundary request
// (Request), exactly as a run asks it; the answer is read as follows:
//
//   - approved: Allow;
//   - rejected (or terminated, or modified, which a boundary request cannot
//     be): Deny, with Failed set when the model reviewer failed (warden
//     fails closed);
//   - a review that timed out: Escalate (no decision, and not a denial,
//     SPEC G10);
//   - no approver decided (the first pass passed the action on and nobody
//     after it decided; a person is never asked during an evaluation):
//     Escalate.
//
// By names the stage that decided: "rules" for the first pass (the value of
// the auto_review record's source), "model" for the model reviewer, or the
// approver's name. The tokens are those of every model call; the latency
// is the wall time of the whole decision.
func Decider(p *approval.Policy) Reviewer {
	return ReviewerFunc(func(ctx context.Context, s Step) (Outcome, error) {
		req, err := Request(s)
		if err != nil {
			return Outcome{}, err
		}
		var recs []approval.Record
		start := time.Now()
		out, err := p.Decide(ctx, req, func(r approval.Record) { recs = append(recs, r) })
		latency := time.Since(start)
		if err != nil {
			return Outcome{}, fmt.Errorf("boundary decider: %w", err)
		}
		o := Outcome{Latency: latency}
		for _, r := range recs {
			if ar := r.Approval.AutoReview; ar != nil {
				o.InputTokens += ar.InputTokens
				o.OutputTokens += ar.OutputTokens
			}
		}
		if out.Approver == approval.PolicyName {
			// Nobody decided: the last approver asked passed it on.
			o.Decision, o.By, o.Reason = vocab.Escalate, out.Approver, out.Explanation
			for i := len(recs) - 1; i >= 0; i-- {
				if recs[i].Approver != approval.PolicyName {
					o.By, o.Reason = byOf(recs[i].Approver, recs[i].Approval)
					break
				}
			}
			return o, nil
		}
		o.By, o.Reason = byOf(out.Approver, out.Approval)
		ar, reviewed := out.AutoReview, out.AutoReview != nil
		switch {
		case reviewed && ar.Status == action.StatusAborted:
			return Outcome{}, fmt.Errorf("boundary decider: review aborted: %w", context.Cause(ctx))
		case reviewed && ar.Status == action.StatusTimedOut:
			o.Decision = vocab.Escalate
		case out.Decision == approval.Approve:
			o.Decision = vocab.Allow
		default:
			o.Decision = vocab.Deny
			o.Failed = reviewed && ar.Status == action.StatusFailed
		}
		return o, nil
	})
}

// byOf names the stage behind an approver's answer, and why it answered:
// the auto_review record's source and rationale when there is one (the
// first pass's is "rules"), else the first pass's verdict, else the
// approver's name and explanation.
func byOf(approver string, a approval.Approval) (string, string) {
	if ar := a.AutoReview; ar != nil {
		return ar.Source, ar.Rationale
	}
	if v, ok := a.Metadata[triage.MetadataKey].(triage.Verdict); ok {
		return event.SourceFirstPass, v.Reason
	}
	return approver, a.Explanation
}

// PassOn returns the approver that stands in for a person during an
// evaluation: it passes every request on, since no person answers one.
// Items it is asked about count as escalated.
func PassOn() approval.Approver {
	return approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{Decision: approval.Escalate, Explanation: "no person answers an evaluation"}, nil
	})
}
