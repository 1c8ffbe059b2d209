package store

import (
	"context"
	"database/sql"
	"sync"
)

// statements holds the statements of the requests' pool prepared once
// (SQLite): a decision and a waiter's read then skip parsing the SQL on
// every call. PostgreSQL's driver caches its prepared statements by their
// text already.
type statements struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared returns query, rebound for the engine, prepared once on the
// requests' pool on SQLite; nil on PostgreSQL (run the text instead).
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if s.engine != EngineSQLite {
		return nil, nil
	}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st, ok := s.stmts.m[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts.m == nil {
		s.stmts.m = map[string]*sql.Stmt{}
	}
	s.stmts.m[query] = st
	return st, nil
}

// queryOn runs query on q (a transaction, or the pool when nil), through
// its prepared statement on SQLite.
func (s *Store) queryOn(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	switch {
	case st != nil && tx != nil:
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	case st != nil:
		return st.QueryContext(ctx, args...)
	case tx != nil:
		return tx.QueryContext(ctx, s.q(query), args...)
	}
	return s.db.QueryContext(ctx, s.q(query), args...)
}

// execOn is queryOn for a statement that returns no rows.
func (s *Store) execOn(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	switch {
	case st != nil && tx != nil:
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	case st != nil:
		return st.ExecContext(ctx, args...)
	case tx != nil:
		return tx.ExecContext(ctx, s.q(query), args...)
	}
	return s.db.ExecContext(ctx, s.q(query), args...)
}

// close closes the prepared statements.
func (st *statements) close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var err error
	for _, p := range st.m {
		if e := p.Close(); err == nil {
			err = e
		}
	}
	st.m = nil
	return err
}
