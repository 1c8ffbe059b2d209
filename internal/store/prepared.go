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

// queryOn runs query on tx (the pool when nil), through its prepared
// statement on SQLite.
func (s *Store) queryOn(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	return runOn(ctx, s, tx, query, func(st *sql.Stmt) (*sql.Rows, error) { return st.QueryContext(ctx, args...) },
		func(on conn, text string) (*sql.Rows, error) { return on.QueryContext(ctx, text, args...) })
}

// execOn is queryOn for a statement that returns no rows.
func (s *Store) execOn(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	return runOn(ctx, s, tx, query, func(st *sql.Stmt) (sql.Result, error) { return st.ExecContext(ctx, args...) },
		func(on conn, text string) (sql.Result, error) { return on.ExecContext(ctx, text, args...) })
}

// conn is what runs a query's text: a transaction or the pool.
type conn interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// runOn runs query on tx (the pool when nil): with stmt on its prepared
// statement on SQLite, else with text on its text rebound for the engine.
func runOn[R any](ctx context.Context, s *Store, tx *sql.Tx, query string, stmt func(*sql.Stmt) (R, error), text func(conn, string) (R, error)) (R, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		var zero R
		return zero, err
	}
	switch {
	case st != nil && tx != nil:
		return stmt(tx.StmtContext(ctx, st))
	case st != nil:
		return stmt(st)
	case tx != nil:
		return text(tx, s.q(query))
	}
	return text(s.db, s.q(query))
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
