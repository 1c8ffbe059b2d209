package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/internal/storetest"
)

// Migrations: a fresh database gets every one, opening again applies
// none, stores opening together migrate once, and a database whose schema
// is newer than this binary knows is refused, clearly (SPEC S1).
func TestS1_Migrations(t *testing.T) {
	ctx := context.Background()
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		ms, err := migrations(e.Name)
		if err != nil || len(ms) == 0 {
			t.Fatalf("migrations: %v", err)
		}
		latest := ms[len(ms)-1].version
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(ctx, e.URL)
				if err == nil {
					s.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("concurrent open: %v", err)
			}
		}
		s := open(t, e.URL)
		var n, v int
		if err := s.db.QueryRow("SELECT COUNT(*), MAX(version) FROM schema_migrations").Scan(&n, &v); err != nil || n != len(ms) || v != latest {
			t.Fatalf("schema_migrations: %d rows, version %d, %v", n, v, err)
		}
		s.Close()
		s = open(t, e.URL) // again: nothing applied
		if err := s.db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil || n != len(ms) {
			t.Fatalf("reopened: %d rows, %v", n, err)
		}
		if _, err := s.db.Exec(s.q("INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, 0)"), latest+1, "9999_future.sql"); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = Open(ctx, e.URL)
		if err == nil || !strings.Contains(err.Error(), "newer than this warden knows") {
			t.Errorf("a newer schema: %v", err)
		}
	})
}

// URL: the flag, else $WARDEN_DB, else the default.
func TestS1_URL(t *testing.T) {
	t.Setenv(envDB, "postgres://db/warden")
	if URL("x.db") != "x.db" || URL("") != "postgres://db/warden" {
		t.Error("the flag or WARDEN_DB is not used")
	}
	t.Setenv(envDB, "")
	if URL("") != "" {
		t.Error("no default")
	}
	home := t.TempDir()
	t.Setenv("WARDEN_HOME", home)
	s := open(t, "")
	if s.Engine() != EngineSQLite {
		t.Errorf("default engine %s", s.Engine())
	}
	if p, _ := sqlitePath(""); p != home+"/warden.db" {
		t.Errorf("default file %s", p)
	}
	for _, u := range []string{"sqlite:" + home + "/a.db", "file:" + home + "/b.db", home + "/c.db"} {
		if p, err := sqlitePath(u); err != nil || !strings.HasPrefix(p, home) {
			t.Errorf("%s → %s, %v", u, p, err)
		}
	}
}

// The migrations are one template for both engines: each renders, with
// nothing of the template left, in the storetest.Engine's own types (SPEC S1).
func TestS1_MigrationsRenderForEachEngine(t *testing.T) {
	for _, tc := range []struct {
		engine      string
		has, hasNot []string
	}{
		{EngineSQLite, []string{"seq     INTEGER PRIMARY KEY AUTOINCREMENT", "started INTEGER NOT NULL"}, []string{"BIGINT", "BIGSERIAL", "SEQUENCE"}},
		{EnginePostgres, []string{"seq     BIGSERIAL PRIMARY KEY", "started BIGINT NOT NULL", "CREATE SEQUENCE requests_rev_seq;"}, []string{"AUTOINCREMENT", " INTEGER"}},
	} {
		ms, err := migrations(tc.engine)
		if err != nil || len(ms) == 0 {
			t.Fatalf("%s: migrations: %v", tc.engine, err)
		}
		for _, m := range ms {
			if strings.Contains(m.sql, "{{") || strings.Contains(m.sql, "<no value>") {
				t.Errorf("%s %s: template left in the SQL", tc.engine, m.name)
			}
		}
		first := ms[0].sql
		for _, s := range tc.has {
			if !strings.Contains(first, s) {
				t.Errorf("%s: 0001_init.sql lacks %q", tc.engine, s)
			}
		}
		for _, s := range tc.hasNot {
			if strings.Contains(first, s) {
				t.Errorf("%s: 0001_init.sql has %q", tc.engine, s)
			}
		}
	}
	if _, err := migrations("mysql"); err == nil {
		t.Error("an unknown engine got migrations")
	}
}

// storetest names the engines as the store does.
func TestS1_StoretestNamesTheEngines(t *testing.T) {
	if storetest.SQLite != EngineSQLite || storetest.Postgres != EnginePostgres {
		t.Fatalf("storetest names %q and %q, the store %q and %q", storetest.SQLite, storetest.Postgres, EngineSQLite, EnginePostgres)
	}
}

// G16: the store refuses to open a database file with another name (a
// hard link, which the sandbox does not hide), with an error that says so.
func TestG16_StoreRefusesLinkedDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state", "warden.db")
	s, err := Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(db, filepath.Join(dir, "planted.db")); err != nil {
		t.Skipf("no hard links: %v", err)
	}
	s, err = Open(context.Background(), "sqlite:"+db)
	if err == nil {
		s.Close()
		t.Fatal("a database with two names was opened")
	}
	if !strings.Contains(err.Error(), "2 names (hard links)") {
		t.Errorf("error %v", err)
	}
}
