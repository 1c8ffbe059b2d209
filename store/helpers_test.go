package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
)

// envPostgres names the PostgreSQL database the tests may use; each test
// gets a schema of its own in it.
const envPostgres = "WARDEN_TEST_POSTGRES"

// engine is one database a test runs on: its name and the URL that opens
// it (every Open of the URL reaches the same database).
type engine struct {
	name string
	url  string
}

// engines returns a fresh database of each engine: SQLite in a temporary
// directory and, when WARDEN_TEST_POSTGRES is set, a new schema of that
// PostgreSQL database, dropped when the test ends.
func engines(t testing.TB) []engine {
	t.Helper()
	es := []engine{{EngineSQLite, "sqlite:" + filepath.Join(t.TempDir(), "warden.db")}}
	base := os.Getenv(envPostgres)
	if base == "" {
		t.Logf("PostgreSQL skipped: %s is unset (.ci/run starts a cluster and sets it)", envPostgres)
		return es
	}
	return append(es, engine{EnginePostgres, pgSchema(t, base)})
}

// pgSchema creates a schema in the database at base and returns a URL
// whose connections use it.
func pgSchema(t testing.TB, base string) string {
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
		t.Fatalf("creating a schema in %s: %v", envPostgres, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err == nil {
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

// open opens the store at url, closed when the test ends.
func open(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// forEngine runs fn as a subtest on a fresh store of each engine.
func forEngine(t *testing.T, fn func(t *testing.T, e engine, s *Store)) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) { fn(t, e, open(t, e.url)) })
	}
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// recorder returns a recorder of run id writing to s whose clock steps a
// second per event from start.
func ev(run string, n int, d event.Data) event.Event {
	return event.Event{ID: fmt.Sprintf("%s-%06d", run, n), Time: t0.Add(time.Duration(n) * time.Second), RunID: run, Agent: "main", Data: d}
}

// writeAll writes es to s.
func writeAll(t testing.TB, s *Store, es ...event.Event) {
	t.Helper()
	for _, e := range es {
		if err := s.Write(e); err != nil {
			t.Fatal(err)
		}
	}
}

// run returns the events of a small run: start, a tool call, its end.
func smallRun(id, task, status string, at int) []event.Event {
	return []event.Event{
		ev(id, at+1, event.RunStart{Task: task, Model: "scripted"}),
		ev(id, at+2, event.TurnStart{Input: "go"}),
		ev(id, at+3, event.Approval{CallID: "c1", Approver: "human", Decision: "approve"}),
		ev(id, at+4, event.Tool{CallID: "c1", Function: "bash", Arguments: []byte(`{"cmd":"ls"}`), Result: "a.txt"}),
		ev(id, at+5, event.RunEnd{Status: status}),
	}
}

func isErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
}
