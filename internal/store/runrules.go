package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RunRule is an exact command prefix an operator allowed for one run when
// approving one of its calls ("allow this exact prefix for this run",
// issue 21 item 4). The store keeps it; the server decides which later
// requests it covers.
type RunRule struct {
	ID    int64  `json:"id"`
	RunID string `json:"run_id"`
	// Function is the tool whose calls the rule covers, Arg the argument
	// holding the script (cmd, command or script).
	Function string `json:"function"`
	Arg      string `json:"arg"`
	// Prefix is the exact prefix, word by word.
	Prefix []string `json:"prefix"`
	// Rest is the approved call's other arguments (canonical JSON): a
	// covered call repeats them exactly.
	Rest json.RawMessage `json:"rest"`
	// CreatedBy names the operator who allowed it (decided_by of the
	// approval), RequestID the request they approved.
	CreatedBy string    `json:"created_by"`
	RequestID string    `json:"request_id"`
	Created   time.Time `json:"created"`
}

// AddRunRule stores r, setting its ID and Created.
func (s *Store) AddRunRule(ctx context.Context, r *RunRule) error {
	if r.RunID == "" || r.Function == "" || r.Arg == "" || len(r.Prefix) == 0 || r.CreatedBy == "" {
		return errors.New("store: a run rule needs a run, a tool, its argument, a prefix and who allowed it")
	}
	prefix, err := json.Marshal(r.Prefix)
	if err != nil {
		return fmt.Errorf("store: run rule: %w", err)
	}
	rest := r.Rest
	if len(rest) == 0 {
		rest = json.RawMessage("{}")
	}
	now := time.Now().UTC()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, s.q(`INSERT INTO run_rules (run_id, function, arg, prefix, rest, created_by, request_id, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`), r.RunID, r.Function, r.Arg, string(prefix), string(rest), r.CreatedBy, r.RequestID, now.UnixNano()).Scan(&r.ID)
	})
	if err != nil {
		return fmt.Errorf("store: adding a rule to run %s: %w", r.RunID, err)
	}
	r.Created = now
	return nil
}

// RunRules returns the rules of run runID, oldest first.
func (s *Store) RunRules(ctx context.Context, runID string) ([]RunRule, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, run_id, function, arg, prefix, rest, created_by, request_id, created
		FROM run_rules WHERE run_id = ? ORDER BY id`), runID)
	if err != nil {
		return nil, fmt.Errorf("store: rules of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []RunRule
	for rows.Next() {
		var r RunRule
		var prefix, rest string
		var created int64
		if err := rows.Scan(&r.ID, &r.RunID, &r.Function, &r.Arg, &prefix, &rest, &r.CreatedBy, &r.RequestID, &created); err != nil {
			return nil, fmt.Errorf("store: rules of run %s: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(prefix), &r.Prefix); err != nil {
			return nil, fmt.Errorf("store: rules of run %s: prefix: %w", runID, err)
		}
		r.Rest, r.Created = json.RawMessage(rest), time.Unix(0, created).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: rules of run %s: %w", runID, err)
	}
	return out, nil
}
