package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"time"

	"github.com/wardenhq/warden/event"
)

// EnvDB names the environment variable that holds the database URL when
// no --db flag is given.
const EnvDB = "WARDEN_DB"

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
	return os.Getenv(EnvDB)
}

// Store is warden's shared state on one database. Its methods are safe for
// concurrent use; several Stores, in this process or others, may share one
// database.
type Store struct {
	db     *sql.DB
	engine string
	url    string
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
	Created     time.Time       `json:"created"`
	Deadline    *time.Time      `json:"deadline"`
	// Failsafe is the decision recorded when the deadline passes (H3:
	// reject or terminate, never approve).
	Failsafe string `json:"failsafe,omitempty"`
}

// Decision is a person's answer to a request.
type Decision struct {
	Decision    string          `json:"decision"`
	Explanation string          `json:"explanation,omitempty"`
	Modified    json.RawMessage `json:"modified,omitempty"`
	DecidedBy   string          `json:"-"`
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

var errTODO = errors.New("not implemented yet")

// Open opens (creating if needed) the store at url and applies pending
// migrations. "" is SQLite at $WARDEN_HOME/warden.db; "sqlite:PATH",
// "file:PATH" or a plain path is SQLite at PATH; "postgres://…" or
// "postgresql://…" is PostgreSQL.
func Open(ctx context.Context, url string) (*Store, error) { return nil, errTODO }

// Close closes the store's connections and stops its listeners.
func (s *Store) Close() error { return nil }

// Engine returns "sqlite" or "postgres".
func (s *Store) Engine() string { return s.engine }

// Write stores e (event.Sink), committed before it returns. Writing the
// same (run, id) twice keeps one row. run_start creates or updates the run;
// run_end sets its status and end.
func (s *Store) Write(e event.Event) error { return errTODO }

// Events returns the events of run runID in order of arrival, after the
// event whose id is after ("" = from the start), at most limit (<= 0 = all).
func (s *Store) Events(ctx context.Context, runID, after string, limit int) ([]event.Event, error) {
	return nil, errTODO
}

// Search returns the events q selects, newest first.
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) { return nil, errTODO }

// Import stores the events of a JSONL transcript and returns how many it
// read; importing a transcript twice keeps one copy of each event.
func (s *Store) Import(ctx context.Context, r io.Reader) (int, error) { return 0, errTODO }

// Runs returns the runs f selects, newest first.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]Run, error) { return nil, errTODO }

// Run returns run id; ErrNotFound if the store has no event of it.
func (s *Store) Run(ctx context.Context, id string) (Run, error) { return Run{}, errTODO }

// Submit stores r as a new pending request: it sets r.ID (random,
// URL-safe), r.Created and r.Status, and validates r.Kind, r.Choices and
// r.Failsafe.
func (s *Store) Submit(ctx context.Context, r *Request) error { return errTODO }

// Decide records d on request id exactly once across processes and
// machines, durably before it returns, and returns the request as stored.
// ErrChoice if d.Decision is not offered (for "modify", d.Modified must be
// a JSON object); ErrNotPending if the request is no longer pending;
// ErrNotFound if unknown.
func (s *Store) Decide(ctx context.Context, id string, d Decision) (Request, error) {
	return Request{}, errTODO
}

// Withdraw marks the pending request id withdrawn (its run no longer
// waits); a request that is no longer pending is left as it is.
func (s *Store) Withdraw(ctx context.Context, id string) error { return errTODO }

// Request returns request id; ErrNotFound if unknown.
func (s *Store) Request(ctx context.Context, id string) (Request, error) { return Request{}, errTODO }

// Requests returns the requests of a status: "pending" (oldest first),
// "decided" (every request no longer pending), "all" or "" (newest first).
func (s *Store) Requests(ctx context.Context, status string) ([]Request, error) {
	return nil, errTODO
}

// Wait blocks until request id is no longer pending, or ctx ends, and
// returns it. A pending request whose deadline passed is marked expired,
// with its fail-safe decision, by whoever notices first.
func (s *Store) Wait(ctx context.Context, id string) (Request, error) { return Request{}, errTODO }

// Changes delivers, until ctx ends, every event written and every request
// created or changed after the call, by this process or others sharing the
// database. The channel is closed when ctx ends.
func (s *Store) Changes(ctx context.Context) <-chan Change {
	ch := make(chan Change)
	go func() { <-ctx.Done(); close(ch) }()
	return ch
}

// Denials returns the latest auto-review denials (at most gate.MaxDenials
// per run) of run runID, or of every run when runID is "", newest first.
func (s *Store) Denials(ctx context.Context, runID string) ([]Denial, error) { return nil, errTODO }
