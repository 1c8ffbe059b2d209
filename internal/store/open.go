package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver

	"github.com/wardenhq/warden/internal/wardenhome"
)

//go:embed migrations
var migrationFiles embed.FS

// Open opens (creating if needed) the store at url and applies pending
// migrations. "" is SQLite at $WARDEN_HOME/warden.db; "sqlite:PATH",
// "file:PATH" or a plain path is SQLite at PATH; "postgres://…" or
// "postgresql://…" is PostgreSQL. The default store first imports what
// the hooks' spool marks (ImportSpool).
func Open(ctx context.Context, url string) (*Store, error) {
	s := &Store{url: url, hub: newHub()}
	var err error
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		s.engine = EnginePostgres
		s.db, err = openPostgres(url)
		if err == nil {
			s.evdb, err = openPostgres(withParam(url, "synchronous_commit", "off"))
		}
	default:
		s.engine = EngineSQLite
		if s.path, err = sqlitePath(url); err == nil {
			s.db, err = sql.Open("sqlite", sqliteDSN(s.path, "FULL"))
			if err == nil {
				s.evdb, err = sql.Open("sqlite", sqliteDSN(s.path, "NORMAL"))
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	// Bounded pools: PostgreSQL's default allows 100 clients in all, and
	// SQLite has one writer at a time.
	dbConns, evConns := poolSizes(s.engine)
	s.db.SetMaxOpenConns(dbConns)
	s.db.SetMaxIdleConns(dbConns)
	s.evdb.SetMaxOpenConns(evConns)
	s.evdb.SetMaxIdleConns(evConns)
	if err := s.db.PingContext(ctx); err != nil {
		s.closePools()
		return nil, fmt.Errorf("store: opening the %s database: %w", s.engine, err)
	}
	if err := migrate(ctx, s.db, s.engine); err != nil {
		s.closePools()
		return nil, fmt.Errorf("store: %w", err)
	}
	if s.engine == EngineSQLite {
		s.insertEvent, err = s.evdb.PrepareContext(ctx, insertEventSQL)
		if err != nil {
			s.closePools()
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	if s.engine == EnginePostgres {
		if err := s.startListener(ctx); err != nil {
			s.closePools()
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	if s.Default() {
		// What hooks left in the spool is read first (internal/spool).
		if _, err := s.ImportSpool(ctx); err != nil {
			s.closePools()
			return nil, err
		}
	}
	return s, nil
}

// Store is warden's shared state on one database. Its methods are safe for
// concurrent use; several Stores, in this process or others, may share one
// database.
type Store struct {
	// db holds the requests and is read from; its commits are durable
	// when they return (SQLite synchronous=FULL). evdb writes events: a
	// pool with synchronous=NORMAL (SQLite) or synchronous_commit off
	// (PostgreSQL); see the package comment.
	db   *sql.DB
	evdb *sql.DB
	// insertEvent (SQLite) stores one event, prepared once on evdb.
	insertEvent *sql.Stmt
	// stmts are the statements of db prepared once (SQLite).
	stmts statements
	// revs wakes this process's waiters of requests that other processes
	// changed (SQLite).
	revs revPoller

	// knownRuns are the runs this Store has made sure have a row (runs are
	// never deleted).
	runsMu    sync.Mutex
	knownRuns map[string]bool
	engine    string
	url       string
	path      string // the SQLite database's file
	hub       *hub

	// wmu serializes this process's SQLite writers, so that they queue
	// here rather than in SQLite's busy handler, which sleeps.
	wmu sync.Mutex

	// PostgreSQL: the LISTEN connection's channel and its goroutine.
	channel  string
	stop     context.CancelFunc
	listened sync.WaitGroup
	closeMu  sync.Once
}

// poolSizes are the connections of the pools db and evdb on engine.
func poolSizes(engine string) (db, evdb int) {
	if engine == EnginePostgres {
		return 16, 4
	}
	return 8, 2
}

// Close closes the store's connections and stops its listener.
func (s *Store) Close() error {
	var err error
	s.closeMu.Do(func() {
		if s.stop != nil {
			s.stop()
			s.listened.Wait()
		}
		s.revs.stop()
		err = s.closePools()
	})
	return err
}

// closePools closes the store's pools.
func (s *Store) closePools() error {
	var err error
	if s.insertEvent != nil {
		err = s.insertEvent.Close()
	}
	if e := s.stmts.close(); err == nil {
		err = e
	}
	if e := s.db.Close(); err == nil {
		err = e
	}
	if s.evdb != nil && s.evdb != s.db {
		if e := s.evdb.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Engine returns "sqlite" or "postgres".
func (s *Store) Engine() string { return s.engine }

// sqlitePath returns the file of a SQLite URL.
func sqlitePath(url string) (string, error) {
	p := url
	switch {
	case url == "":
		home := wardenhome.Home()
		if home == "" {
			return "", errors.New("no home directory for the default database: set WARDEN_HOME or WARDEN_DB")
		}
		p = filepath.Join(home, "warden.db")
	case strings.HasPrefix(url, "sqlite://"):
		p = strings.TrimPrefix(url, "sqlite://")
	case strings.HasPrefix(url, "sqlite:"):
		p = strings.TrimPrefix(url, "sqlite:")
	case strings.HasPrefix(url, "file:"):
		p = strings.TrimPrefix(url, "file:")
	}
	if p == "" {
		return "", fmt.Errorf("%q names no database file", url)
	}
	if strings.ContainsAny(p, "?#") {
		return "", fmt.Errorf("database file %q: the name may not contain ? or #", p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	if err := singleName(p); err != nil {
		return "", err
	}
	if err := privateFiles(p); err != nil {
		return "", err
	}
	return p, nil
}

// singleName refuses a database whose file (or its WAL or shared-memory
// file) has another name, a hard link: the sandbox hides warden's state by
// path, not by inode (SPEC G16), so through that other name a tool could
// read the store, or write requests and their decisions into it.
func singleName(p string) error {
	for _, f := range []string{p, p + "-wal", p + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			continue // not there yet: SQLite creates it
		}
		if n := wardenhome.Links(fi); n > 1 {
			return fmt.Errorf("database file %s has %d names (hard links), and the sandbox hides warden's state by path, not by file: "+
				"anything that can read another name can read or change the store, so warden will not open it. "+
				"Remove the other names (find them with: find / -xdev -samefile %s), or move the database aside to start a new one", f, n, f)
		}
	}
	return nil
}

// privateFiles makes the database file p, and its -wal and -shm files
// when they exist, readable by their owner alone (0600): whoever reads the
// store reads every call's arguments, and whoever writes it decides. A
// missing p is created 0600, so that SQLite, which gives the -wal and -shm
// files the mode of the database, creates them 0600 too.
func privateFiles(p string) error {
	if p == ":memory:" {
		return nil // no file
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("database file %s: %w", p, err)
	}
	f.Close()
	for _, name := range []string{p, p + "-wal", p + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(name, fi.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("database file %s is readable by others (%v) and cannot be made private: %w", name, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// sqliteDSN is the modernc.org/sqlite data source of the file p: WAL, a
// busy timeout, foreign keys, the synchronous mode sync (FULL: a commit is
// on disk when it returns; NORMAL: it survives a crash of the process, not
// of the machine) and transactions that take the write lock when they
// begin.
func sqliteDSN(p, sync string) string {
	return p + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(" + sync + ")&_txlock=immediate"
}

// A migration is one numbered .sql file, rendered for an engine.
type migration struct {
	version int
	name    string
	sql     string
}

// dialect is what a migration's template says differently per engine.
type dialect struct {
	Int       string // a 64-bit integer column
	SerialKey string // an integer primary key that grows with each row
	Postgres  bool
}

// dialects are the engines' dialects.
var dialects = map[string]dialect{
	EngineSQLite:   {Int: "INTEGER", SerialKey: "INTEGER PRIMARY KEY AUTOINCREMENT"},
	EnginePostgres: {Int: "BIGINT", SerialKey: "BIGSERIAL PRIMARY KEY", Postgres: true},
}

// migrations returns the migrations in order, each a text/template of
// migrations/ rendered for engine: one schema for both engines, so that
// they cannot drift apart.
func migrations(engine string) ([]migration, error) {
	d, ok := dialects[engine]
	if !ok {
		return nil, fmt.Errorf("no migrations for the engine %q", engine)
	}
	ents, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("migration file %s is not named NNNN_name.sql", e.Name())
		}
		b, err := fs.ReadFile(migrationFiles, path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		tmpl, err := template.New(e.Name()).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		var sql strings.Builder
		if err := tmpl.Execute(&sql, d); err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{v, e.Name(), sql.String()})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrationLock is the PostgreSQL advisory lock key under which replicas
// migrate one at a time ("warden" in ASCII).
const migrationLock = 0x77617264656e

// migrate applies the engine's pending migrations, each in its own
// transaction with its schema_migrations row. A database at a version this
// binary does not know is an error.
func migrate(ctx context.Context, db *sql.DB, engine string) error {
	// The common case first: a database at this binary's version, read in
	// one query, with no migration rendered and no lock taken.
	if latest, err := latestMigration(); err != nil {
		return fmt.Errorf("migrations: %w", err)
	} else if have, err := schemaVersion(ctx, db); err == nil && have == latest {
		return nil
	}
	ms, err := migrations(engine)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if engine == EnginePostgres {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
			return fmt.Errorf("taking the migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock) //nolint:errcheck // the session ends with the connection anyway
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("schema_migrations: %w", err)
	}
	latest := ms[len(ms)-1].version
	for _, m := range ms {
		if err := apply(ctx, conn, engine, m, latest); err != nil {
			return err
		}
	}
	return nil
}

// latestMigration returns the version of the newest migration, read from
// the files' names.
func latestMigration() (int, error) {
	ents, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return 0, err
	}
	latest := 0
	for _, e := range ents {
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return 0, fmt.Errorf("migration file %s is not named NNNN_name.sql", e.Name())
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// schemaVersion returns the version of the database's schema: its latest
// migration applied. An error (no schema_migrations table yet) says
// nothing about it.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var have sql.NullInt64
	err := db.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&have)
	return int(have.Int64), err
}

// apply applies m unless the database already has it.
func apply(ctx context.Context, conn *sql.Conn, engine string, m migration, latest int) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	var have sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&have); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if int(have.Int64) > latest {
		return fmt.Errorf("the database's schema is at version %d, newer than this warden knows (%d): use a newer warden", have.Int64, latest)
	}
	if int(have.Int64) >= m.version {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, rebind(engine, "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)"),
		m.version, m.name, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	return nil
}

// rebind turns the ? placeholders of q into PostgreSQL's $1, $2, … The
// store's SQL has no ? inside literals.
func rebind(engine, q string) string {
	if engine != EnginePostgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// q returns the query q for the store's engine.
func (s *Store) q(q string) string { return rebind(s.engine, q) }

// withParam returns the PostgreSQL URL u with the query parameter name
// set to value (a run-time parameter of its connections).
func withParam(u, name, value string) string {
	p, err := neturl.Parse(u)
	if err != nil {
		return u // Open reports the bad URL
	}
	q := p.Query()
	q.Set(name, value)
	p.RawQuery = q.Encode()
	return p.String()
}

// listenChannel is the NOTIFY channel of a schema: stores in different
// schemas of one database do not hear each other.
func listenChannel(schema string) string {
	if schema == "" || schema == "public" {
		return "warden"
	}
	c := "warden_" + schema
	if len(c) > 63 {
		c = c[:63]
	}
	return c
}
