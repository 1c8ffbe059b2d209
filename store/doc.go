// Package store keeps what warden's control plane shares between processes
// and machines (SPEC S1, S3): runs, every transcript event, the requests
// that wait for a person (approval, review and boundary requests, with the
// choices offered, a deadline and a fail-safe outcome) and their decisions,
// the auto-review denials and the overrides a person grants on them, and the
// circuit breaker's state per turn.
//
// # Engines
//
// One schema, two engines. SQLite (modernc.org/sqlite, pure Go, no cgo) is
// the default: a single file, by default $WARDEN_HOME/warden.db, opened in
// WAL mode with a busy timeout, foreign keys on, synchronous=FULL, and every
// transaction taking the write lock when it begins, so that writers queue
// instead of failing. PostgreSQL (github.com/jackc/pgx/v5) is used when the
// URL is postgres:// or postgresql://, for many machines and replicas.
// Both are reached through database/sql; the SQL differs only where the
// engines do (placeholders, sequences), and each engine has its own
// migration files.
//
// # Migrations
//
// Migrations are a small embedded runner rather than a kept library: the
// numbered .sql files of each engine are embedded (embed.FS), each applied
// in its own transaction together with its row in schema_migrations, and on
// PostgreSQL under a pg_advisory_lock so that replicas starting together do
// not race. A database whose schema is newer than this binary knows is
// refused with a clear error instead of being written to. The runner is
// about a hundred lines, needs no dependency beyond the drivers, and keeps
// the SQLite build free of the drivers and CLI that a library such as
// goose or golang-migrate would bring along.
//
// # Exactly once
//
// Decide is a conditional UPDATE … WHERE id = ? AND status = 'pending'
// inside a transaction; the decision is recorded only when exactly one row
// was affected, and the transaction is committed before Decide returns, so
// a decision is durable before it is answered (S3). Any number of deciders,
// in this process or in others sharing the database, race on that one
// statement: one wins, the others get ErrNotPending. Expiry to the
// fail-safe outcome and withdrawal go through the same conditional update.
//
// # Learning of decisions
//
// Within one process, a decision wakes its waiters at once. Across
// processes, PostgreSQL sends a NOTIFY in the same transaction as the
// update (so it is delivered only once the change is committed) to a
// dedicated LISTEN connection of each Store, whose payload names the
// changed rows, which are then re-read. SQLite has no notifications: Wait
// and Changes poll, backing off from 5 ms to 200 ms while nothing changes.
//
// # Events
//
// A *Store is an event.Sink: each event is written in its own transaction,
// committed before Write returns, as its exact JSON line plus indexed
// columns (run, id, kind, time, call id, agent) and an arrival sequence.
// Writing the same (run, id) twice keeps one row, so Import of the same
// transcript is idempotent. The derived tables (runs, denials, turns) are
// updated in that same transaction.
package store
