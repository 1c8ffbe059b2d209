package store

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/request"
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
	ErrNotFound = request.ErrNotFound
	// ErrNotPending: the request was already decided, expired or withdrawn.
	ErrNotPending = request.ErrNotPending
	// ErrChoice: the decision is not one the request offers, or its
	// modified arguments are not a JSON object.
	ErrChoice = errors.New("the decision is not one of the choices offered")
)

// URL returns the database URL to use: flag if set, else $WARDEN_DB, else
// "" (the default SQLite file).
func URL(flag string) string { return wardenhome.DBURL(flag) }

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

// Call is the tool call a request is about (request.Call).
type Call = request.Call

// The kinds of request.
const (
	KindApproval = request.KindApproval
	KindReview   = request.KindReview
	KindBoundary = request.KindBoundary
)

// The statuses of a request.
const (
	StatusPending   = request.StatusPending
	StatusDecided   = request.StatusDecided
	StatusExpired   = request.StatusExpired
	StatusWithdrawn = request.StatusWithdrawn
)

// Request is a request that waits for a person (SPEC H1–H4; request.Request).
type Request = request.Request

// Answer is a person's answer to a request (request.Answer).
type Answer = request.Answer

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
