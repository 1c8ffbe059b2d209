package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
)

// execer is what the store's statements run on: a transaction or the pool.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// writeTimeout bounds a Write, which has no context of its own.
const writeTimeout = time.Minute

// inTx runs fn in a transaction of the requests' pool and commits it,
// durably. On SQLite this process's writers take turns here.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.tx(ctx, s.db, fn)
}

// inEventTx runs fn in a transaction that writes events and commits it:
// the commit survives a crash of this process (SPEC S3), without waiting
// for the disk (see the package comment).
func (s *Store) inEventTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.tx(ctx, s.evdb, fn)
}

func (s *Store) tx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	if s.engine == EngineSQLite {
		s.wmu.Lock()
		defer s.wmu.Unlock()
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback() //nolint:errcheck // the error of fn is the one to report
		return err
	}
	return tx.Commit()
}

// Write stores e (event.Sink), committed before it returns: a crash of
// this process after Write returned loses nothing (SPEC S3). Writing the
// same (run, id) twice keeps one row. run_start creates or updates the
// run; run_end sets its status and end. For a run's transcript, Buffer
// batches writes instead.
func (s *Store) Write(e event.Event) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if _, err := s.writeEvents(ctx, []event.Event{e}); err != nil {
		return fmt.Errorf("store: writing event %s: %w", e.ID, err)
	}
	return nil
}

// writeEvents stores es in one transaction and returns how many were new.
func (s *Store) writeEvents(ctx context.Context, es []event.Event) (int, error) {
	lines := make([][]byte, len(es))
	for i, e := range es {
		if e.ID == "" || e.RunID == "" {
			return 0, fmt.Errorf("event %q of run %q: an event needs an id and a run id", e.ID, e.RunID)
		}
		// The line json.Marshal writes (the transcript's), without its
		// second pass over the bytes: MarshalJSON's output is compact.
		line, err := e.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("event %s: %w", e.ID, err)
		}
		lines[i] = line
	}
	n := 0
	err := s.inEventTx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = s.writeBatch(ctx, tx, es, lines)
		return err
	})
	if err != nil {
		return 0, err
	}
	s.runsMu.Lock()
	if s.knownRuns == nil || len(s.knownRuns) > 10000 {
		s.knownRuns = map[string]bool{}
	}
	for _, e := range es {
		s.knownRuns[e.RunID] = true
	}
	s.runsMu.Unlock()
	if n > 0 && s.engine == EngineSQLite {
		s.hub.publish()
	}
	return n, nil
}

// batchRows bounds the rows of one INSERT statement.
const batchRows = 100

// writeBatch stores es with their JSON lines in tx, with what they change
// in the derived tables, and returns how many were new.
func (s *Store) writeBatch(ctx context.Context, tx *sql.Tx, es []event.Event, lines [][]byte) (int, error) {
	// The runs first, once each, unless this Store made their rows before.
	seen := map[string]bool{}
	var runArgs []any
	s.runsMu.Lock()
	for _, e := range es {
		if !seen[e.RunID] && !s.knownRuns[e.RunID] {
			seen[e.RunID] = true
			runArgs = append(runArgs, e.RunID, e.Time.UnixNano())
		}
	}
	s.runsMu.Unlock()
	for len(runArgs) > 0 {
		k := min(len(runArgs), 2*batchRows)
		vals := strings.TrimSuffix(strings.Repeat("(?, ?), ", k/2), ", ")
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO runs (id, started) VALUES "+vals+" ON CONFLICT (id) DO NOTHING"), runArgs[:k]...); err != nil {
			return 0, err
		}
		runArgs = runArgs[k:]
	}
	var seqs []int64
	var err error
	if s.engine == EngineSQLite {
		seqs, err = s.insertEach(ctx, tx, es, lines)
	} else {
		seqs, err = s.insertRows(ctx, tx, es, lines)
	}
	if err != nil {
		return 0, err
	}
	stored := 0
	var notes []string // PostgreSQL: the seqs to notify
	for i, e := range es {
		if seqs[i] == 0 {
			continue // stored before
		}
		if err := s.derive(ctx, tx, e, seqs[i]); err != nil {
			return 0, err
		}
		stored++
		if s.engine == EnginePostgres {
			notes = append(notes, strconv.FormatInt(seqs[i], 10))
		}
	}
	// One notification per batch of sequence numbers, within PostgreSQL's
	// payload limit.
	for len(notes) > 0 {
		k := min(len(notes), 500)
		if err := s.notify(ctx, tx, "e:"+strings.Join(notes[:k], ",")); err != nil {
			return 0, err
		}
		notes = notes[k:]
	}
	return stored, nil
}

// insertEach stores es with their lines in tx (SQLite), one prepared
// single-row statement per event: it is parsed once per connection and,
// unlike one statement of many rows, needs no statement journal. It
// returns the seq of each event, 0 for one stored before.
func (s *Store) insertEach(ctx context.Context, tx *sql.Tx, es []event.Event, lines [][]byte) ([]int64, error) {
	stmt := tx.StmtContext(ctx, s.insertEvent)
	seqs := make([]int64, len(es))
	for i, e := range es {
		res, err := stmt.ExecContext(ctx, e.RunID, e.ID, e.Kind(), e.Time.UnixNano(), callID(e.Data), e.Agent, string(lines[i]))
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue // stored before
		}
		if seqs[i], err = res.LastInsertId(); err != nil {
			return nil, err
		}
	}
	return seqs, nil
}

// insertRows stores es with their lines in tx (PostgreSQL), many rows per
// statement (one round trip each). It returns the seq of each event, 0 for
// one stored before (or the second of one event given twice).
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, es []event.Event, lines [][]byte) ([]int64, error) {
	type key struct{ run, id string }
	stored := map[key]int64{}
	for start := 0; start < len(es); start += batchRows {
		part := es[start:min(start+batchRows, len(es))]
		args := make([]any, 0, 7*len(part))
		for i, e := range part {
			args = append(args, e.RunID, e.ID, e.Kind(), e.Time.UnixNano(), callID(e.Data), e.Agent, string(lines[start+i]))
		}
		vals := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", len(part)), ", ")
		rows, err := tx.QueryContext(ctx, s.q(`INSERT INTO events (run_id, id, kind, time, call_id, agent, line) VALUES `+vals+`
			ON CONFLICT (run_id, id) DO NOTHING RETURNING seq, run_id, id`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k key
			var seq int64
			if err := rows.Scan(&seq, &k.run, &k.id); err != nil {
				rows.Close()
				return nil, err
			}
			stored[k] = seq
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	seqs := make([]int64, len(es))
	for i, e := range es {
		k := key{e.RunID, e.ID}
		seqs[i] = stored[k]
		delete(stored, k) // the same event twice in es: derived once
	}
	return seqs, nil
}

// breakerPrefix starts the warning the gate records when the circuit
// breaker trips.
const breakerPrefix = "circuit breaker:"

// derive updates the runs, denials and turns of event e (stored as seq).
func (s *Store) derive(ctx context.Context, tx *sql.Tx, e event.Event, seq int64) error {
	t := e.Time.UnixNano()
	exec := func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, s.q(q), args...)
		return err
	}
	const currentTurn = "run_id = ? AND turn = (SELECT MAX(turn) FROM turns WHERE run_id = ?)"
	switch d := e.Data.(type) {
	case event.RunStart:
		return exec("UPDATE runs SET task = ?, model = ?, started = ?, status = 'running', ended = NULL WHERE id = ?", d.Task, d.Model, t, e.RunID)
	case event.TurnStart:
		if err := exec("UPDATE runs SET status = 'running', ended = NULL WHERE id = ? AND ended IS NOT NULL", e.RunID); err != nil {
			return err
		}
		return exec("INSERT INTO turns (run_id, turn, started) VALUES (?, (SELECT COALESCE(MAX(turn), 0) + 1 FROM turns WHERE run_id = ?), ?)", e.RunID, e.RunID, t)
	case event.RunEnd:
		return exec("UPDATE runs SET status = ?, ended = ? WHERE id = ?", d.Status, t, e.RunID)
	case event.AutoReview:
		denied := 0
		if d.Status == action.StatusDenied {
			denied = 1
			if d.DenialID != "" {
				act := string(d.Action)
				if act == "" {
					act = "null"
				}
				if err := exec(`INSERT INTO denials (run_id, id, call_id, action, risk_level, rationale, time, status, event_seq)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, id) DO NOTHING`,
					e.RunID, d.DenialID, d.CallID, act, string(d.RiskLevel), d.Rationale, t, DenialDenied, seq); err != nil {
					return err
				}
			}
		}
		if err := exec("INSERT INTO turns (run_id, turn, started) SELECT ?, 0, ? WHERE NOT EXISTS (SELECT 1 FROM turns WHERE run_id = ?)", e.RunID, t, e.RunID); err != nil {
			return err
		}
		return exec("UPDATE turns SET reviews = reviews + 1, denials = denials + ?, consecutive = (consecutive + ?) * ? WHERE "+currentTurn,
			denied, denied, denied, e.RunID, e.RunID)
	case event.Warning:
		if strings.HasPrefix(d.Message, breakerPrefix) {
			return exec("UPDATE turns SET tripped = 1 WHERE "+currentTurn, e.RunID, e.RunID)
		}
	case event.Override:
		return exec("UPDATE denials SET status = ? WHERE run_id = ? AND id = ?", DenialApproved, e.RunID, d.DenialID)
	case event.OverrideUsed:
		return exec("UPDATE denials SET status = ? WHERE run_id = ? AND id = ?", DenialUsed, e.RunID, d.DenialID)
	}
	return nil
}

// callID returns the call an event's data is about, if any.
func callID(d event.Data) string {
	switch d := d.(type) {
	case event.Approval:
		return d.CallID
	case event.Tool:
		return d.CallID
	case event.Review:
		return d.CallID
	case event.AutoReview:
		return d.CallID
	case event.Withheld:
		return d.CallID
	case event.Handoff:
		return d.CallID
	case event.Unknown:
		if id, ok := d.Fields["call_id"].(string); ok {
			return id
		}
	}
	return ""
}

// importBatch is how many events Import commits at once.
const importBatch = 500

// Import stores the events of a JSONL transcript (read with event.Read) and
// returns how many of them were new: importing a transcript twice keeps one
// copy of each event, and the second import returns 0. A line that does not
// decode, or an event without an id or run id, is an error; the events
// before it are kept.
func (s *Store) Import(ctx context.Context, r io.Reader) (int, error) {
	stored, n := 0, 0
	var batch []event.Event
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		k, err := s.writeEvents(ctx, batch)
		stored += k
		batch = batch[:0]
		return err
	}
	err := event.Read(r, func(e event.Event) error {
		n++
		if e.ID == "" || e.RunID == "" {
			return fmt.Errorf("event %d of the transcript has no id or run id", n)
		}
		batch = append(batch, e)
		if len(batch) >= importBatch {
			return flush()
		}
		return nil
	})
	// The events read before an error are kept.
	if ferr := flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return stored, fmt.Errorf("store: import: %w", err)
	}
	return stored, nil
}

// Events returns the events of run runID in order of arrival, after the
// event whose id is after ("" = from the start; ErrNotFound if the run has
// no such event), at most limit (<= 0 = all).
func (s *Store) Events(ctx context.Context, runID, after string, limit int) ([]event.Event, error) {
	return runEventsAs(ctx, s, runID, after, limit, func(h Hit) event.Event { return h.Event })
}

// EventLines is Events returning the stored JSON lines, as the transcript
// has them (for an API that sends them on unchanged).
func (s *Store) EventLines(ctx context.Context, runID, after string, limit int) ([]json.RawMessage, error) {
	return runEventsAs(ctx, s, runID, after, limit, func(h Hit) json.RawMessage { return h.Line })
}

// runEventsAs is runEvents with each hit turned into what as makes of it.
func runEventsAs[T any](ctx context.Context, s *Store, runID, after string, limit int, as func(Hit) T) ([]T, error) {
	hits, err := s.runEvents(ctx, runID, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(hits))
	for i, h := range hits {
		out[i] = as(h)
	}
	return out, nil
}

func (s *Store) runEvents(ctx context.Context, runID, after string, limit int) ([]Hit, error) {
	var from int64
	if after != "" {
		err := s.db.QueryRowContext(ctx, s.q("SELECT seq FROM events WHERE run_id = ? AND id = ?"), runID, after).Scan(&from)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("store: event %s of run %s: %w", after, runID, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("store: events of run %s: %w", runID, err)
		}
	}
	q := "SELECT line FROM events WHERE run_id = ? AND seq > ? ORDER BY seq"
	args := []any{runID, from}
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store: events of run %s: %w", runID, err)
	}
	hits, err := scanLines(rows)
	if err != nil {
		return nil, fmt.Errorf("store: events of run %s: %w", runID, err)
	}
	return hits, nil
}

// scanLines reads rows of one column, the event line, and decodes them.
func scanLines(rows *sql.Rows) ([]Hit, error) {
	defer rows.Close()
	out := []Hit{}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		h, err := decodeLine(line)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// decodeLine decodes a stored event line.
func decodeLine(line string) (Hit, error) {
	var e event.Event
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		return Hit{}, fmt.Errorf("a stored event does not decode: %w", err)
	}
	return Hit{Event: e, Line: json.RawMessage(line)}, nil
}

// contains is the SQL of "column contains the text of the next argument".
func (s *Store) contains(column string) string {
	if s.engine == EnginePostgres {
		return "strpos(" + column + ", ?) > 0"
	}
	return "instr(" + column + ", ?) > 0"
}

// containsFold is the condition that column contains a parameter,
// ignoring the case of ASCII letters.
func (s *Store) containsFold(column string) string {
	if s.engine == EnginePostgres {
		return "strpos(lower(" + column + "), lower(?)) > 0"
	}
	return "instr(lower(" + column + "), lower(?)) > 0"
}

// Search returns the events q selects, newest first. Text matches the
// event's text whatever its case, including characters the transcript
// escapes.
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits, _, err := s.search(ctx, q, 0)
	return hits, err
}

// search returns the events q selects, newest first, before the event of
// sequence number before (0: from the newest), with their sequence numbers.
func (s *Store) search(ctx context.Context, q Query, before int64) ([]Hit, []int64, error) {
	var where []string
	var args []any
	if q.Text != "" {
		// The line holds text JSON-escaped as Go writes it (\u0026 for &,
		// \" for a quote, \n for a new line): look for that form, and for
		// the text as typed, ignoring case.
		esc, _ := json.Marshal(q.Text)
		where = append(where, "("+s.containsFold("line")+" OR "+s.containsFold("line")+")")
		args = append(args, q.Text, string(esc[1:len(esc)-1]))
	}
	if q.Kind != "" {
		where, args = append(where, "kind = ?"), append(args, q.Kind)
	}
	if q.RunID != "" {
		where, args = append(where, "run_id = ?"), append(args, q.RunID)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "time >= ?"), append(args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		where, args = append(where, "time < ?"), append(args, q.Until.UnixNano())
	}
	if before > 0 {
		where, args = append(where, "seq < ?"), append(args, before)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	sqlq := "SELECT seq, line FROM events"
	if len(where) > 0 {
		sqlq += " WHERE " + strings.Join(where, " AND ")
	}
	sqlq += " ORDER BY seq DESC LIMIT ?"
	rows, err := s.db.QueryContext(ctx, s.q(sqlq), append(args, limit)...)
	if err != nil {
		return nil, nil, fmt.Errorf("store: search: %w", err)
	}
	defer rows.Close()
	hits := []Hit{}
	var seqs []int64
	for rows.Next() {
		var seq int64
		var line string
		if err := rows.Scan(&seq, &line); err != nil {
			return nil, nil, fmt.Errorf("store: search: %w", err)
		}
		h, err := decodeLine(line)
		if err != nil {
			return nil, nil, fmt.Errorf("store: search: %w", err)
		}
		hits, seqs = append(hits, h), append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: search: %w", err)
	}
	return hits, seqs, nil
}

// Runs returns the runs f selects, newest first.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	return s.runList(ctx, f, nil)
}

// runList returns the runs f selects, newest first, after a position (nil:
// from the newest).
func (s *Store) runList(ctx context.Context, f RunFilter, after *cursor) ([]Run, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	if f.Task != "" {
		where, args = append(where, s.contains("task")), append(args, f.Task)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "started >= ?"), append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		where, args = append(where, "started < ?"), append(args, f.Until.UnixNano())
	}
	if after != nil {
		where, args = append(where, "(started < ? OR (started = ? AND id < ?))"), append(args, after.n, after.n, after.s)
	}
	q := "SELECT id, task, model, status, started, ended FROM runs"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY started DESC, id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	runs, err := s.runs(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	return runs, nil
}

// Run returns run id; ErrNotFound if the store has no event of it.
func (s *Store) Run(ctx context.Context, id string) (Run, error) {
	runs, err := s.runs(ctx, "SELECT id, task, model, status, started, ended FROM runs WHERE id = ?", id)
	if err != nil {
		return Run{}, fmt.Errorf("store: run %s: %w", id, err)
	}
	if len(runs) == 0 {
		return Run{}, fmt.Errorf("store: run %s: %w", id, ErrNotFound)
	}
	return runs[0], nil
}

// runs reads the runs of query q and their counts.
func (s *Store) runs(ctx context.Context, q string, args ...any) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, err
	}
	out := []Run{}
	index := map[string]int{}
	for rows.Next() {
		var r Run
		var started int64
		var ended sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Task, &r.Model, &r.Status, &started, &ended); err != nil {
			rows.Close()
			return nil, err
		}
		r.Started = time.Unix(0, started).UTC()
		if ended.Valid {
			t := time.Unix(0, ended.Int64).UTC()
			r.Ended = &t
		}
		r.Counts = map[string]int{"events": 0, "pending": 0}
		index[r.ID] = len(out)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Counts, a bounded number of runs at a time.
	for start := 0; start < len(out); start += 200 {
		part := out[start:min(start+200, len(out))]
		in := strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")
		ids := make([]any, len(part))
		for i, r := range part {
			ids[i] = r.ID
		}
		if err := s.count(ctx, "SELECT run_id, kind, COUNT(*) FROM events WHERE run_id IN ("+in+") GROUP BY run_id, kind", ids, func(run, kind string, n int) {
			c := out[index[run]].Counts
			c[kind] += n
			c["events"] += n
		}); err != nil {
			return nil, err
		}
		if err := s.count(ctx, "SELECT run_id, 'pending', COUNT(*) FROM requests WHERE status = 'pending' AND run_id IN ("+in+") GROUP BY run_id", ids, func(run, _ string, n int) {
			out[index[run]].Counts["pending"] = n
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Store) count(ctx context.Context, q string, args []any, fn func(run, kind string, n int)) error {
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var run, kind string
		var n int
		if err := rows.Scan(&run, &kind, &n); err != nil {
			return err
		}
		fn(run, kind, n)
	}
	return rows.Err()
}

// insertEventSQL stores one event unless its (run, id) is stored.
const insertEventSQL = `INSERT INTO events (run_id, id, kind, time, call_id, agent, line) VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (run_id, id) DO NOTHING`

// chainWindow bounds how far out of arrival order VerifyChain looks for
// the next line of a run's chain.
const chainWindow = 64

// VerifyChain checks that the stored lines of run runID form the run's
// chain of MACs under key, whole, as the transcript does (SPEC L8): each
// line sealed after the one before it in the chain, every line in it. Rows
// may have arrived slightly out of the chain's order (a person's override
// stored by the server while the run's own batch was on its way): the next
// line is looked for among the next rows. The error is a
// *seal.ChainError whose Line is the row's place in arrival order (from
// 1), naming the event that breaks the chain.
func (s *Store) VerifyChain(ctx context.Context, runID string, key seal.MACKey) error {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT id, line FROM events WHERE run_id = ? ORDER BY seq"), runID)
	if err != nil {
		return fmt.Errorf("store: events of run %s: %w", runID, err)
	}
	var ids, lines []string
	for rows.Next() {
		var id, line string
		if err := rows.Scan(&id, &line); err != nil {
			rows.Close()
			return fmt.Errorf("store: events of run %s: %w", runID, err)
		}
		ids, lines = append(ids, id), append(lines, line)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: events of run %s: %w", runID, err)
	}
	c := seal.NewChain(key)
	used := make([]bool, len(lines))
	first := 0 // the first row not yet in the chain
	for range lines {
		for first < len(lines) && used[first] {
			first++
		}
		found := false
		var why error
		for j := first; j < len(lines) && j < first+chainWindow; j++ {
			if used[j] {
				continue
			}
			err := c.Check(runID, []byte(lines[j]))
			if err == nil {
				used[j], found = true, true
				break
			}
			if j == first {
				why = err
			}
		}
		if !found {
			return &seal.ChainError{Line: first + 1, RunID: runID, Err: fmt.Errorf("event %s: %w", ids[first], why)}
		}
	}
	return nil
}
