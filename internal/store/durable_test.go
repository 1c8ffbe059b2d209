package store

import (
	"context"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// Events acknowledged after SyncEvents survive a crash of PostgreSQL
// (pg_ctl -m immediate right after): their commits did not wait for the
// disk, SyncEvents did (issue 21: nothing acknowledged is lost).
func TestS3_SyncedEventsSurviveDatabaseCrash(t *testing.T) {
	c := storetest.StartPostgres(t)
	ctx := context.Background()
	s := open(t, c.URL)
	const n = 300
	for i := range n {
		if err := s.Write(ev("crash", i+1, event.Info{Message: "acknowledged"})); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SyncEvents(ctx); err != nil {
		t.Fatal(err)
	}
	if es, err := s.Events(ctx, "crash", "", n+1); err != nil || len(es) != n {
		t.Fatalf("before the crash: %d events, %v", len(es), err)
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, c.URL)
	es, err := s2.Events(ctx, "crash", "", n+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != n {
		t.Fatalf("%d of %d synced events survived the crash, last %s", len(es), n, es[len(es)-1].ID)
	}
}
