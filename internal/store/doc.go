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
// WAL mode with a busy timeout, foreign keys on, and every transaction
// taking the write lock when it begins, so that writers queue instead of
// failing. PostgreSQL (github.com/jackc/pgx/v5) is used when the
// URL is postgres:// or postgresql://, for many machines and replicas.
// Both are reached through database/sql; the SQL differs only where the
// engines do (placeholders, sequences), and both engines' schema is one
// set of migration files: text/templates that name the column types and
// the PostgreSQL-only statements, rendered for each engine.
//
// # Migrations
//
// Migrations are a small embedded runner rather than a kept library: the
// numbered .sql files are embedded (embed.FS), rendered for the engine and
// each applied
// in its own transaction together with its row in schema_migrations, and on
// PostgreSQL under a pg_advisory_lock so that replicas starting together do
// not race. A database whose schema is newer than this binary knows is
// refused with a clear error instead of being written to. The runner is
// about a hundred lines and needs no dependency beyond the two drivers; the
// three things it must get right (one transaction per migration, the lock
// across replicas, refusing a newer schema) are tested here on both
// engines, where a library would bring its own CLI, dialect layer and
// conventions for what this package needs once.
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
// A *Store is an event.Sink: Write stores one event in its own
// transaction, committed before it returns, as its exact JSON line plus
// indexed columns (run, id, kind, time, call id, agent) and an arrival
// sequence; the derived tables (runs, denials, turns) change in the same
// transaction. Writing the same (run, id) twice keeps one row, so Import of
// the same transcript is idempotent. Event commits survive a crash of the
// process that made them (the test kills a writer with SIGKILL) but do not
// wait for the disk: SQLite writes them on a connection with
// synchronous=NORMAL, PostgreSQL with synchronous_commit off. That is the
// durability of the JSONL transcript, which is written beside the store and
// stays the record of a run; waiting for the disk on every event would
// multiply the cost of a run. Requests and decisions do wait for the disk
// (synchronous=FULL; PostgreSQL's default), since a decision must be
// durable before it is answered (S3). A server that acknowledges events it
// received calls SyncEvents first, so that what it acknowledged survives a
// crash of PostgreSQL too.
//
// A run that writes many events uses a Buffer (Store.Buffer): Write queues
// the event and a goroutine commits whatever has queued in one transaction
// (group commit), so the run does not wait for the store; Close commits the
// rest. After a crash, importing the run's transcript again completes the
// store.
package store
