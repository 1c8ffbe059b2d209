// Package event defines the events of a run and the JSON Lines transcript
// they are written to (SPEC L7).
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Data is the kind-specific part of an event: one of the data types of
// this package (RunStart, Model, Approval, …, or Unknown for a kind this
// version does not know). The set is closed, as the transcript's kinds are
// a contract; Event.Kind says which kind an event's data is.
type Data interface{ kind() string }

// Event is one transcript line: common fields and its data.
type Event struct {
	ID    string    `json:"id"`
	Time  time.Time `json:"time"`
	RunID string    `json:"run_id"`
	// Agent names the agent that emitted the event; "main" for the root.
	Agent string `json:"agent"`
	// Span is the id of the hand-off call the event happened under, if any.
	Span string `json:"span,omitempty"`
	Data Data   `json:"-"`
	// sealed holds the event's sealed transcript line (SPEC L8), when a
	// sealed transcript wrote it (Tee) or it was read from one: it marshals to
	// exactly that line, so the store and the server keep the same bytes
	// and the same chain as the file.
	sealed *sealedLine
}

// sealedLine is an event's sealed line, shared by the copies of the event
// a Recorder hands to its sinks: the sealed transcript among them fills it, and
// the sinks after it marshal the event to the same bytes. id is the id the
// transcript gave the event in that line (it numbers an event after the
// lines other processes appended): the sinks after it, and the Recorder,
// take it too.
type sealedLine struct {
	b  []byte
	id string
}

// Kind returns the kind of the event's data: the "event" field of its
// transcript line, such as "tool" or "run_end".
func (e Event) Kind() string {
	if e.Data == nil {
		return ""
	}
	return e.Data.kind()
}

// MarshalJSON writes the event as one flat object: "event" first, then the
// common fields, then the data's fields. An event sealed by a transcript,
// or read from a sealed line, is written as that exact line, "line_mac"
// last (SPEC L8).
func (e Event) MarshalJSON() ([]byte, error) {
	if e.sealed != nil && len(e.sealed.b) > 0 {
		b := e.sealed.b
		return b[:len(b):len(b)], nil
	}
	return e.marshalObject()
}

// marshalObject writes the event as one flat object, without a MAC.
func (e Event) marshalObject() ([]byte, error) {
	type header struct {
		Event string    `json:"event"`
		ID    string    `json:"id"`
		Time  time.Time `json:"time"`
		RunID string    `json:"run_id"`
		Agent string    `json:"agent"`
		Span  string    `json:"span,omitempty"`
	}
	h, err := json.Marshal(header{e.Kind(), e.ID, e.Time.UTC(), e.RunID, e.Agent, e.Span})
	if err != nil {
		return nil, err
	}
	d, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.Kind(), err)
	}
	if len(d) <= 2 || d[0] != '{' {
		return h, nil
	}
	var b bytes.Buffer
	b.Grow(len(h) + len(d))
	b.Write(h[:len(h)-1])
	b.WriteByte(',')
	b.Write(d[1:])
	return b.Bytes(), nil
}

// UnmarshalJSON reads a transcript line, decoding the data by its kind.
// Lines of unknown kinds keep their fields in an Unknown.
func (e *Event) UnmarshalJSON(data []byte) error {
	var h struct {
		Event string    `json:"event"`
		ID    string    `json:"id"`
		Time  time.Time `json:"time"`
		RunID string    `json:"run_id"`
		Agent string    `json:"agent"`
		Span  string    `json:"span"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return plainJSONError(err)
	}
	e.ID, e.Time, e.RunID, e.Agent, e.Span = h.ID, h.Time, h.RunID, h.Agent, h.Span
	e.sealed = nil
	if _, _, ok := seal.SplitLine(data); ok {
		e.sealed = &sealedLine{b: bytes.Clone(data)}
	}
	dec := decoder(h.Event)
	if dec == nil {
		u := Unknown{Type: h.Event}
		if err := json.Unmarshal(data, &u.Fields); err != nil {
			return plainJSONError(err)
		}
		for _, k := range []string{"event", "id", "time", "run_id", "agent", "span", "line_mac"} {
			delete(u.Fields, k)
		}
		e.Data = u
		return nil
	}
	d, err := dec(data)
	if err != nil {
		return fmt.Errorf("%s event: %w", h.Event, plainJSONError(err))
	}
	e.Data = d
	return nil
}

// decoder returns the function that decodes the data of an event of kind,
// or nil for a kind this version does not know.
func decoder(kind string) func(data []byte) (Data, error) {
	switch kind {
	case eventkind.RunStart:
		return decode[RunStart]
	case eventkind.Model:
		return decode[Model]
	case eventkind.Approval:
		return decode[Approval]
	case eventkind.Tool:
		return decode[Tool]
	case eventkind.Review:
		return decode[Review]
	case eventkind.Info:
		return decode[Info]
	case eventkind.Limit:
		return decode[Limit]
	case eventkind.Error:
		return decode[Error]
	case eventkind.RunEnd:
		return decode[RunEnd]
	case eventkind.AutoReview:
		return decode[AutoReview]
	case eventkind.Warning:
		return decode[Warning]
	case eventkind.TurnStart:
		return decode[TurnStart]
	case eventkind.Override:
		return decode[Override]
	case eventkind.Withheld:
		return decode[Withheld]
	case eventkind.Handoff:
		return decode[Handoff]
	case eventkind.OverrideUsed:
		return decode[OverrideUsed]
	case eventkind.AutoReviewTool:
		return decode[AutoReviewTool]
	}
	return nil
}

// decode decodes an event's JSON object as the data of type T.
func decode[T Data](data []byte) (Data, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

// RunStart opens a run: the task, the model and the policies in force.
type RunStart struct {
	Task  string `json:"task"`
	Model string `json:"model"`
	// Approval and Review are the policies in force, as entries; null when
	// no policy is set.
	Approval []policy.Entry `json:"approval"`
	Review   []policy.Entry `json:"review"`
	// TaskFile is the task file's absolute path, for resuming the run.
	TaskFile string `json:"task_file,omitempty"`
	// Agents are the effective policies of every agent the run can reach:
	// the main agent, then each sub-agent under the agent that hands off
	// to it (SPEC P4, P5).
	Agents []AgentPolicies `json:"agents,omitempty"`
	// PinPolicy reports that the run's policies apply to every agent,
	// replacing the agents' own.
	PinPolicy bool `json:"pin_policy,omitempty"`
	// Workdir is the run's working directory, absolute: `warden run
	// --resume` runs the next turn there (issue 10).
	Workdir string `json:"workdir,omitempty"`
	// Settings are everything else the run was prepared with, as
	// resolved, so that a resumed run is prepared exactly so; nil in
	// transcripts written before they were recorded.
	Settings *RunSettings `json:"settings,omitempty"`
	// MAC authenticates the whole record as warden's own (SPEC G15): a
	// run is resumed only from a run_start that verifies, so a line the
	// agent wrote cannot choose the task file, working directory, policies
	// or sandbox of the next turn.
	MAC string `json:"mac,omitempty"`
}

// RunSettings are what a run was prepared with besides its model, policies
// and working directory (which RunStart records itself), as resolved from
// the task file and the operator's flags.
type RunSettings struct {
	// Sandbox is the sandbox of the run's commands; nil when none.
	Sandbox *SandboxSettings `json:"sandbox,omitempty"`
	// Rules are the exec rules files, absolute: the task's, then the
	// operator's.
	Rules []string `json:"rules,omitempty"`
	// ApprovalsReviewer is who decides requests to cross the sandbox
	// boundary; empty means ["user"].
	ApprovalsReviewer []string `json:"approvals_reviewer,omitempty"`
	// AutoReviewModel is the reviewer agent's model; empty means the run's.
	AutoReviewModel string `json:"auto_review_model,omitempty"`
	// MaxOutput is the max_output given (0 disables truncation); nil when
	// the default applies.
	MaxOutput *int `json:"max_output,omitempty"`
	// MaxConcurrentCalls and MaxCallsPerMessage are the caps given; 0 when
	// the defaults apply.
	MaxConcurrentCalls int `json:"max_concurrent_calls,omitempty"`
	MaxCallsPerMessage int `json:"max_calls_per_message,omitempty"`
}

// SandboxSettings are a run's sandbox settings as resolved.
type SandboxSettings struct {
	Mode string `json:"mode"`
	// WritableRoots are the extra writable roots, absolute.
	WritableRoots []string `json:"writable_roots,omitempty"`
	NetworkAccess bool     `json:"network_access,omitempty"`
	// Unenforced reports that commands may run without kernel enforcement.
	Unenforced bool `json:"unenforced,omitempty"`
}

// AgentPolicies are the approval and review policies in force for one
// agent, and where each comes from.
type AgentPolicies struct {
	// Agent names the agent; Parent the agent that hands off to it (empty
	// for the main agent).
	Agent  string `json:"agent"`
	Parent string `json:"parent,omitempty"`
	// Approval and Review are the policies in force, as entries; null when
	// no policy is set (calls run, results continue), [] when explicitly
	// empty.
	Approval []policy.Entry `json:"approval"`
	Review   []policy.Entry `json:"review"`
	// ApprovalFrom and ReviewFrom say where each comes from: "run" (the
	// run's policy: the operator's, else the task's), "call" (a policy
	// given to one ExecuteTools call), or "agent:NAME" (the agent NAME's
	// own policy).
	ApprovalFrom string `json:"approval_from"`
	ReviewFrom   string `json:"review_from"`
}

// Model records one generation by the agent's model.
type Model struct {
	InputTokens  int          `json:"input_tokens"`
	OutputTokens int          `json:"output_tokens"`
	Output       chat.Message `json:"output"`
}

// Approval records one approver's decision on a call (SPEC A3).
type Approval struct {
	CallID      string     `json:"call_id"`
	Call        tool.Call  `json:"call"`
	Approver    string     `json:"approver"`
	Decision    string     `json:"decision"`
	Modified    *tool.Call `json:"modified"`
	Explanation string     `json:"explanation"`
	Chain       string     `json:"chain,omitempty"`
	// DecidedBy names who decided, when a person did through the server:
	// the operator's name, else the surface (SPEC S4).
	DecidedBy string `json:"decided_by,omitempty"`
	// Boundary is set when the approval decided a request to cross the
	// sandbox boundary made while the call ran (SPEC G2).
	Boundary *boundary.Request `json:"boundary,omitempty"`
}

// Tool records the execution stage of a call (SPEC L2, L3, A5).
type Tool struct {
	CallID   string `json:"call_id"`
	Function string `json:"function"`
	// Arguments are the arguments as the model proposed them.
	Arguments json.RawMessage `json:"arguments"`
	// Executed is the call as executed when an approver modified it.
	Executed *tool.Call `json:"executed"`
	// Result is what the model receives, unless a Withheld event for the
	// call follows: the model then received that event's Result instead.
	Result string `json:"result"`
	// Truncated is [original bytes, limit] when the result was truncated.
	Truncated *[2]int     `json:"truncated"`
	Error     *tool.Error `json:"error"`
	Failed    bool        `json:"failed"`
}

// Review records one reviewer's decision on a result (SPEC R3).
type Review struct {
	CallID      string `json:"call_id"`
	Function    string `json:"function"`
	Reviewer    string `json:"reviewer"`
	Decision    string `json:"decision"`
	Explanation string `json:"explanation"`
	Chain       string `json:"chain,omitempty"`
	// DecidedBy names who decided, when a person did through the server:
	// the operator's name, else the surface (SPEC S4).
	DecidedBy string `json:"decided_by,omitempty"`
}

// Info is a note in the transcript.
type Info struct {
	Message string `json:"message"`
}

// The limit types of a Limit event.
const (
	LimitOperator = "operator"
	LimitToken    = "token"
	LimitTurn     = "turn"
	// LimitInterrupt ends a turn the circuit breaker interrupted (G11).
	LimitInterrupt = "interrupt"
)

// Limit records that a run hit a limit.
type Limit struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Error records an error that ended the run.
type Error struct {
	Message string `json:"message"`
}

// The statuses of a RunEnd event.
const (
	StatusCompleted = "completed"
	StatusLimited   = "limited"
	StatusError     = "error"
)

// RunEnd closes a run.
type RunEnd struct {
	Status string  `json:"status"`
	Limit  *string `json:"limit"`
}

// The sources of an AutoReview decision.
const (
	// SourceFirstPass is the deterministic first pass (SPEC G14). Its
	// value, "rules", is a contract of the transcript format: it names
	// the first pass, not exec rules.
	SourceFirstPass = "rules"
	SourceModel     = "model"
	SourceOverride  = "override"
)

// AutoReview records one decision on a boundary request by the reviewer
// agent or its deterministic first pass (SPEC G13).
type AutoReview struct {
	CallID string `json:"call_id"`
	// Action is the exact action reviewed, as JSON.
	Action json.RawMessage `json:"action"`
	// Status is how the review ended.
	Status action.Status `json:"status"`
	// RiskLevel and UserAuthorization are the ratings of SPEC G6, empty
	// when there are none.
	RiskLevel         action.Risk          `json:"risk_level"`
	UserAuthorization action.Authorization `json:"user_authorization"`
	Rationale         string               `json:"rationale"`
	// UserAuthorizationQuote is the person's words the reviewer quoted
	// for an authorization of medium or more (SPEC G6).
	UserAuthorizationQuote string `json:"user_authorization_quote,omitempty"`
	// StatedUserAuthorization is the authorization the reviewer rated
	// when warden lowered it to unknown, AuthorizationLowered why (the
	// quote is missing or is not the person's words).
	StatedUserAuthorization action.Authorization `json:"stated_user_authorization,omitempty"`
	AuthorizationLowered    string               `json:"authorization_lowered,omitempty"`
	// Source is rules, model or override.
	Source       string `json:"source"`
	Model        string `json:"model"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	LatencyMS    int64  `json:"latency_ms"`
	// DenialID identifies a denial, for a person's override (SPEC G12).
	DenialID string `json:"denial_id,omitempty"`
	// MAC authenticates a denial as warden's own record (SPEC G15).
	MAC string `json:"mac,omitempty"`
	// Conversation is the reviewer's own conversation, saved with the run.
	Conversation []chat.Message `json:"conversation,omitempty"`
	// ReviewID identifies the review of the reviewer agent, unique for
	// the life of the run: its AutoReviewTool events carry it too.
	ReviewID string `json:"review_id,omitempty"`
	// Effects is what a dry run of the action's command observed (SPEC
	// G17), the report of `warden exec --dry-run --json`, when the first
	// pass dry-ran it; EffectsUnavailable says why no dry run ran when one
	// was wanted (turned off, unsupported, failed).
	Effects            json.RawMessage `json:"effects,omitempty"`
	EffectsUnavailable string          `json:"effects_unavailable,omitempty"`
	// Tools are the tool calls the reviewer agent made in the review. They
	// are not part of this record's line: whoever records the review emits
	// each as an AutoReviewTool event of its own, before this one.
	Tools []AutoReviewTool `json:"-"`
}

// AutoReviewTool records one tool call the reviewer agent made inside a
// review (SPEC G4, G13). It belongs to the review named by ReviewID, whose
// auto_review event follows it: it is not a decision on the agent's call,
// never counts as a denial and never has a denial id.
type AutoReviewTool struct {
	// ReviewID is the review_id of the review's auto_review event.
	ReviewID string `json:"review_id"`
	// CallID is the agent's call whose boundary request the review
	// judges.
	CallID string `json:"call_id"`
	// ToolCallID is the reviewer's own call id; Function and Arguments are
	// what it called.
	ToolCallID string          `json:"tool_call_id"`
	Function   string          `json:"function"`
	Arguments  json.RawMessage `json:"arguments"`
	// ResultBytes is the size of what the tool returned, or of its error
	// text, before warden wrapped it for the reviewer.
	ResultBytes int `json:"result_bytes"`
	// Error is the tool's error, if any.
	Error *tool.Error `json:"error"`
	// Refused reports that the call was refused because the reviewer's
	// tools stay inside (a permission error: the sandbox blocked it, or it
	// would have left the workspace or reached warden's state).
	Refused bool `json:"refused,omitempty"`
	// NotRun reports that the call was not run: the review's budget of
	// tool calls was used up.
	NotRun bool `json:"not_run,omitempty"`
}

// TurnStart opens a turn: one request of the person and everything that
// answers it. A resumed run appends a new one.
type TurnStart struct {
	Input string `json:"input"`
	// Agents and PinPolicy are as in RunStart, for a turn of a resumed
	// or continued run, whose policies may differ from the first turn's.
	Agents    []AgentPolicies `json:"agents,omitempty"`
	PinPolicy bool            `json:"pin_policy,omitempty"`
	// Workdir is the working directory of a resumed or continued turn,
	// absolute: the run_start's.
	Workdir string `json:"workdir,omitempty"`
	// MAC authenticates the input as the person's (SPEC G15): a resumed
	// run trusts no request it cannot verify.
	MAC string `json:"mac,omitempty"`
}

// Override records that a person approved one retry of exactly the action
// of a denial (SPEC G12). Only the person's channel writes it: MAC
// authenticates it under a key in warden's protected state, and a record
// that does not verify is refused when read (SPEC G15).
type Override struct {
	DenialID string `json:"denial_id"`
	By       string `json:"by,omitempty"`
	Note     string `json:"note,omitempty"`
	// Action is the exact action approved, as JSON.
	Action json.RawMessage `json:"action,omitempty"`
	// Nonce makes each override distinct, for its use record.
	Nonce string `json:"nonce,omitempty"`
	MAC   string `json:"mac,omitempty"`
}

// OverrideUsed records that the retry an override allowed was taken: the
// override is never granted again, however often the run resumes.
type OverrideUsed struct {
	DenialID string `json:"denial_id"`
	Nonce    string `json:"nonce"`
	MAC      string `json:"mac"`
}

// Withheld records that the result of a call, written in its Tool event,
// did not reach the model: the model received Result (an error saying the
// run was stopped at that call) instead. It follows the call's Tool event
// and any Review or Info events of the call.
type Withheld struct {
	CallID   string `json:"call_id"`
	Function string `json:"function"`
	// Reason says why: "review_terminated" (a reviewer terminated the run
	// at the call), "review_cancelled" (the call's review was cancelled
	// before it decided, SPEC R9), "review_failed" (the call's reviewer
	// failed, SPEC R7), "not_reviewed" (the run stopped at another call
	// before this call's result was reviewed), "boundary" (a boundary
	// request of the call terminated the run, tripped the circuit breaker
	// or failed, SPEC G2, G11) or "stopped" (the call itself stopped the
	// run: a sub-agent's limit or error, a tool panic).
	Reason string `json:"reason"`
	// Result is what the model receives instead of the tool's result.
	Result string      `json:"result"`
	Error  *tool.Error `json:"error"`
}

// Handoff records that an agent handed the conversation to a sub-agent,
// with the policies in force for the sub-agent (SPEC P4, P5). The event's
// agent is the sub-agent and its span the hand-off call.
type Handoff struct {
	// CallID is the hand-off call; From the agent that made it.
	CallID string `json:"call_id"`
	From   string `json:"from"`
	// Approval, Review, ApprovalFrom and ReviewFrom are as in
	// AgentPolicies.
	Approval     []policy.Entry `json:"approval"`
	Review       []policy.Entry `json:"review"`
	ApprovalFrom string         `json:"approval_from"`
	ReviewFrom   string         `json:"review_from"`
	// PinPolicy reports that the run's policies replace the agent's own.
	PinPolicy bool `json:"pin_policy,omitempty"`
}

// Warning is a warning, such as the circuit breaker tripping (SPEC G11).
type Warning struct {
	Message string `json:"message"`
}

// Unknown holds an event of a kind this version does not know.
type Unknown struct {
	Type   string
	Fields map[string]any
}

// The kinds of the data types (Data).
func (RunStart) kind() string       { return eventkind.RunStart }
func (Model) kind() string          { return eventkind.Model }
func (Approval) kind() string       { return eventkind.Approval }
func (Tool) kind() string           { return eventkind.Tool }
func (Review) kind() string         { return eventkind.Review }
func (Info) kind() string           { return eventkind.Info }
func (Limit) kind() string          { return eventkind.Limit }
func (Error) kind() string          { return eventkind.Error }
func (RunEnd) kind() string         { return eventkind.RunEnd }
func (AutoReview) kind() string     { return eventkind.AutoReview }
func (Warning) kind() string        { return eventkind.Warning }
func (TurnStart) kind() string      { return eventkind.TurnStart }
func (Override) kind() string       { return eventkind.Override }
func (Withheld) kind() string       { return eventkind.Withheld }
func (Handoff) kind() string        { return eventkind.Handoff }
func (OverrideUsed) kind() string   { return eventkind.OverrideUsed }
func (AutoReviewTool) kind() string { return eventkind.AutoReviewTool }
func (u Unknown) kind() string      { return u.Type }

// MarshalJSON writes the unknown event's fields back unchanged.
func (u Unknown) MarshalJSON() ([]byte, error) { return json.Marshal(u.Fields) }
