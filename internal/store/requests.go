package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/vocab"
)

// The choices a request may offer, per kind (SPEC H2), and what each kind
// offers when a request names none.
// The words of the decisions are internal/vocab's: approval's (SPEC A2)
// for approval and boundary requests, review's (SPEC R2) for review
// requests.
var (
	allowedChoices = map[string][]string{
		KindApproval: vocab.ApprovalDecisions(),
		KindBoundary: vocab.ApprovalDecisions(),
		KindReview:   vocab.ReviewDecisions(),
	}
	defaultChoices = map[string][]string{
		KindApproval: {vocab.WordApprove, vocab.WordModify, vocab.WordReject, vocab.WordTerminate},
		KindBoundary: {vocab.WordApprove, vocab.WordReject, vocab.WordTerminate},
		KindReview:   {vocab.WordContinue, vocab.WordTerminate},
	}
	// closedChoice is the decision of a request closed without a choice
	// (SPEC H3): the fail-safe outcome when none is given.
	closedChoice = map[string]string{KindApproval: vocab.WordReject, KindBoundary: vocab.WordReject, KindReview: vocab.WordTerminate}
)

// failsafeAllowed reports whether c may be a fail-safe outcome: never one
// that lets the call or its result through (SPEC H3).
func failsafeAllowed(c string) bool { return c == vocab.WordReject || c == vocab.WordTerminate }

// Deadline decided-by: who records an expired request's fail-safe decision.
const byDeadline = "deadline"

// newID returns a random URL-safe id.
func newID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// ErrIDTaken: a request's client-chosen id is already another run's, or
// another request's of the same run.
var ErrIDTaken = errors.New("the request id is already taken by another request")

// ValidID reports whether id may be a client-chosen request id: 16 to 64
// URL-safe characters (letters, digits, '-' and '_'), so that it is hard
// to guess and safe in a URL path.
func ValidID(id string) bool {
	if len(id) < 16 || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Submit stores r as a new pending request: it sets r.ID (random,
// URL-safe), r.Created and r.Status, and validates r.Kind, r.Choices (the
// kind's defaults when empty) and r.Failsafe (with a deadline and no
// fail-safe, the H3 outcome: reject, or terminate for a review).
//
// A client that retries may choose r.ID itself (see ValidID) before its
// first try: a second Submit with the id of a request of the same run,
// kind and call stores nothing and sets *r to the request as stored (one
// row, the same answer, decided or not); an id held by any other request
// is refused with ErrIDTaken.
func (s *Store) Submit(ctx context.Context, r *Request) error {
	if err := prepare(r); err != nil {
		return fmt.Errorf("store: submit: %w", err)
	}
	id, chosen := r.ID, r.ID != ""
	if chosen && !ValidID(id) {
		return fmt.Errorf("store: submit: request id %q: want 16 to 64 letters, digits, '-' or '_': %w", id, ErrChoice)
	}
	if chosen {
		if done, err := s.resubmitted(ctx, r); done || err != nil {
			return err
		}
	} else {
		var err error
		if id, err = newID(); err != nil {
			return fmt.Errorf("store: submit: %w", err)
		}
	}
	r.ID, r.Status, r.Created = id, StatusPending, time.Now().UTC().Truncate(time.Microsecond)
	r.Decision, r.Explanation, r.Modified, r.DecidedBy, r.DecidedVia = "", "", nil, "", ""
	choices, _ := json.Marshal(r.Choices)
	args := string(r.Call.Arguments)
	if args == "" {
		args = "null"
	}
	var deadline sql.NullInt64
	if r.Deadline != nil {
		deadline = sql.NullInt64{Int64: r.Deadline.UnixNano(), Valid: true}
	}
	rc, err := contextJSON(r.Context)
	if err != nil {
		return fmt.Errorf("store: submit: %w", err)
	}
	truncated := ""
	if r.Truncated != nil {
		truncated = fmt.Sprintf("[%d,%d]", r.Truncated[0], r.Truncated[1])
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := s.execOn(ctx, tx, `INSERT INTO requests (id, kind, run_id, agent, call_id, function, arguments, view, message, result,
			choices, status, created, deadline, failsafe, truncated, rev) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, `+s.nextRev()+`)`,
			r.ID, r.Kind, r.RunID, r.Agent, r.Call.ID, r.Call.Function, args, r.View, r.Message, r.Result,
			string(choices), r.Status, r.Created.UnixNano(), deadline, r.Failsafe, truncated)
		if err != nil {
			return err
		}
		if rc != "" {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO request_context (request_id, context) VALUES (?, ?)`), r.ID, rc); err != nil {
				return err
			}
		}
		return s.notify(ctx, tx, "r:"+r.ID)
	})
	if err != nil {
		if chosen {
			// A concurrent try with the same id may have won the insert.
			if done, err2 := s.resubmitted(ctx, r); done {
				return err2
			}
		}
		return fmt.Errorf("store: submit: %w", err)
	}
	s.changed(r.ID)
	return nil
}

// resubmitted looks up the request of r's client-chosen id and reports
// whether it exists: if it is r's (same run, kind and call), *r becomes
// the request as stored; otherwise the error is ErrIDTaken.
func (s *Store) resubmitted(ctx context.Context, r *Request) (bool, error) {
	got, err := s.Request(ctx, r.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: submit: %w", err)
	}
	if got.RunID != r.RunID || got.Kind != r.Kind || got.Call.ID != r.Call.ID || got.Call.Function != r.Call.Function {
		return true, fmt.Errorf("store: submit: request %s: %w", r.ID, ErrIDTaken)
	}
	rc := r.Context
	*r = got
	if r.Context == nil {
		r.Context = rc
	}
	return true, nil
}

// prepare validates a request before it is stored and fills its defaults.
func prepare(r *Request) error {
	allowed, ok := allowedChoices[r.Kind]
	if !ok {
		return fmt.Errorf("request kind %q: want approval, review or boundary", r.Kind)
	}
	if len(r.Choices) == 0 {
		r.Choices = slices.Clone(defaultChoices[r.Kind])
	}
	seen := map[string]bool{}
	for _, c := range r.Choices {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("a %s request cannot offer %q (choices: %s)", r.Kind, c, strings.Join(allowed, ", "))
		}
		if seen[c] {
			return fmt.Errorf("choice %q offered twice", c)
		}
		seen[c] = true
	}
	if len(r.Call.Arguments) > 0 && !json.Valid(r.Call.Arguments) {
		return errors.New("the call's arguments are not JSON")
	}
	if r.Deadline != nil {
		t := r.Deadline.UTC().Truncate(time.Microsecond)
		r.Deadline = &t
		if r.Failsafe == "" {
			r.Failsafe = closedChoice[r.Kind]
		}
	}
	if r.Failsafe != "" && !failsafeAllowed(r.Failsafe) {
		return fmt.Errorf("fail-safe outcome %q: it may only be reject or terminate, never one that lets the call through", r.Failsafe)
	}
	if r.Failsafe != "" && r.Failsafe != closedChoice[r.Kind] && r.Failsafe != vocab.WordTerminate {
		return fmt.Errorf("fail-safe outcome %q does not apply to a %s request", r.Failsafe, r.Kind)
	}
	return nil
}

// nextRev is the SQL of the next request revision.
func (s *Store) nextRev() string {
	if s.engine == EnginePostgres {
		return "nextval('requests_rev_seq')"
	}
	return "(SELECT COALESCE(MAX(rev), 0) + 1 FROM requests)"
}

// changed tells this process's waiters and subscribers that request id
// changed (other processes learn of it from the notification or by
// polling).
func (s *Store) changed(id string) {
	s.hub.wake(id)
	if s.engine == EngineSQLite {
		s.hub.publish()
	}
}

// Decide records d on request id exactly once across processes and
// machines, durably before it returns, and returns the request as stored.
// ErrChoice if d.Decision is not offered (for "modify", d.Modified must be
// a JSON object); ErrNotPending if the request is no longer pending (a
// request past its deadline is expired to its fail-safe outcome first);
// ErrNotFound if unknown.
//
// A decision on a pending request is one statement that updates the row
// only if it is still pending, its deadline has not passed and it offers
// the choice, and returns it (UPDATE … RETURNING): on PostgreSQL the
// decision's record and its notification go in the same statement, one
// round trip; the request is read again only when the update found
// nothing to say why.
func (s *Store) Decide(ctx context.Context, id string, d Answer) (Request, error) {
	if d.Decision == vocab.WordModify {
		if !isObject(d.Modified) {
			r, err := s.Request(ctx, id)
			if err != nil {
				return Request{}, err
			}
			return r, fmt.Errorf("store: modify on request %s: the modified arguments must be a JSON object: %w", id, ErrChoice)
		}
	} else {
		d.Modified = nil
	}
	r, ok, err := s.close(ctx, id, StatusDecided, d, time.Now())
	if err != nil {
		return Request{}, fmt.Errorf("store: deciding request %s: %w", id, err)
	}
	if ok {
		return r, nil
	}
	// Nothing updated: say why, from the request as it now is (past its
	// deadline, Request records the fail-safe outcome first).
	if r, err = s.Request(ctx, id); err != nil {
		return Request{}, err
	}
	if !slices.Contains(r.Choices, d.Decision) {
		return r, fmt.Errorf("store: decision %q on request %s (offered: %s): %w", d.Decision, id, strings.Join(r.Choices, ", "), ErrChoice)
	}
	return r, fmt.Errorf("store: request %s is %s: %w", id, r.Status, ErrNotPending)
}

// isObject reports whether b is a JSON object.
func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// close moves request id from pending to status with decision d, if it is
// still pending (and, for a decision, its deadline has not passed at now
// and it offers d.Decision), in one committed transaction, and reports
// whether it did, with the request as it then is: of any number of
// concurrent closers, in any process, exactly one does.
func (s *Store) close(ctx context.Context, id, status string, d Answer, now time.Time) (Request, bool, error) {
	at := now.UnixNano()
	var modified sql.NullString
	if len(d.Modified) > 0 {
		modified = sql.NullString{String: string(d.Modified), Valid: true}
	}
	cond := "id = ? AND status = 'pending'"
	via := d.DecidedVia
	if via == "" {
		via = d.DecidedBy
	}
	args := []any{status, d.Decision, d.Explanation, modified, d.DecidedBy, via, at, id}
	switch status {
	case StatusDecided:
		cond += " AND (deadline IS NULL OR deadline > ?) AND " + s.offers()
		args = append(args, at, d.Decision)
	case StatusExpired:
		cond += " AND deadline IS NOT NULL AND deadline <= ?"
		args = append(args, at)
	}
	update := `UPDATE requests SET status = ?, decision = ?, explanation = ?, modified = ?, decided_by = ?,
			decided_via = ?, decided_at = ?, rev = ` + s.nextRev() + ` WHERE ` + cond
	var r Request
	won := false
	if s.engine == EnginePostgres {
		// One statement: the update, the decision's record and the
		// notification commit together, in one round trip.
		q := `WITH u AS (` + update + ` RETURNING *),
			d AS (INSERT INTO decisions (request_id, status, decision, explanation, modified, decided_by, decided_via, decided_at)
				SELECT id, status, decision, explanation, modified, decided_by, decided_via, decided_at FROM u),
			n AS (SELECT pg_notify(?, 'r:' || id) FROM u)
			SELECT ` + requestColumns + ` FROM u, n`
		rows, err := s.db.QueryContext(ctx, s.q(q), append(args, s.channel)...)
		if err != nil {
			return Request{}, false, err
		}
		rs, err := scanRequests(rows)
		if err != nil {
			return Request{}, false, err
		}
		if won = len(rs) == 1; won {
			r = rs[0].Request
		}
	} else {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			rows, err := s.queryOn(ctx, tx, update+" RETURNING "+requestColumns, args...)
			if err != nil {
				return err
			}
			rs, err := scanRequests(rows)
			if err != nil || len(rs) != 1 {
				return err
			}
			if _, err := s.execOn(ctx, tx, `INSERT INTO decisions (request_id, status, decision, explanation, modified, decided_by, decided_via, decided_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, status, d.Decision, d.Explanation, modified, d.DecidedBy, via, at); err != nil {
				return err
			}
			r, won = rs[0].Request, true
			return nil
		})
		if err != nil {
			return Request{}, false, err
		}
	}
	if won {
		s.changed(id)
	}
	return r, won, nil
}

// offers is the SQL condition that the request's choices hold the next
// argument.
func (s *Store) offers() string {
	if s.engine == EnginePostgres {
		return "choices::jsonb @> jsonb_build_array(?::text)"
	}
	return "EXISTS (SELECT 1 FROM json_each(requests.choices) WHERE value = ?)"
}

// expire closes request r, pending past its deadline, with its fail-safe
// decision (SPEC H3) and reports whether this call did.
func (s *Store) expire(ctx context.Context, r Request) (bool, error) {
	fs := r.Failsafe
	if fs == "" {
		fs = closedChoice[r.Kind]
	}
	_, ok, err := s.close(ctx, r.ID, StatusExpired, Answer{Decision: fs, Explanation: "no decision before the deadline: the fail-safe outcome applies", DecidedBy: byDeadline}, time.Now())
	return ok, err
}

// Withdraw marks the pending request id withdrawn (its run no longer
// waits); a request that is no longer pending is left as it is. ErrNotFound
// if unknown.
func (s *Store) Withdraw(ctx context.Context, id string) error {
	if _, _, err := s.close(ctx, id, StatusWithdrawn, Answer{Explanation: "the run no longer waits"}, time.Now()); err != nil {
		return fmt.Errorf("store: withdrawing request %s: %w", id, err)
	}
	if _, err := s.Request(ctx, id); err != nil {
		return err
	}
	return nil
}

const requestColumns = `id, kind, run_id, agent, call_id, function, arguments, view, message, result, choices, status,
	decision, explanation, modified, decided_by, decided_via, created, deadline, failsafe, rev, truncated`

// Request returns request id; ErrNotFound if unknown. A pending request
// past its deadline is expired to its fail-safe outcome first, so that it
// reads expired wherever it is read.
func (s *Store) Request(ctx context.Context, id string) (Request, error) {
	rs, err := s.requestByID(ctx, id)
	if err != nil {
		return Request{}, fmt.Errorf("store: request %s: %w", id, err)
	}
	if len(rs) == 0 {
		return Request{}, fmt.Errorf("store: request %s: %w", id, ErrNotFound)
	}
	r := rs[0].Request
	if r.Status == StatusPending && r.Deadline != nil && !time.Now().Before(*r.Deadline) {
		// Past its deadline: it reads expired everywhere, whoever asks.
		if _, err := s.expire(ctx, r); err != nil {
			return Request{}, fmt.Errorf("store: expiring request %s: %w", id, err)
		}
		if rs, err = s.requestByID(ctx, id); err != nil || len(rs) == 0 {
			return Request{}, fmt.Errorf("store: request %s: %w", id, errors.Join(err, ErrNotFound))
		}
		r = rs[0].Request
	}
	return r, nil
}

// Requests returns the requests of a status: "pending" (oldest first),
// "decided" (every request no longer pending, newest first), "all" or ""
// (newest first), all of them (RequestPage returns one page). Pending
// requests past their deadline are expired first.
func (s *Store) Requests(ctx context.Context, status string) ([]Request, error) {
	return s.requestList(ctx, status, nil, 0)
}

// expireDue expires every pending request past its deadline.
func (s *Store) expireDue(ctx context.Context) error {
	rs, err := s.requests(ctx, "SELECT "+requestColumns+" FROM requests WHERE status = 'pending' AND deadline IS NOT NULL AND deadline <= ?", time.Now().UnixNano())
	if err != nil {
		return err
	}
	for _, r := range rs {
		if _, err := s.expire(ctx, r.Request); err != nil {
			return err
		}
	}
	return nil
}

// revRequest is a request with its revision.
type revRequest struct {
	Request
	rev int64
}

// requestByID reads request id (a prepared statement on SQLite).
func (s *Store) requestByID(ctx context.Context, id string) ([]revRequest, error) {
	rows, err := s.queryOn(ctx, nil, "SELECT "+requestColumns+" FROM requests WHERE id = ?", id)
	if err != nil {
		return nil, err
	}
	return scanRequests(rows)
}

// requests reads the requests of query q.
func (s *Store) requests(ctx context.Context, q string, args ...any) ([]revRequest, error) {
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, err
	}
	return scanRequests(rows)
}

// scanRequests reads and closes rows of requestColumns.
func scanRequests(rows *sql.Rows) ([]revRequest, error) {
	defer rows.Close()
	var out []revRequest
	for rows.Next() {
		var r revRequest
		var args, choices, truncated string
		var modified sql.NullString
		var created int64
		var deadline sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Kind, &r.RunID, &r.Agent, &r.Call.ID, &r.Call.Function, &args, &r.View, &r.Message, &r.Result,
			&choices, &r.Status, &r.Decision, &r.Explanation, &modified, &r.DecidedBy, &r.DecidedVia, &created, &deadline, &r.Failsafe, &r.rev, &truncated); err != nil {
			return nil, err
		}
		r.Call.Arguments = json.RawMessage(args)
		if err := json.Unmarshal([]byte(choices), &r.Choices); err != nil {
			return nil, fmt.Errorf("request %s: its choices do not decode: %w", r.ID, err)
		}
		if modified.Valid {
			r.Modified = json.RawMessage(modified.String)
		}
		if truncated != "" {
			var cut [2]int
			if err := json.Unmarshal([]byte(truncated), &cut); err != nil {
				return nil, fmt.Errorf("request %s: its truncation does not decode: %w", r.ID, err)
			}
			r.Truncated = &cut
		}
		r.Created = time.Unix(0, created).UTC()
		if deadline.Valid {
			t := time.Unix(0, deadline.Int64).UTC()
			r.Deadline = &t
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Polling of SQLite: the first re-read after pollMin, backing off to
// pollMax (one poller per Store, for the changes of other processes).
// Every waiter re-reads its request every recheck in case a wake-up was
// missed.
const (
	pollMin = 5 * time.Millisecond
	pollMax = 200 * time.Millisecond
	recheck = 2 * time.Second
)

// Wait blocks until request id is no longer pending, or ctx ends, and
// returns it. A pending request whose deadline passed is marked expired,
// with its fail-safe decision, by whoever notices first. A decision made
// through this Store wakes its waiters at once; one of another process
// wakes them through PostgreSQL's notification, or on SQLite through the
// Store's one poller of the requests' revisions: waiters do not poll
// their rows.
func (s *Store) Wait(ctx context.Context, id string) (Request, error) {
	woken, stop := s.hub.wait(id)
	defer stop()
	if s.engine == EngineSQLite {
		defer s.watch(ctx)()
	}
	for {
		r, err := s.Request(ctx, id)
		if err != nil {
			return Request{}, err
		}
		if r.Status != StatusPending {
			return r, nil
		}
		now := time.Now()
		if r.Deadline != nil && !now.Before(*r.Deadline) {
			if _, err := s.expire(ctx, r); err != nil {
				return Request{}, fmt.Errorf("store: expiring request %s: %w", id, err)
			}
			continue
		}
		next := recheck
		if r.Deadline != nil {
			next = min(next, r.Deadline.Sub(now))
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return r, fmt.Errorf("store: waiting for request %s: %w", id, ctx.Err())
		case <-woken:
		case <-t.C:
		}
		t.Stop()
	}
}
