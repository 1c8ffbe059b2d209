package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrExists is returned for a name already taken.
var ErrExists = errors.New("already exists")

// Operator is a named person whose credential decides requests (SPEC S4).
// The store keeps the SHA-256 of the credential (hex), never the
// credential.
type Operator struct {
	Name    string    `json:"name"`
	Hash    string    `json:"-"`
	Created time.Time `json:"created"`
}

// AddOperator stores operator name with the hash of their credential;
// ErrExists when the name or the hash is taken.
func (s *Store) AddOperator(ctx context.Context, name, hash string) error {
	if name == "" || hash == "" {
		return errors.New("store: an operator needs a name and a credential hash")
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM operators WHERE name = ? OR hash = ?"), name, hash).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrExists
		}
		_, err := tx.ExecContext(ctx, s.q("INSERT INTO operators (name, hash, created) VALUES (?, ?, ?)"), name, hash, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("store: adding operator %s: %w", name, err)
	}
	return nil
}

// Operators returns every operator, by name.
func (s *Store) Operators(ctx context.Context) ([]Operator, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name, hash, created FROM operators ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("store: operators: %w", err)
	}
	defer rows.Close()
	var out []Operator
	for rows.Next() {
		var o Operator
		var created int64
		if err := rows.Scan(&o.Name, &o.Hash, &created); err != nil {
			return nil, fmt.Errorf("store: operators: %w", err)
		}
		o.Created = time.Unix(0, created).UTC()
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: operators: %w", err)
	}
	return out, nil
}

// OperatorByHash returns the operator whose credential hashes to hash;
// ErrNotFound if none.
func (s *Store) OperatorByHash(ctx context.Context, hash string) (Operator, error) {
	var o Operator
	var created int64
	err := s.db.QueryRowContext(ctx, s.q("SELECT name, hash, created FROM operators WHERE hash = ?"), hash).Scan(&o.Name, &o.Hash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Operator{}, fmt.Errorf("store: operator: %w", ErrNotFound)
	}
	if err != nil {
		return Operator{}, fmt.Errorf("store: operator: %w", err)
	}
	o.Created = time.Unix(0, created).UTC()
	return o, nil
}

// ClaimRun makes owner the owner of run id unless it has one, and reports
// whether owner owns it now: a run credential acts only on its own runs
// (SPEC S4), and the first client to name a run owns it.
func (s *Store) ClaimRun(ctx context.Context, id, owner string) (bool, error) {
	if id == "" || owner == "" {
		return false, nil
	}
	if got, err := s.RunOwner(ctx, id); err == nil {
		return got == owner, nil
	} else if !errors.Is(err, ErrNotFound) {
		return false, err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q("INSERT INTO run_owners (run_id, owner, claimed) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING"),
			id, owner, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: claiming run %s: %w", id, err)
	}
	got, err := s.RunOwner(ctx, id)
	if err != nil {
		return false, err
	}
	return got == owner, nil
}

// RunOwner returns the owner of run id; ErrNotFound when no client has
// claimed it.
func (s *Store) RunOwner(ctx context.Context, id string) (string, error) {
	var owner string
	err := s.db.QueryRowContext(ctx, s.q("SELECT owner FROM run_owners WHERE run_id = ?"), id).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: owner of run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: owner of run %s: %w", id, err)
	}
	return owner, nil
}
