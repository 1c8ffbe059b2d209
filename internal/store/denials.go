package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wardenhq/warden/event"
)

// Denials returns the latest auto-review denials — at most event.MaxDenials
// per run, as the gate keeps — of run runID, or of every run when runID is
// "", newest first. A denial comes from the auto_review event that recorded
// it (its denial id); an override event of it makes it approved, and the
// override's use makes it used. The store does not verify their MACs: the
// gate does, when the run resumes.
func (s *Store) Denials(ctx context.Context, runID string) ([]Denial, error) {
	where, args := "", []any{}
	if runID != "" {
		where, args = "WHERE run_id = ?", append(args, runID)
	}
	q := `SELECT run_id, id, call_id, action, risk_level, rationale, time, status FROM (
		SELECT d.*, ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY event_seq DESC) AS n FROM denials d ` + where + `
	) x WHERE n <= ? ORDER BY time DESC, event_seq DESC`
	rows, err := s.db.QueryContext(ctx, s.q(q), append(args, event.MaxDenials)...)
	if err != nil {
		return nil, fmt.Errorf("store: denials: %w", err)
	}
	defer rows.Close()
	out := []Denial{}
	for rows.Next() {
		var d Denial
		var act string
		var t int64
		if err := rows.Scan(&d.RunID, &d.ID, &d.CallID, &act, &d.RiskLevel, &d.Rationale, &t, &d.Status); err != nil {
			return nil, fmt.Errorf("store: denials: %w", err)
		}
		d.Action = json.RawMessage(act)
		d.Time = time.Unix(0, t).UTC()
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: denials: %w", err)
	}
	return out, nil
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
	return Denial{}, fmt.Errorf("store: denial %s of run %s among its last %d: %w", id, runID, event.MaxDenials, ErrNotFound)
}
