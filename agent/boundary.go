package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/autoreview"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/tool"
)

// boundaryDecider sends the boundary requests a call makes while it runs to
// the run's Boundary policy, recording each decision as an approval event
// of that call (SPEC G2, G3). A terminate, or a failure of an approver, is
// kept and ends the run once the tool returns: a tool cannot be trusted to
// pass either on.
type boundaryDecider struct {
	run   *Run
	sc    scope
	msgs  []chat.Message
	call  tool.Call
	tool  tool.Tool  // the tool called, which describes its requests
	order tool.Order // of the call's tool (SPEC P2)
	mu    sync.Mutex
	limit *LimitError
	fatal error
}

// Decide implements boundary.Decider.
func (d *boundaryDecider) Decide(ctx context.Context, req *boundary.Request) (boundary.Decision, error) {
	p := d.run.Boundary
	if p.Len() == 0 {
		return boundary.Decision{Explanation: "no approver for boundary requests is configured: denied"}, nil
	}
	var granted *grant
	if actionJSON, err := action.JSON(d.tool, d.call, req); err == nil {
		if g, ok := d.run.denials.take(actionJSON); ok {
			granted = &g
			d.run.used(d.sc.rec, g) // single use, across resumes too
			ctx = autoreview.WithOverride(ctx, &autoreview.Override{DenialID: g.denial.ID, By: g.by, Note: g.note, Action: g.denial.Action})
		}
	}
	last := d.msgs[len(d.msgs)-1]
	view := tool.View{Title: fmt.Sprintf("%s wants to cross the sandbox boundary", d.call.Function), Format: "text", Content: req.String()}
	areq := &approval.Request{Message: last.Content, Call: d.call, Tool: d.tool, View: view, Order: d.order, History: d.msgs, Boundary: req}
	var reviews []event.AutoReview // of every approver asked, escalations included
	out, err := p.Decide(ctx, areq, func(rec approval.Record) {
		d.sc.rec.Emit(event.Approval{
			CallID: d.call.ID, Call: d.call, Approver: rec.Approver,
			Decision: string(rec.Approval.Decision), Modified: rec.Approval.Modified,
			Explanation: rec.Approval.Explanation, Chain: rec.Chain, Boundary: req,
		})
		if ar, ok := rec.Approval.Metadata[event.AutoReviewKey].(event.AutoReview); ok {
			d.mu.Lock()
			reviews = append(reviews, ar)
			d.mu.Unlock()
		}
	})
	if err != nil {
		if ctx.Err() == nil {
			d.mu.Lock()
			d.fatal = err
			d.mu.Unlock()
		}
		return boundary.Decision{Explanation: "the approver failed: " + err.Error()}, err
	}
	d.mu.Lock()
	if len(reviews) == 0 {
		if ar, ok := out.Metadata[event.AutoReviewKey].(event.AutoReview); ok {
			reviews = append(reviews, ar)
		}
	}
	d.mu.Unlock()
	for _, ar := range reviews {
		ar.CallID = d.call.ID
		if granted != nil {
			ar.Source, ar.DenialID = event.SourceOverride, granted.denial.ID
		}
		if ar.Status == action.StatusDenied {
			den := d.run.denials.add(d.run.runID(), Denial{CallID: d.call.ID, Action: ar.Action, RiskLevel: ar.RiskLevel, Rationale: ar.Rationale, Time: time.Now().UTC()})
			ar.DenialID = den.ID
			if d.run.Sealer != nil {
				ar.MAC = denialMAC(d.run.Sealer, d.run.runID(), den)
			}
		}
		d.sc.rec.Emit(ar)
		if trip, why := d.run.Breaker.Record(ar.Status == action.StatusDenied); trip {
			msg := "circuit breaker: " + why + "; the turn is interrupted instead of letting the agent keep asking"
			d.sc.rec.Emit(event.Warning{Message: msg})
			d.mu.Lock()
			d.limit = &LimitError{Type: event.LimitInterrupt, Message: msg}
			d.mu.Unlock()
		}
	}
	dec := boundary.Decision{Explanation: out.Explanation, By: out.Approver}
	switch out.Decision {
	case approval.Approve:
		dec.Approved = true
	case approval.Terminate:
		d.mu.Lock()
		d.limit = &LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("approver %s terminated the run at a %s request of call %s: %s", out.Approver, req.Kind, d.call.ID, out.Explanation)}
		d.mu.Unlock()
		dec.Explanation = "terminated: " + out.Explanation
	case approval.Modify:
		dec.Explanation = "denied: a boundary request cannot be modified"
	}
	return dec, nil
}

// stop returns the error that must end the run after the tool returned.
func (d *boundaryDecider) stop() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fatal != nil {
		return &RunError{Err: fmt.Errorf("boundary request of call %s: %w", d.call.ID, d.fatal)}
	}
	if d.limit != nil {
		return d.limit
	}
	return nil
}
