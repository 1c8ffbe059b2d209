// Package gate is the boundary approver of a run: a middleware around the
// approvers that decide requests to cross the sandbox boundary (SPEC G3),
// which keeps what governs those decisions across a run — the log of the
// latest auto-review denials, the overrides a person grants on them (one
// retry of exactly that action, authenticated, single use across resumes),
// the notes that tell the agent of them, and the per-turn circuit breaker
// (SPEC G11, G12, G13, G15).
//
// A Gate is an agent.BoundaryApprover and an agent.TurnHook: set it as a
// run's Boundary, with the deciding approvers as its Next. Each review an
// approver made (approval.Approval.AutoReview) is recorded as an
// auto_review event of the call; a denial gets an id unique for the life of
// the run, authenticated with the Sealer, for a person to override with
// Override; the breaker interrupts the turn when the reviewer keeps
// denying. On resume, warden's ledger rebuilds the gate's state from the
// transcript, trusting only what verifies (Restore).
package gate

import (
	"context"
	"errors"
	"github.com/wardenhq/warden/action"
	"sync"
	"time"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/override"
)

// Gate is the boundary approver of one run (see the package comment). Set
// its fields before the first request and do not change them afterwards;
// its methods are safe for concurrent use.
type Gate struct {
	// Next decides the boundary requests: the approvers the run uses for
	// them (SPEC G3), for example agent.BoundaryPolicy of a policy. Nil
	// denies every request.
	Next agent.BoundaryApprover
	// RunID identifies the run in denial ids and MACs. Empty means the run
	// id of Events.
	RunID string
	// Events records what the person's channel does: the overrides
	// Override grants. What happens at a boundary request is recorded in
	// the span of the call that made it.
	Events *event.Recorder
	// Breaker interrupts a turn whose boundary requests auto-review keeps
	// denying (SPEC G11); its zero value uses the default thresholds.
	Breaker Breaker
	// Sealer authenticates the run's denials, overrides and their use, and
	// the person's requests that start turns (SPEC G12, G15). Nil records
	// them unauthenticated and makes overrides impossible.
	Sealer Sealer

	denials denialLog
}

var (
	_ agent.BoundaryApprover = (*Gate)(nil)
	_ agent.TurnHook         = (*Gate)(nil)
)

// ApproveBoundary implements agent.BoundaryApprover. It puts the request
// to Next — with the person's override, when one was granted for exactly
// this action, which it uses up (SPEC G12) — and records, in order, the
// review of every approver Next asked as an auto_review event of the call:
// a denial enters the denial log under a new id, and the breaker counts
// each review, interrupting the turn when it trips (G11). An error of Next
// is returned as it is, and nothing of it is recorded here.
func (g *Gate) ApproveBoundary(ctx context.Context, req *agent.BoundaryRequest) (agent.BoundaryOutcome, error) {
	if g == nil || g.Next == nil {
		return agent.BoundaryOutcome{Outcome: approval.Outcome{Approval: approval.Approval{
			Decision: approval.Reject, Explanation: agent.NoBoundaryApprover}}}, nil
	}
	if req == nil || req.Request == nil {
		return agent.BoundaryOutcome{}, errors.New("gate: a boundary request without its approval request")
	}
	areq := req.Request
	var granted *ledger.Grant
	if actionJSON, err := action.JSON(areq.Tool, areq.Call, areq.Boundary); err == nil {
		if gr, ok := g.denials.take(actionJSON); ok {
			granted = &gr
			g.used(req.Events, gr) // single use, across resumes too
			ctx = override.With(ctx, &override.Override{DenialID: gr.Denial.ID, By: gr.By, Note: gr.Note, Action: gr.Denial.Action})
		}
	}
	var mu sync.Mutex
	var reviews []event.AutoReview // of every approver asked, escalations included
	inner := *req
	inner.Record = func(rec approval.Record) {
		if req.Record != nil {
			req.Record(rec)
		}
		if ar := rec.Approval.AutoReview; ar != nil {
			mu.Lock()
			reviews = append(reviews, *ar)
			mu.Unlock()
		}
	}
	out, err := g.Next.ApproveBoundary(ctx, &inner)
	if err != nil {
		return out, err
	}
	mu.Lock()
	if len(reviews) == 0 && out.AutoReview != nil {
		reviews = append(reviews, *out.AutoReview)
	}
	rs := reviews
	mu.Unlock()
	runID := g.runID()
	for _, ar := range rs {
		ar.CallID = areq.Call.ID
		if granted != nil {
			ar.Source, ar.DenialID = event.SourceOverride, granted.Denial.ID
		}
		if ar.Status == action.StatusDenied {
			den := g.denials.add(runID, Denial{CallID: areq.Call.ID, Action: ar.Action, RiskLevel: ar.RiskLevel, Rationale: ar.Rationale, Time: time.Now().UTC()})
			ar.DenialID = den.ID
			if g.Sealer != nil {
				ar.MAC = ledger.DenialMAC(g.Sealer, runID, den)
			}
		}
		// The reviewer's own tool calls are part of its review, recorded
		// before it as events of their own: never decisions on the call,
		// never denials (SPEC G4, G13).
		for _, tc := range ar.Tools {
			tc.CallID = areq.Call.ID
			req.Events.Emit(tc)
		}
		ar.Tools = nil
		req.Events.Emit(ar)
		if trip, why := g.Breaker.record(ar.Status == action.StatusDenied); trip {
			msg := "circuit breaker: " + why + "; the turn is interrupted instead of letting the agent keep asking"
			req.Events.Emit(event.Warning{Message: msg})
			out.Interrupt = &agent.Interrupt{By: "the circuit breaker", Message: msg}
		}
	}
	return out, nil
}

// StartTurn implements agent.TurnHook: the breaker's state clears (SPEC
// G11), the person's request that starts the turn is authenticated as
// theirs (G15), and the notes of the overrides granted since the last turn
// are put before that request (G12). Next, when it is a TurnHook too, is
// told after.
func (g *Gate) StartTurn(ts *event.TurnStart, input []chat.Message) []chat.Message {
	if g == nil {
		return input
	}
	g.Breaker.reset()
	if ts != nil && g.Sealer != nil {
		ts.MAC = ledger.TurnMAC(g.Sealer, g.runID(), ts.Input)
	}
	input = g.withNotes(input)
	if h, ok := g.Next.(agent.TurnHook); ok {
		input = h.StartTurn(ts, input)
	}
	return input
}

// StartRun authenticates the run's start record with the Sealer (SPEC
// G15), so that the run is resumed only as warden prepared it.
func (g *Gate) StartRun(rs *event.RunStart) {
	if g == nil || g.Sealer == nil || rs == nil {
		return
	}
	rs.MAC = ""
	rs.MAC = ledger.RunStartMAC(g.Sealer, g.runID(), *rs)
}

// runID returns the run's id: RunID, or the recorder's.
func (g *Gate) runID() string {
	if g.RunID != "" {
		return g.RunID
	}
	if id := g.Events.RunID(); id != "" {
		return id
	}
	return "run"
}
