// Package queue puts the questions of warden's "human" approvers and
// reviewers on a queue a person answers on another surface — the web
// panel and the API of warden serve, or another process sharing the
// store — and waits for the answer (SPEC H1–H4). It sits above both the
// console (package human, which links no database) and the store: the
// "human" entries of policies ask here when the context carries a queue
// (WithQueue), and at the console too when a person is at its terminal.
package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/human"
	"github.com/wardenhq/warden/internal/calltext"
	"github.com/wardenhq/warden/internal/request"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// A Queue keeps requests for a person to decide on another surface — the
// web panel, the API, another process sharing the store — and reports when
// each is decided (SPEC H1, H4). *store.Store and *serveclient.Client are
// queues.
type Queue interface {
	// Submit stores r as pending, setting its ID.
	Submit(ctx context.Context, r *request.Request) error
	// Wait returns the request once it is no longer pending.
	Wait(ctx context.Context, id string) (request.Request, error)
	// Withdraw takes back a request nobody needs decided any more.
	Withdraw(ctx context.Context, id string) error
}

type queued struct {
	q     Queue
	runID string
}

// WithQueue returns a context under which the "human" approvers and
// reviewers of policies put their requests on q, as requests of run runID,
// instead of asking at the console alone. Many requests wait on a queue at
// once: one never blocks another (SPEC H4).
func WithQueue(ctx context.Context, q Queue, runID string) context.Context {
	if q == nil {
		return ctx
	}
	return human.WithSurface(ctx, queued{q: q, runID: runID})
}

// Approve puts req on the queue (human.Surface).
func (q queued) Approve(ctx context.Context, req *approval.Request, choices []approval.Decision, timeout time.Duration, here human.Here) (approval.Approval, error) {
	a := newApprover(q, choices, timeout)
	a.here = here
	return a.Approve(ctx, req)
}

// Review puts req on the queue (human.Surface).
func (q queued) Review(ctx context.Context, req *review.Request, choices []review.Decision, timeout time.Duration, here human.Here) (review.Review, error) {
	r := newReviewer(q, choices, timeout)
	r.here = here
	return r.Review(ctx, req)
}

// Approver returns an approver that puts each request on q for a person
// to decide, offering choices (by default approve, modify, reject and
// terminate). A request closed without a choice — it expired at its
// deadline, timeout after it was made, or was withdrawn — is rejected; so
// is one whose ctx ends, which is withdrawn (SPEC H3). A decision is
// checked against what was offered before it is used.
func Approver(q Queue, runID string, choices []approval.Decision, timeout time.Duration) approval.Approver {
	return newApprover(queued{q: q, runID: runID}, choices, timeout)
}

func newApprover(q queued, choices []approval.Decision, timeout time.Duration) *queueApprover {
	if len(choices) == 0 {
		choices = []approval.Decision{approval.Approve, approval.Modify, approval.Reject, approval.Terminate}
	}
	return &queueApprover{asker[approval.Decision]{q: q, choices: choices, timeout: timeout}}
}

// Reviewer returns a reviewer that puts each request on q for a person
// to decide, offering choices (by default continue and terminate). A
// request closed without a choice terminates the run (SPEC H3).
func Reviewer(q Queue, runID string, choices []review.Decision, timeout time.Duration) review.Reviewer {
	return newReviewer(queued{q: q, runID: runID}, choices, timeout)
}

func newReviewer(q queued, choices []review.Decision, timeout time.Duration) *queueReviewer {
	if len(choices) == 0 {
		choices = []review.Decision{review.Continue, review.Terminate}
	}
	return &queueReviewer{asker[review.Decision]{q: q, choices: choices, timeout: timeout}}
}

// asker is what a queue approver and a queue reviewer hold: the run's
// queue, the choices they offer, how long a request may wait, and the
// console asking too.
type asker[D ~string] struct {
	q       queued
	choices []D
	timeout time.Duration
	here    human.Here // nil: the queue alone
}

type queueApprover struct{ asker[approval.Decision] }

// Approve puts the request on the queue and returns the person's decision.
func (a *queueApprover) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	r := a.q.request(request.KindApproval, req.Agent, req.Call, req.Order, req.View, req.Message, req.History)
	if b := req.Boundary; b != nil {
		r.Kind = request.KindBoundary
		r.Message = strings.TrimSpace(b.String() + "\n\n" + req.Message)
		r.Context.Reason = string(b.Permission) + " request: " + b.Reason
		r.Context.Sandbox, r.Context.Justification = b.Sandbox, b.Justification
		if b.Effects != nil && b.Effects.Report != nil {
			r.Context.Effects = b.Effects.Summary
		}
	}
	for _, c := range a.choices {
		if c == approval.Modify && req.Boundary != nil {
			continue // a crossing is approved or not; it has no arguments to edit
		}
		r.Choices = append(r.Choices, string(c))
	}
	d, expl, md, got, err := a.answer(ctx, r, "approver", approval.Reject, "the call is rejected")
	if err != nil {
		return approval.Approval{}, err
	}
	out := approval.Approval{Decision: d, Explanation: expl, Metadata: md}
	if d == approval.Modify {
		call := req.Call
		call.Arguments, call.ArgumentsRaw, call.ParseError = got.Modified, "", ""
		out.Modified = &call
	}
	return out, nil
}

type queueReviewer struct{ asker[review.Decision] }

// Review puts the request on the queue and returns the person's decision.
func (rv *queueReviewer) Review(ctx context.Context, req *review.Request) (review.Review, error) {
	r := rv.q.request(request.KindReview, req.Agent, req.Call, req.Order, req.View, req.Message, req.History)
	r.Result = resultText(req.Result)
	// The result was cut before the person sees it: it says so.
	r.Truncated = req.Result.Truncated
	for _, c := range rv.choices {
		r.Choices = append(r.Choices, string(c))
	}
	d, expl, md, _, err := rv.answer(ctx, r, "reviewer", review.Terminate, "the run is terminated")
	if err != nil {
		return review.Review{}, err
	}
	return review.Review{Decision: d, Explanation: expl, Metadata: md}, nil
}

// answer puts r on the queue, waits for it and returns the person's
// decision with its explanation and metadata, and the request as it
// closed. A request that closed without a person's decision is fail, its
// explanation saying so and what that means (failMeans); an error names
// role, the approver or the reviewer.
func (a asker[D]) answer(ctx context.Context, r *request.Request, role string, fail D, failMeans string) (D, string, map[string]any, request.Request, error) {
	got, err := ask(ctx, a.q, r, string(fail), a.timeout, a.here)
	if err != nil {
		return fail, "", nil, got, fmt.Errorf("human %s (queue): %w", role, err)
	}
	md, decided := metadata(got)
	if !decided {
		return fail, closedWithout(got, failMeans), md, got, nil
	}
	return D(got.Decision), explain(got), md, got, nil
}

// request is the request of kind for run q's call c, in the order o: what
// the person reads of it (v), the agent's message and the conversation
// before it.
func (q queued) request(kind, agent string, c tool.Call, o tool.Order, v tool.View, message string, history []chat.Message) *request.Request {
	return &request.Request{
		Kind:    kind,
		RunID:   q.runID,
		Agent:   agent,
		Call:    storeCall(c, o),
		View:    viewText(c, o, v),
		Message: message,
		Context: requestContext(history, message),
	}
}

// metadata is what an approval or review records of the queue's request
// got; decided is false when it closed without a person's decision.
func metadata(got request.Request) (md map[string]any, decided bool) {
	md = map[string]any{"surface": "queue", "request": got.ID}
	if got.Status != request.StatusDecided {
		md[got.Status] = true
		return md, false
	}
	md["decided_by"] = got.DecidedBy
	return md, true
}

// ask submits r with its fail-safe outcome and deadline, waits for it to
// be closed and checks the answer against what was offered. When ctx ends
// first, the request is withdrawn so that no surface shows it any more.
func ask(ctx context.Context, q queued, r *request.Request, failsafe string, timeout time.Duration, here human.Here) (request.Request, error) {
	r.Failsafe = failsafe
	if timeout > 0 {
		d := time.Now().Add(timeout).UTC()
		r.Deadline = &d
	}
	if err := q.q.Submit(ctx, r); err != nil {
		return request.Request{}, fmt.Errorf("submitting the request: %w", err)
	}
	if here != nil {
		if d, ok := q.q.(decider); ok {
			// The console asks too; whichever surface decides first
			// decides, once, through the queue.
			lctx, stop := context.WithCancelCause(ctx)
			defer stop(nil)
			go func() {
				if dec, ok := here(lctx); ok {
					dec := request.Answer{Decision: dec, DecidedBy: "console"}
					// A decision another surface made first stands; the
					// wait below returns it.
					_, _ = d.Decide(context.WithoutCancel(lctx), r.ID, dec)
				}
			}()
			got, err := q.q.Wait(ctx, r.ID)
			if err == nil {
				stop(decidedElsewhere(got))
			}
			return settle(ctx, q, r, got, err)
		}
	}
	got, err := q.q.Wait(ctx, r.ID)
	return settle(ctx, q, r, got, err)
}

// decider is a queue a surface can record a decision through.
type decider interface {
	Decide(ctx context.Context, id string, d request.Answer) (request.Request, error)
}

// decidedElsewhere is why the console stops asking: the request was
// closed on another surface.
func decidedElsewhere(r request.Request) error {
	if r.Status != request.StatusDecided {
		return &human.DecidedElsewhere{Outcome: "request " + r.Status + " on the queue"}
	}
	by := r.DecidedBy
	if by == "" {
		by = "another surface"
	}
	return &human.DecidedElsewhere{Outcome: "decided by " + by + ": " + r.Decision}
}

// settle checks what the wait for r returned: a closed request whose
// decision was offered, or an error; when ctx ended, r is withdrawn.
func settle(ctx context.Context, q queued, r *request.Request, got request.Request, err error) (request.Request, error) {
	if err != nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if werr := q.q.Withdraw(wctx, r.ID); werr != nil && ctx.Err() == nil {
			err = errors.Join(err, fmt.Errorf("withdrawing request %s: %w", r.ID, werr))
		}
		if ctx.Err() != nil {
			return request.Request{}, ctx.Err()
		}
		return request.Request{}, fmt.Errorf("waiting for request %s: %w", r.ID, err)
	}
	switch got.Status {
	case request.StatusExpired, request.StatusWithdrawn:
		return got, nil
	case request.StatusDecided:
	default:
		return request.Request{}, fmt.Errorf("request %s came back %q, not closed", r.ID, got.Status)
	}
	offered := false
	for _, c := range r.Choices {
		offered = offered || c == got.Decision
	}
	if !offered { // fail closed: the store should never let this through
		return request.Request{}, fmt.Errorf("request %s was decided %q, which was not offered (%s)", r.ID, got.Decision, strings.Join(r.Choices, ", "))
	}
	if got.Decision == string(approval.Modify) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(got.Modified, &obj); err != nil || obj == nil {
			return request.Request{}, fmt.Errorf("request %s was modified to arguments that are not a JSON object", r.ID)
		}
	}
	return got, nil
}

// closedWithout explains a request closed without a person's choice.
func closedWithout(r request.Request, outcome string) string {
	switch r.Status {
	case request.StatusExpired:
		return "the request timed out: no person decided it by its deadline, so " + outcome
	case request.StatusWithdrawn:
		return "the request was withdrawn before a person decided it, so " + outcome
	}
	return "the request was closed without a decision, so " + outcome
}

// explain says who decided r and how, with their explanation.
func explain(r request.Request) string {
	by := r.DecidedBy
	if by == "" {
		by = "a person"
	}
	verb := r.Decision
	switch verb {
	case string(approval.Approve), string(review.Continue):
		verb = "approved"
	case string(approval.Reject):
		verb = "rejected"
	case string(approval.Terminate):
		verb = "terminated"
	case string(approval.Escalate):
		verb = "escalated"
	case string(approval.Modify):
		verb = "modified"
	}
	s := verb + " by " + by + " through the queue"
	if r.Explanation != "" {
		s += ": " + r.Explanation
	}
	return s
}

// Limits of the conversation a request carries for the person.
const (
	contextTurns     = 4
	contextTurnBytes = 600
)

// requestContext is what the person sees beside a request, apart from
// warden's own words: the host asking, the model's message, and the last
// turns of the conversation (each cut), oldest first.
func requestContext(history []chat.Message, message string) *request.RequestContext {
	c := &request.RequestContext{Message: message}
	c.Host, _ = os.Hostname()
	for i := len(history) - 1; i >= 0 && len(c.Turns) < contextTurns; i-- {
		m := history[i]
		text := strings.TrimSpace(m.Content)
		if text == "" && len(m.ToolCalls) > 0 {
			names := make([]string, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				names[j] = tc.Function
			}
			text = "(calls " + strings.Join(names, ", ") + ")"
		}
		if text == "" {
			continue
		}
		c.Turns = append(c.Turns, request.Turn{Role: string(m.Role), Text: cutTurn(text)})
	}
	slices.Reverse(c.Turns)
	return c
}

// storeCall is the call as the queue stores it: its arguments in the order
// o renders them in (the same JSON value), so that a surface reading the
// stored arguments in their own order — the web panel — shows the call as
// policy patterns see it (SPEC P2).
func storeCall(c tool.Call, o tool.Order) request.Call {
	args := calltext.ArgumentsIn(c.Arguments, c.ParseError, o)
	if args == nil && c.ArgumentsRaw != "" {
		args, _ = json.Marshal(c.ArgumentsRaw) // shown as the text the model sent
	}
	return request.Call{ID: c.ID, Function: c.Function, Arguments: args}
}

// viewText is what the person reads of the call besides its arguments: the
// tool's view when it says more than the call's text, else that text in
// the tool's order (SPEC P2).
func viewText(c tool.Call, o tool.Order, v tool.View) string {
	text := c.TextIn(o)
	if v.Content == "" || strings.Contains(text, v.Content) {
		return text
	}
	return v.Content
}

// resultText is what a reviewer reads of a result: its content, or its
// error.
func resultText(r tool.Result) string {
	if r.Error != nil {
		if r.Content == "" {
			return "error: " + r.Error.Error()
		}
		return r.Content + "\n\nerror: " + r.Error.Error()
	}
	return r.Content
}

// cutTurn cuts a turn's text to contextTurnBytes, its middle out.
func cutTurn(s string) string {
	s, _ = textcut.Middle(s, contextTurnBytes)
	return s
}
