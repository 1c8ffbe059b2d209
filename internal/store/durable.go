package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
)

// SyncEvents makes the events committed so far durable before it returns.
// On PostgreSQL events are committed without waiting for the disk
// (synchronous_commit off, see the package comment), so a crash of the
// database could lose the last of them after a server acknowledged them.
// SyncEvents commits one transaction that waits for the disk: the log is
// flushed in order, so every commit before it is flushed with it. (A
// transaction that writes nothing but its commit record is not waited for,
// so it inserts and deletes a row of schema_migrations, of a random
// negative version no migration has, as ProbeWrite does.) A server calls
// it before it acknowledges events it received. On SQLite it does
// nothing: the events' commits survive a crash of any process, the
// server's included.
func (s *Store) SyncEvents(ctx context.Context) error {
	if s.engine != EnginePostgres {
		return nil
	}
	v := -2 - rand.Int64N(1<<62)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES ($1, 'sync', 0)`, v); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = $1`, v)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: making the events durable: %w", err)
	}
	return nil
}
