// Package request is the record of a request that waits for a person
// (SPEC H1–H4) and of the person's answer, as the store keeps them and the
// server's clients and the queue carry them. It sits below the store, which
// names its types as its own (store.Request is request.Request), so that a
// process that submits and waits through the server (warden-hook) links no
// database.
package request

import (
	"encoding/json"
	"errors"
	"time"
)

// Sentinel errors; the store's and the server client's errors wrap them
// (test with errors.Is).
var (
	// ErrNotFound: no such run, request or denial.
	ErrNotFound = errors.New("not found")
	// ErrNotPending: the request was already decided, expired or withdrawn.
	ErrNotPending = errors.New("the request is no longer pending")
)

// MaxPage is the most items one page of a list of the store holds.
const MaxPage = 1000

// Call is the tool call a request is about.
type Call struct {
	ID        string          `json:"id"`
	Function  string          `json:"function"`
	Arguments json.RawMessage `json:"arguments"`
}

// The kinds of request.
const (
	KindApproval = "approval"
	KindReview   = "review"
	KindBoundary = "boundary"
)

// The statuses of a request.
const (
	StatusPending   = "pending"
	StatusDecided   = "decided"
	StatusExpired   = "expired"
	StatusWithdrawn = "withdrawn"
)

// Request is a request that waits for a person (SPEC H1–H4).
type Request struct {
	ID          string          `json:"id"`
	Kind        string          `json:"kind"` // approval | review | boundary
	RunID       string          `json:"run_id"`
	Agent       string          `json:"agent"`
	Call        Call            `json:"call"`
	View        string          `json:"view"`    // what the person sees of the call (may be "")
	Message     string          `json:"message"` // the assistant message / rationale text
	Result      string          `json:"result"`  // review: the tool's output or error text
	Choices     []string        `json:"choices"`
	Status      string          `json:"status"` // pending | decided | expired | withdrawn
	Decision    string          `json:"decision"`
	Explanation string          `json:"explanation"`
	Modified    json.RawMessage `json:"modified,omitempty"` // new arguments object when decision is "modify"
	DecidedBy   string          `json:"decided_by"`
	// DecidedVia is the surface the decision came through: panel, api,
	// console or deadline ("" before one). DecidedBy names the operator
	// when their credential has a name (SPEC S4), else it is DecidedVia.
	DecidedVia string     `json:"decided_via"`
	Created    time.Time  `json:"created"`
	Deadline   *time.Time `json:"deadline"`
	// Failsafe is the decision recorded when the deadline passes (H3:
	// reject or terminate, never approve).
	Failsafe string `json:"failsafe,omitempty"`
	// Truncated is [bytes produced, bytes kept] when Result was cut
	// before the person saw it (a review of a long output, cut at the
	// tool's capture limit or the run's max_output); nil when whole.
	Truncated *[2]int `json:"truncated,omitempty"`
	// Context is what the asker knows beside the call (who, where, why),
	// stored with the request on submission and read back with
	// the store's RequestContexts; nil when none was given.
	Context *RequestContext `json:"context,omitempty"`
}

// Answer is a person's answer to a request: its Decision is one of the
// request's Choices, words of approval's or review's decisions
// (internal/vocab), kept as text because the store sits below both.
type Answer struct {
	Decision    string          `json:"decision"`
	Explanation string          `json:"explanation,omitempty"`
	Modified    json.RawMessage `json:"modified,omitempty"`
	DecidedBy   string          `json:"-"`
	// DecidedVia is the surface the decision came through (panel, api,
	// console); "" when the surface named itself in DecidedBy.
	DecidedVia string `json:"-"`
}

// RequestContext is what a person needs beside a request to decide it
// (issue 21 item 4), kept apart from the model's own words so that a
// surface can label each part: warden's reason and the risk it saw, the
// model's justification, who asked from where, and the last turns of the
// conversation that led to the call.
type RequestContext struct {
	// Host is the machine the asking run runs on.
	Host string `json:"host,omitempty"`
	// Sandbox is the sandbox mode in force where the call runs.
	Sandbox string `json:"sandbox,omitempty"`
	// Reason is warden's reason for asking: which rule, which blocked
	// action, what the first pass found.
	Reason string `json:"reason,omitempty"`
	// Risk is the risk level warden (the first pass) gave the action.
	Risk string `json:"risk,omitempty"`
	// Justification is the model's reason for the action, when it gave
	// one: the model's words, never warden's.
	Justification string `json:"justification,omitempty"`
	// Effects is what a dry run of the request's command observed (SPEC
	// G17), summarised by warden; the paths and names in it are the
	// command's own.
	Effects string `json:"effects,omitempty"`
	// Message is the model's own message that made the call (the
	// request's message may also carry warden's description of it).
	Message string `json:"message,omitempty"`
	// Turns are the last turns of the conversation, oldest first.
	Turns []Turn `json:"turns,omitempty"`
}

// Turn is one message of a conversation, cut for display.
type Turn struct {
	// Role is user, assistant or tool.
	Role string `json:"role"`
	Text string `json:"text"`
}
