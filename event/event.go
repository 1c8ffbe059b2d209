// Package event defines the events of a run and the JSON Lines transcript
// they are written to (SPEC L7).
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Kind names an event type; it is the "event" field of a transcript line.
type Kind string

// The kinds of event.
const (
	KindRunStart Kind = "run_start"
	KindModel    Kind = "model"
	KindApproval Kind = "approval"
	KindTool     Kind = "tool"
	KindReview   Kind = "review"
	KindInfo     Kind = "info"
	KindLimit    Kind = "limit"
	KindError    Kind = "error"
	KindRunEnd   Kind = "run_end"
	// KindAutoReview is a decision of the reviewer agent or its first
	// pass on a boundary request (SPEC G13).
	KindAutoReview Kind = "auto_review"
	// KindWarning is a warning, such as the circuit breaker tripping.
	KindWarning Kind = "warning"
	// KindTurnStart opens a turn with the person's input.
	KindTurnStart Kind = "turn_start"
	// KindOverride records a person's approval of one retry of a denied
	// action (SPEC G12).
	KindOverride Kind = "override"
	// KindOverrideUsed records that the one retry an override allows was
	// taken (SPEC G12).
	KindOverrideUsed Kind = "override_used"
)

// Data is the kind-specific part of an event.
type Data interface{ Kind() Kind }

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
}

// Kind returns the kind of the event's data.
func (e Event) Kind() Kind {
	if e.Data == nil {
		return ""
	}
	return e.Data.Kind()
}

// MarshalJSON writes the event as one flat object: "event" first, then the
// common fields, then the data's fields.
func (e Event) MarshalJSON() ([]byte, error) {
	type header struct {
		Event Kind      `json:"event"`
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
		Event Kind      `json:"event"`
		ID    string    `json:"id"`
		Time  time.Time `json:"time"`
		RunID string    `json:"run_id"`
		Agent string    `json:"agent"`
		Span  string    `json:"span"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return err
	}
	e.ID, e.Time, e.RunID, e.Agent, e.Span = h.ID, h.Time, h.RunID, h.Agent, h.Span
	var d Data
	switch h.Event {
	case KindRunStart:
		d = &RunStart{}
	case KindModel:
		d = &Model{}
	case KindApproval:
		d = &Approval{}
	case KindTool:
		d = &Tool{}
	case KindReview:
		d = &Review{}
	case KindInfo:
		d = &Info{}
	case KindLimit:
		d = &Limit{}
	case KindError:
		d = &Error{}
	case KindRunEnd:
		d = &RunEnd{}
	case KindAutoReview:
		d = &AutoReview{}
	case KindWarning:
		d = &Warning{}
	case KindTurnStart:
		d = &TurnStart{}
	case KindOverride:
		d = &Override{}
	case KindOverrideUsed:
		d = &OverrideUsed{}
	default:
		u := Unknown{Type: h.Event}
		if err := json.Unmarshal(data, &u.Fields); err != nil {
			return err
		}
		for _, k := range []string{"event", "id", "time", "run_id", "agent", "span"} {
			delete(u.Fields, k)
		}
		e.Data = u
		return nil
	}
	if err := json.Unmarshal(data, d); err != nil {
		return fmt.Errorf("%s event: %w", h.Event, err)
	}
	e.Data = deref(d)
	return nil
}

func deref(d Data) Data {
	switch v := d.(type) {
	case *RunStart:
		return *v
	case *Model:
		return *v
	case *Approval:
		return *v
	case *Tool:
		return *v
	case *Review:
		return *v
	case *Info:
		return *v
	case *Limit:
		return *v
	case *Error:
		return *v
	case *RunEnd:
		return *v
	case *AutoReview:
		return *v
	case *Warning:
		return *v
	case *TurnStart:
		return *v
	case *Override:
		return *v
	case *OverrideUsed:
		return *v
	}
	return d
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
	// Result is what the model receives.
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
	LimitTime     = "time"
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

// The statuses of an AutoReview event.
const (
	ReviewApproved = "approved"
	ReviewDenied   = "denied"
	ReviewTimedOut = "timed_out"
	ReviewAborted  = "aborted"
	ReviewFailed   = "failed"
)

// The sources of an AutoReview decision.
const (
	SourceRules    = "rules"
	SourceModel    = "model"
	SourceOverride = "override"
)

// AutoReview records one decision on a boundary request by the reviewer
// agent or its deterministic first pass (SPEC G13).
type AutoReview struct {
	CallID string `json:"call_id"`
	// Action is the exact action reviewed, as JSON.
	Action json.RawMessage `json:"action"`
	// Status is approved, denied, timed_out, aborted or failed.
	Status            string `json:"status"`
	RiskLevel         string `json:"risk_level"`
	UserAuthorization string `json:"user_authorization"`
	Rationale         string `json:"rationale"`
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
}

// AutoReviewKey is the approval metadata key under which an approver that
// reviews boundary requests leaves its AutoReview record (without CallID),
// for the agent loop to write to the transcript.
const AutoReviewKey = "auto_review_event"

// TurnStart opens a turn: one request of the person and everything that
// answers it. A resumed run appends a new one.
type TurnStart struct {
	Input string `json:"input"`
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

// Warning is a warning, such as the circuit breaker tripping (SPEC G11).
type Warning struct {
	Message string `json:"message"`
}

// Unknown holds an event of a kind this version does not know.
type Unknown struct {
	Type   Kind
	Fields map[string]any
}

// Kind implementations.
func (RunStart) Kind() Kind     { return KindRunStart }
func (Model) Kind() Kind        { return KindModel }
func (Approval) Kind() Kind     { return KindApproval }
func (Tool) Kind() Kind         { return KindTool }
func (Review) Kind() Kind       { return KindReview }
func (Info) Kind() Kind         { return KindInfo }
func (Limit) Kind() Kind        { return KindLimit }
func (Error) Kind() Kind        { return KindError }
func (RunEnd) Kind() Kind       { return KindRunEnd }
func (AutoReview) Kind() Kind   { return KindAutoReview }
func (Warning) Kind() Kind      { return KindWarning }
func (TurnStart) Kind() Kind    { return KindTurnStart }
func (Override) Kind() Kind     { return KindOverride }
func (OverrideUsed) Kind() Kind { return KindOverrideUsed }
func (u Unknown) Kind() Kind    { return u.Type }

// MarshalJSON writes the unknown event's fields back unchanged.
func (u Unknown) MarshalJSON() ([]byte, error) { return json.Marshal(u.Fields) }
