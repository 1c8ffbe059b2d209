package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/tool"
)

// A BoundaryApprover decides the requests to cross the sandbox boundary
// that a run's tools make while they run (SPEC G2, G3). The run puts each
// one to it as an approval request of the call that made it; BoundaryPolicy
// makes an approval policy one, and a middleware (package gate keeps the
// denial log, the overrides and the circuit breaker) wraps another. An
// error ends the run (SPEC A7): it never counts as an approval.
type BoundaryApprover interface {
	ApproveBoundary(ctx context.Context, req *BoundaryRequest) (BoundaryOutcome, error)
}

// BoundaryFunc adapts a function to the BoundaryApprover interface.
type BoundaryFunc func(ctx context.Context, req *BoundaryRequest) (BoundaryOutcome, error)

// ApproveBoundary calls f.
func (f BoundaryFunc) ApproveBoundary(ctx context.Context, req *BoundaryRequest) (BoundaryOutcome, error) {
	return f(ctx, req)
}

// BoundaryRequest is one request to cross the sandbox boundary, as the run
// puts it to its BoundaryApprover.
type BoundaryRequest struct {
	// Request is what the approvers see: the call that made the request,
	// its conversation, and the boundary request itself (Request.Boundary).
	Request *approval.Request
	// Events records in the transcript, in the span of the call's agent:
	// what a boundary approver records of its own (auto-review records,
	// warnings) goes there.
	Events *event.Recorder
	// Record records one approver's answer as an approval event of the
	// call. Pass it on (wrapped, if need be) to every approver asked,
	// escalations included, as approval.Policy.Decide does; nil records
	// nothing.
	Record func(approval.Record)
}

// BoundaryOutcome is a boundary approver's decision on one request.
type BoundaryOutcome struct {
	approval.Outcome
	// Interrupt, when set, ends the turn once the call returns, with a
	// limit of type event.LimitInterrupt (SPEC G11); the decision still
	// reaches the tool.
	Interrupt *Interrupt
}

// Interrupt says who interrupts a turn at a boundary request, and why.
type Interrupt struct {
	// By names what interrupted the turn, for the model: "the circuit
	// breaker". It never carries an approver's explanation.
	By string
	// Message says why, for the limit recorded in the transcript.
	Message string
}

// A TurnHook is told when a turn of the run starts. A boundary approver
// that keeps state per turn (SPEC G11) or has something to tell the agent
// when a turn starts (G12) implements it; Run.Execute calls StartTurn on
// its Boundary before the turn_start event is recorded. ts is that event,
// which the hook may complete (authenticate it as the person's request, for
// example); it is nil when the turn does not start with a request of the
// person. StartTurn returns the conversation the turn starts from: input,
// with whatever the hook must tell the agent.
type TurnHook interface {
	StartTurn(ts *event.TurnStart, input []chat.Message) []chat.Message
}

// A runHook is told when a run starts. A boundary approver that
// authenticates the run's records (SPEC G15) implements it; Run.Execute
// calls StartRun on its Boundary with the run_start event before recording
// it, and the hook may complete it.
type runHook interface {
	StartRun(rs *event.RunStart)
}

// NoBoundaryApprover is the explanation of a boundary request denied
// because the run has no approver for them.
const NoBoundaryApprover = "no approver for boundary requests is configured: denied"

// BoundaryPolicy makes an approval policy a BoundaryApprover: each boundary
// request is put to the policy's approvers as an approval request, and
// every answer is recorded. A policy with no approvers makes no approver
// (nil): the run then denies every boundary request, failing closed,
// where an approval policy with no approvers would let a call run.
func BoundaryPolicy(p *approval.Policy) BoundaryApprover {
	if p.Len() == 0 {
		return nil
	}
	return BoundaryFunc(func(ctx context.Context, req *BoundaryRequest) (BoundaryOutcome, error) {
		out, err := p.Decide(ctx, req.Request, req.Record)
		if err != nil {
			return BoundaryOutcome{}, fmt.Errorf("boundary policy: %w", err)
		}
		return BoundaryOutcome{Outcome: out}, nil
	})
}

// boundaryDecider sends the boundary requests a call makes while it runs to
// the run's Boundary approver, recording each answer as an approval event
// of that call (SPEC G2, G3). A terminate, an interrupt, or a failure of an
// approver, is kept and ends the run once the tool returns: a tool cannot be
// trusted to pass either on.
type boundaryDecider struct {
	run   *Run
	sc    scope
	msgs  []chat.Message
	call  tool.Call
	tool  tool.Tool  // the tool called, which describes its requests
	order tool.Order // of the call's tool (SPEC P2)
	mu    sync.Mutex
	limit *LimitError
	by    string // who interrupted the turn, for an interrupt limit
	fatal error
}

// Decide implements boundary.Decider.
func (d *boundaryDecider) Decide(ctx context.Context, req *boundary.Request) (boundary.Answer, error) {
	b := d.run.Boundary
	if b == nil {
		return boundary.Answer{Explanation: NoBoundaryApprover}, nil
	}
	last := d.msgs[len(d.msgs)-1]
	view := tool.View{Title: fmt.Sprintf("%s wants to cross the sandbox boundary", d.call.Function), Format: "text", Content: req.String()}
	areq := &approval.Request{Message: last.Content, Call: d.call, Tool: d.tool, View: view, Order: d.order, History: d.msgs, Boundary: req, Agent: d.sc.agent}
	out, err := b.ApproveBoundary(ctx, &BoundaryRequest{Request: areq, Events: d.sc.rec, Record: func(rec approval.Record) {
		d.sc.rec.Emit(event.Approval{
			CallID: d.call.ID, Call: d.call, Approver: rec.Approver,
			Decision: string(rec.Approval.Decision), Modified: rec.Approval.Modified,
			Explanation: rec.Approval.Explanation, Chain: rec.Chain, Boundary: req, DecidedBy: decidedBy(rec.Approval.Metadata),
		})
	}})
	if err != nil {
		if ctx.Err() == nil {
			d.mu.Lock()
			d.fatal = err
			d.mu.Unlock()
		}
		return boundary.Answer{Explanation: "the approver failed: " + err.Error()}, err
	}
	if in := out.Interrupt; in != nil {
		d.mu.Lock()
		d.limit, d.by = &LimitError{Type: event.LimitInterrupt, Message: in.Message}, in.By
		d.mu.Unlock()
	}
	dec := boundary.Answer{Explanation: out.Explanation, By: out.Approver}
	switch out.Decision {
	case approval.Approve:
		dec.Approved = true
	case approval.Terminate:
		d.mu.Lock()
		d.limit = &LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("approver %s terminated the run at a %s request of call %s: %s", out.Approver, req.Permission, d.call.ID, out.Explanation)}
		d.mu.Unlock()
		dec.Explanation = "terminated: " + out.Explanation
	case approval.Modify:
		dec.Explanation = "denied: a boundary request cannot be modified"
	}
	return dec, nil
}

// stop returns the error that must end the run after the tool returned,
// and why, for the model, without any approver's explanation.
func (d *boundaryDecider) stop() (why string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.fatal != nil:
		return "the approver of a boundary request of this call failed", &runError{Err: fmt.Errorf("boundary request of call %s: %w", d.call.ID, d.fatal)}
	case d.limit == nil:
		return "", nil
	case d.limit.Type == event.LimitInterrupt:
		by := d.by
		if by == "" {
			by = "the boundary approver"
		}
		return by + " interrupted the turn at a boundary request of this call", d.limit
	}
	return "an approver terminated the run at a boundary request of this call", d.limit
}
