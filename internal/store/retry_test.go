package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// A database blip breaks every pooled connection (PostgreSQL ends them,
// as a restart or an administrator does): the store's next reads, submits,
// decisions and events all succeed, each broken connection is dropped, and
// the request decided across the blip is decided once (issue 21: a broken
// pooled connection retried once and dropped).
func TestS3_BrokenPooledConnectionsDropped(t *testing.T) {
	base := os.Getenv(storetest.EnvPostgres)
	if base == "" {
		base = storetest.StartPostgres(t).URL
	}
	app := fmt.Sprintf("warden_blip_%x", rand.Uint64())
	u, err := url.Parse(storetest.Schema(t, base))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s := open(t, u.String())
	ctx := context.Background()

	// Fill both pools with idle connections.
	fill := func() error {
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for _, db := range []*sql.DB{s.db, s.evdb} {
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := db.ExecContext(ctx, "SELECT pg_sleep(0.05)"); err != nil {
						errs <- err
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		return errors.Join(<-errs)
	}
	if err := fill(); err != nil {
		t.Fatal(err)
	}
	r := Request{Kind: KindApproval, RunID: "blip", Call: Call{ID: "c1", Function: "bash", Arguments: []byte(`{"cmd":"ls"}`)}}
	if err := s.Submit(ctx, &r); err != nil {
		t.Fatal(err)
	}

	// The blip: PostgreSQL ends every connection of the store.
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var ended int
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&ended); err != nil {
		t.Fatal(err)
	}
	if ended < 17 {
		t.Fatalf("ended %d connections, want the pools' (at least 17)", ended)
	}
	time.Sleep(100 * time.Millisecond)

	// Everything works at once, without an error.
	if got, err := s.Request(ctx, r.ID); err != nil || got.Status != StatusPending {
		t.Fatalf("reading after the blip: %+v, %v", got, err)
	}
	if _, err := s.Requests(ctx, StatusPending); err != nil {
		t.Fatalf("listing after the blip: %v", err)
	}
	r2 := Request{ID: fmt.Sprintf("blip-%016x", rand.Uint64()), Kind: KindApproval, RunID: "blip", Call: Call{ID: "c2", Function: "bash"}}
	if err := s.Submit(ctx, &r2); err != nil {
		t.Fatalf("submitting after the blip: %v", err)
	}
	if _, err := s.Decide(ctx, r.ID, Answer{Decision: "approve", DecidedBy: "alice"}); err != nil {
		t.Fatalf("deciding after the blip: %v", err)
	}
	if err := s.Write(ev("blip", 1, event.RunStart{Task: "blip"})); err != nil {
		t.Fatalf("writing an event after the blip: %v", err)
	}
	if err := fill(); err != nil {
		t.Fatalf("a broken connection was kept: %v", err)
	}

	// The effect: one decision, two requests.
	if _, err := s.Decide(ctx, r.ID, Answer{Decision: "reject"}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("second decision: %v", err)
	}
	got, err := s.Request(ctx, r.ID)
	if err != nil || got.Decision != "approve" || got.DecidedBy != "alice" {
		t.Fatalf("%+v %v", got, err)
	}
	all, err := s.Requests(ctx, "all")
	if err != nil || len(all) != 2 {
		t.Fatalf("%d requests, want 2: %v", len(all), err)
	}
}

// Unavailable tells a database that cannot be reached from one that
// refuses a statement.
func TestS3_UnavailableDatabase(t *testing.T) {
	_, err := Open(context.Background(), "postgres://warden@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err == nil || !Unavailable(err) {
		t.Fatalf("a closed port: %v, Unavailable = %v", err, Unavailable(err))
	}
	for _, err := range []error{ErrNotFound, ErrNotPending, ErrChoice, context.Canceled, context.DeadlineExceeded, errors.New("syntax error")} {
		if Unavailable(fmt.Errorf("store: %w", err)) {
			t.Errorf("Unavailable(%v) = true", err)
		}
	}
}
