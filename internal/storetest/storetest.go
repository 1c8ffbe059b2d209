// Package storetest gives tests a fresh database of each engine the store
// runs on: SQLite in a temporary directory and, when WARDEN_TEST_POSTGRES
// names a PostgreSQL database (.ci/run starts a cluster and sets it), a new
// schema of that database, dropped when the test ends. It imports no
// warden package, so that package store's own tests can use it.
package storetest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvPostgres names the PostgreSQL database the tests may use; each test
// gets a schema of its own in it.
const EnvPostgres = "WARDEN_TEST_POSTGRES"

// The engines' names, as store.EngineSQLite and store.EnginePostgres spell
// them (package store's tests check that they agree).
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Engine is one database a test runs on: its engine's name and the URL
// that opens it (every store.Open of the URL reaches the same database).
type Engine struct {
	Name string
	URL  string
}

// Engines returns a fresh database of each engine: SQLite always,
// PostgreSQL when EnvPostgres is set (logged as skipped otherwise).
func Engines(t testing.TB) []Engine {
	t.Helper()
	es := []Engine{{SQLite, "sqlite:" + filepath.Join(t.TempDir(), "warden.db")}}
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Logf("PostgreSQL skipped: %s is unset (.ci/run starts a cluster and sets it)", EnvPostgres)
		return es
	}
	return append(es, Engine{Postgres, Schema(t, base)})
}

// Run runs fn as a subtest named after each engine, on a fresh database
// of that engine (see Engines).
func Run(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range Engines(t) {
		t.Run(e.Name, func(t *testing.T) { fn(t, e) })
	}
}

// Schema creates a schema of a random name in the PostgreSQL database at
// base, dropped when the test ends, and returns a URL whose connections
// use it.
func Schema(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("creating a schema in %s: %v", EnvPostgres, err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("pgx", base); err == nil {
			db.Exec("DROP SCHEMA " + schema + " CASCADE")
			db.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
