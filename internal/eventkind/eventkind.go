// Package eventkind names the kinds of event a run's transcript holds: the
// "event" field of each line (SPEC L7), a contract. Package event decodes
// each kind into its own data type, which is how a Go program tells events
// apart (a type switch on Event.Data); warden's own code that filters,
// counts or searches events by kind names the kinds here, and the fixed
// words it writes in their fields (why a result was withheld, where a
// policy in force comes from), which package event's field docs list.
package eventkind

// The kinds of event.
const (
	RunStart = "run_start"
	Model    = "model"
	Approval = "approval"
	Tool     = "tool"
	Review   = "review"
	Info     = "info"
	Limit    = "limit"
	Error    = "error"
	RunEnd   = "run_end"
	// AutoReview is a decision of the reviewer agent or its first pass on
	// a boundary request (SPEC G13).
	AutoReview = "auto_review"
	// Warning is a warning, such as the circuit breaker tripping.
	Warning = "warning"
	// TurnStart opens a turn with the person's input.
	TurnStart = "turn_start"
	// Override records a person's approval of one retry of a denied
	// action (SPEC G12).
	Override = "override"
	// Withheld records that a call's result did not reach the model: the
	// run stopped at the call before its result was reviewed to continue
	// (SPEC R2, R9, L2).
	Withheld = "withheld"
	// Handoff opens a sub-agent's part of a run with the policies in force
	// for it (SPEC P4, P5).
	Handoff = "handoff"
	// OverrideUsed records that the one retry an override allows was
	// taken (SPEC G12).
	OverrideUsed = "override_used"
	// AutoReviewTool records one tool call the reviewer agent made inside
	// a review (SPEC G4, G13): part of the review, never a decision on the
	// agent's call.
	AutoReviewTool = "auto_review_tool"
)

// The levels a policy in force comes from, in event.AgentPolicies and
// event.Handoff.
const (
	// FromRun is the run's policy: the operator's, else the task's.
	FromRun = "run"
	// FromCall is a policy given to one ExecuteTools call.
	FromCall = "call"
	// FromAgentPrefix starts "agent:NAME", the agent NAME's own policy.
	FromAgentPrefix = "agent:"
)

// The reasons of a withheld event (event.Withheld).
const (
	// WithheldTerminated: a reviewer terminated the run at the call.
	WithheldTerminated = "review_terminated"
	// WithheldReviewCancelled: the call's review was cancelled before it
	// decided (SPEC R9).
	WithheldReviewCancelled = "review_cancelled"
	// WithheldReviewFailed: the call's reviewer failed (SPEC R7).
	WithheldReviewFailed = "review_failed"
	// WithheldNotReviewed: the run stopped at another call before this
	// call's result was reviewed.
	WithheldNotReviewed = "not_reviewed"
	// WithheldBoundary: a boundary request of the call terminated the run,
	// tripped the circuit breaker or failed (SPEC G2, G11).
	WithheldBoundary = "boundary"
	// WithheldStopped: the call itself stopped the run (a sub-agent's
	// limit or error, a tool panic).
	WithheldStopped = "stopped"
)
