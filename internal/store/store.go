package store

import (
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// envDB names the environment variable that holds the database URL when
// no --db flag is given.
const envDB = wardenhome.EnvDB

// The engines of a Store.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// Sentinel errors; the store's errors wrap them (test with errors.Is).
var (
	// ErrNotFound: no such run, request or denial.
	ErrNotFound = errors.New("not found")
	// ErrNotPending: the request was already decided, expired or withdrawn.
	ErrNotPending = errors.New("the request is no longer pending")
	// ErrChoice: the decision is not one the request offers, or its
	// modified arguments are not a JSON object.
	ErrChoice = errors.New("the decision is not one of the choices offered")
)

// URL returns the database URL to use: flag if set, else $WARDEN_DB, else
// "" (the default SQLite file).
func URL(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(envDB)
}

var _ event.Sink = (*Store)(nil)

// Run is a run as the store knows it from its events.
type Run struct {
	ID      string     `json:"id"`
	Task    string     `json:"task"`
	Model   string     `json:"model"`
	Status  string     `json:"status"` // running, completed, error, limited, … (run_end's status)
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended,omitempty"`
	// Counts are the run's events per kind, plus "events" (the total) and
	// "pending" (its pending requests).
	Counts map[string]int `json:"counts"`
}

// RunFilter selects runs: by status, by task (a substring), by start time
// (Since inclusive, Until exclusive; zero = unbounded); Limit <= 0 = all.
type RunFilter struct {
	Status, Task string
	Since, Until time.Time
	Limit        int
}

// Query selects events for Search: Text is a substring of the event's JSON
// line, Kind its kind, RunID its run; Since and Until bound its time; Limit
// <= 0 means 100.
type Query struct {
	Text, Kind, RunID string
	Since, Until      time.Time
	Limit             int
}

// Hit is one event Search found, with its stored JSON line.
type Hit struct {
	Event event.Event
	Line  json.RawMessage
}

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
	// Store.RequestContexts; nil when none was given.
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

// Change is one thing that changed in the store: an event written or a
// request created or changed.
type Change struct {
	Event   *event.Event `json:"event,omitempty"`
	Request *Request     `json:"request,omitempty"`
}

// Denial is an auto-review denial of a boundary request (SPEC G12), as the
// gate recorded it in an auto_review event, with what became of it.
type Denial struct {
	ID        string          `json:"id"`
	RunID     string          `json:"run_id"`
	CallID    string          `json:"call_id"`
	Action    json.RawMessage `json:"action"`
	RiskLevel string          `json:"risk_level,omitempty"`
	Rationale string          `json:"rationale,omitempty"`
	Time      time.Time       `json:"time"`
	// Status is denied, approved (an override granted, not yet used) or
	// used.
	Status string `json:"status"`
}

// The statuses of a Denial.
const (
	DenialDenied   = "denied"
	DenialApproved = "approved"
	DenialUsed     = "used"
)
