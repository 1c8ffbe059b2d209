package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/wardenhq/warden/internal/ledger"
)

// Denials returns the latest auto-review denials — at most ledger.MaxDenials
// per run, as the gate keeps — of run runID, or of every run when runID is
// "", newest first. A denial comes from the auto_review event that recorded
// it (its denial id); an override event of it makes it approved, and the
// override's use makes it used. The store does not verify their MACs: the
// gate does, when the run resumes.
func (s *Store) Denials(ctx context.Context, runID string) ([]Denial, error) {
	ds, _, err := s.denialList(ctx, runID, nil, 0)
	return ds, err
}

// denialList returns the denials of Denials after a position (nil: from
// the newest), at most limit (<= 0: all), with their events' sequence
// numbers.
func (s *Store) denialList(ctx context.Context, runID string, after *cursor, limit int) ([]Denial, []int64, error) {
	where, args := "", []any{}
	if runID != "" {
		where, args = "WHERE run_id = ?", append(args, runID)
	}
	outer := "n <= ?"
	args = append(args, ledger.MaxDenials)
	if after != nil {
		seq, err := strconv.ParseInt(after.s, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("store: denials: %w", ErrCursor)
		}
		outer += " AND (time < ? OR (time = ? AND event_seq < ?))"
		args = append(args, after.n, after.n, seq)
	}
	q := `SELECT run_id, id, call_id, action, risk_level, rationale, time, status, event_seq FROM (
		SELECT d.*, ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY event_seq DESC) AS n FROM denials d ` + where + `
	) x WHERE ` + outer + ` ORDER BY time DESC, event_seq DESC`
	if limit > 0 {
		q, args = q+" LIMIT ?", append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(q), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("store: denials: %w", err)
	}
	defer rows.Close()
	out := []Denial{}
	var seqs []int64
	for rows.Next() {
		var d Denial
		var act string
		var t, seq int64
		if err := rows.Scan(&d.RunID, &d.ID, &d.CallID, &act, &d.RiskLevel, &d.Rationale, &t, &d.Status, &seq); err != nil {
			return nil, nil, fmt.Errorf("store: denials: %w", err)
		}
		d.Action = json.RawMessage(act)
		d.Time = time.Unix(0, t).UTC()
		out, seqs = append(out, d), append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: denials: %w", err)
	}
	return out, seqs, nil
}

// Denial returns denial id of run runID; ErrNotFound if the store has none
// (the server approves from it).
func (s *Store) Denial(ctx context.Context, runID, id string) (Denial, error) {
	ds, err := s.Denials(ctx, runID)
	if err != nil {
		return Denial{}, err
	}
	for _, d := range ds {
		if d.ID == id {
			return d, nil
		}
	}
	return Denial{}, fmt.Errorf("store: denial %s of run %s among its last %d: %w", id, runID, ledger.MaxDenials, ErrNotFound)
}
