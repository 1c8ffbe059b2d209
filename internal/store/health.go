package store

import (
	"context"
	"fmt"
)

// ProbeWrite writes to the database and returns why it could not: a
// read-only file, a full disk, a lost connection. It inserts a row into
// schema_migrations and deletes it in one transaction, so that nothing
// changes but a real write (on SQLite, a commit to the log) takes place.
// When the write fails the pools' idle connections are dropped, so that
// the next ones are opened afresh: a connection opened while the file was
// read-only stays read-only after the permissions return.
func (s *Store) ProbeWrite(ctx context.Context) error {
	if s.engine == EngineSQLite {
		s.wmu.Lock()
		defer s.wmu.Unlock()
	}
	if err := s.probeWrite(ctx); err != nil {
		s.dropIdle()
		return fmt.Errorf("store: probe write: %w", err)
	}
	return nil
}

// probeWrite makes the write of ProbeWrite.
func (s *Store) probeWrite(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, name, applied) VALUES (?, 'probe', 0)`), probeVersion); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM schema_migrations WHERE version = ?`), probeVersion); err != nil {
		return err
	}
	return tx.Commit()
}

// probeVersion is the schema_migrations row of ProbeWrite, which no
// migration has.
const probeVersion = -1

// dropIdle closes the idle connections of the store's pools.
func (s *Store) dropIdle() {
	dbConns, evConns := poolSizes(s.engine)
	s.db.SetMaxIdleConns(0)
	s.db.SetMaxIdleConns(dbConns)
	if s.evdb != s.db {
		s.evdb.SetMaxIdleConns(0)
		s.evdb.SetMaxIdleConns(evConns)
	}
}
