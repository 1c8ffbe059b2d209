// Package agent runs tools and agents under approval and review: the tool
// loop (ExecuteTools), a small ReAct agent (React), hand-offs to sub-agents,
// and the token and turn limits of a run (SPEC §5).
package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/review"
)

// DefaultMaxOutput is the max_output used when Run.MaxOutput is zero
// (SPEC L3).
const DefaultMaxOutput = 16 * 1024

// NoTruncation, as Run.MaxOutput, disables truncation of tool results.
const NoTruncation = -1

// DefaultMaxConcurrentCalls is the MaxConcurrentCalls used when
// Run.MaxConcurrentCalls is zero.
const DefaultMaxConcurrentCalls = 8

// DefaultMaxCallsPerMessage is the MaxCallsPerMessage used when
// Run.MaxCallsPerMessage is zero.
const DefaultMaxCallsPerMessage = 64

// Run is what the agents of one run share: the model, the transcript, the
// limits and the run-level policies. Set its fields before the first call
// and do not change them afterwards; a Run is used by one run at a time.
type Run struct {
	// ID identifies the run in events. Empty means the recorder's id.
	ID string
	// Task and ModelName are recorded in the run_start event.
	Task      string
	ModelName string
	// Model is the model agents use unless they name their own.
	Model model.Model
	// Events records the transcript. Nil discards events.
	Events *event.Recorder
	// Limits bound the run. Zero values mean no limit.
	Limits Limits
	// MaxOutput truncates tool results for the model: 0 means
	// DefaultMaxOutput, NoTruncation disables it.
	MaxOutput int
	// Approval and Review are the policies of the run (the task's, or the
	// run's that replace them wholesale, SPEC P4). An agent's own policy
	// replaces them for its duration. Nil means no policy.
	Approval *approval.Policy
	Review   *review.Policy
	// PinPolicy makes Approval and Review, where set, apply to every
	// agent of the run: agents' own policies and the policies given to
	// ExecuteTools no longer replace them. A kind the run does not set
	// (nil) stays the agents' own.
	PinPolicy bool
	// MaxConcurrentCalls caps how many calls of one assistant message run
	// at once (SPEC L1); 0 means DefaultMaxConcurrentCalls.
	MaxConcurrentCalls int
	// MaxCallsPerMessage caps how many calls of one assistant message are
	// executed; each call beyond it gets a parsing error and never runs.
	// 0 means DefaultMaxCallsPerMessage.
	MaxCallsPerMessage int
	// Boundary decides the requests tools make to cross the sandbox
	// boundary (SPEC G2, G3): each is put to it as an approval request for
	// the call that made it. Nil denies them all. When it is a TurnHook it
	// is told when each turn starts; when it has a method
	// StartRun(*event.RunStart) (a gate.Gate does), it may complete the
	// run_start event before it is recorded.
	Boundary BoundaryApprover
	// TaskFile is recorded in run_start so the run can be resumed.
	TaskFile string
	// Workdir and Settings are recorded in run_start so the run can be
	// resumed as it was prepared; Workdir also in each resumed turn_start.
	Workdir  string
	Settings *event.RunSettings
	// Resumed marks a run continued from its transcript: Execute records a
	// new turn, not a new run_start.
	Resumed bool

	turns  atomic.Int64
	tokens atomic.Int64

	// idMu guards turnNo, callIDs (the call ids of earlier turns in the
	// run's transcript), turnIDs (this turn's) and renamed (this turn's
	// renamings), for uniqueCallIDs.
	idMu    sync.Mutex
	turnNo  int
	callIDs map[string]bool
	turnIDs map[string]bool
	renamed map[string]string
}

// Limits bound a run (SPEC L5). Turns counts model generations by the run's
// agents, sub-agents included; Tokens counts their input and output tokens.
// Model calls made by approvers and reviewers are not counted (SPEC R8).
type Limits struct {
	Turns  int `json:"turns,omitempty"`
	Tokens int `json:"tokens,omitempty"`
}

// Usage returns the turns and tokens the run's agents have used.
func (r *Run) Usage() (turns, tokens int) {
	return int(r.turns.Load()), int(r.tokens.Load())
}

func (r *Run) maxConcurrent() int {
	if r.MaxConcurrentCalls <= 0 {
		return DefaultMaxConcurrentCalls
	}
	return r.MaxConcurrentCalls
}

func (r *Run) maxCalls() int {
	if r.MaxCallsPerMessage <= 0 {
		return DefaultMaxCallsPerMessage
	}
	return r.MaxCallsPerMessage
}

func (r *Run) maxOutput() int {
	switch {
	case r.MaxOutput == 0:
		return DefaultMaxOutput
	case r.MaxOutput < 0:
		return 0
	}
	return r.MaxOutput
}

// LimitError ends a run with a limit rather than an error: an operator
// limit when an approver, reviewer or person terminates the run, or a token
// or turn limit.
type LimitError struct {
	// Type is event.LimitOperator, LimitToken or LimitTurn.
	Type    string
	Message string
}

func (e *LimitError) Error() string { return fmt.Sprintf("%s limit: %s", e.Type, e.Message) }

// Result is how a run ended.
type Result struct {
	// Status is event.StatusCompleted, StatusLimited or StatusError.
	Status string
	// Limit is the limit that ended a limited run.
	Limit *LimitError
	// Err is the error that ended an errored run.
	Err error
	// Messages is the main agent's conversation.
	Messages []chat.Message
}

// Execute runs agent a on input as one whole run: it records run_start,
// runs the agent, and records the limit or error that ended it and
// run_end. A cancelled ctx ends the run with an operator limit.
func (r *Run) Execute(ctx context.Context, a *Agent, input []chat.Message) *Result {
	if !r.Resumed {
		rs := event.RunStart{
			Task:      r.Task,
			Model:     r.ModelName,
			Approval:  r.Approval.Entries(),
			Review:    r.Review.Entries(),
			TaskFile:  r.TaskFile,
			Agents:    r.agentPolicies(a),
			PinPolicy: r.PinPolicy,
			Workdir:   r.Workdir,
			Settings:  r.Settings,
		}
		if h, ok := r.Boundary.(runHook); ok {
			h.StartRun(&rs)
		}
		r.Events.Emit(rs)
	}
	var ts *event.TurnStart
	if n := len(input); n > 0 && input[n-1].Role == chat.User {
		ts = &event.TurnStart{Input: input[n-1].Content}
		if r.Resumed {
			// A further turn may run under other policies (a resumed run
			// reads them again): the record says which (SPEC P4, P5).
			ts.Agents, ts.PinPolicy = r.agentPolicies(a), r.PinPolicy
			ts.Workdir = r.Workdir
		}
	}
	if h, ok := r.Boundary.(TurnHook); ok {
		// A turn starts: the boundary approver's per-turn state clears
		// (SPEC G11) and it may tell the agent what it must (G12).
		input = h.StartTurn(ts, input)
	}
	if ts != nil {
		r.startTurn()
		r.Events.Emit(*ts)
	}
	msgs, err := r.React(ctx, a, input)
	res := &Result{Status: event.StatusCompleted, Messages: msgs}
	if err == nil {
		err = r.Events.Err()
	}
	var lim *LimitError
	switch {
	case err == nil:
	case errors.As(err, &lim):
		res.Status, res.Limit = event.StatusLimited, lim
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		lim = &LimitError{Type: event.LimitOperator, Message: "the run was interrupted"}
		res.Status, res.Limit = event.StatusLimited, lim
	default:
		res.Status, res.Err = event.StatusError, err
	}
	end := event.RunEnd{Status: res.Status}
	if lim != nil {
		r.Events.Emit(event.Limit{Type: lim.Type, Message: lim.Message})
		end.Limit = &lim.Type
	}
	if res.Err != nil {
		r.Events.Emit(event.Error{Message: res.Err.Error()})
	}
	r.Events.Emit(end)
	if res.Err == nil {
		if err := r.Events.Err(); err != nil {
			res.Status, res.Err, res.Limit = event.StatusError, err, nil
		}
	}
	return res
}

// agentPolicies returns the policies in force for agent a run as the main
// agent and for every sub-agent it can hand off to, directly or not, as
// hand-offs will find them (SPEC P4, P5). An agent reachable from several
// agents is listed under each.
func (r *Run) agentPolicies(a *Agent) []event.AgentPolicies {
	root := scope{approval: r.Approval, review: r.Review, approvalFrom: eventkind.FromRun, reviewFrom: eventkind.FromRun}
	var out []event.AgentPolicies
	onPath := map[*Agent]bool{}
	var walk func(a *Agent, outer scope, parent string)
	walk = func(a *Agent, outer scope, parent string) {
		if onPath[a] {
			return // a cycle of hand-offs: listed already on this path
		}
		onPath[a] = true
		defer delete(onPath, a)
		sc := r.with(outer, Policies{Approval: a.Approval, Review: a.Review}, eventkind.FromAgentPrefix+a.name())
		out = append(out, sc.policies(a.name(), parent))
		for _, h := range a.Handoffs {
			walk(h, sc, a.name())
		}
	}
	walk(a, root, "")
	return out
}
