package store

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/wardenhq/warden/internal/storetest"
)

// Concurrent submits of one request under its client-chosen id — a retry
// racing a try whose answer is still on its way — store one row, and every
// try gets the same request back; the id is refused to another run (SPEC
// S3, S4).
func TestS3_SubmitSameIDStoresOneRequest(t *testing.T) {
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		ctx := context.Background()
		const id = "client-chosen-id-0123456789"
		const tries = 8
		got := make([]Request, tries)
		errs := make([]error, tries)
		var wg sync.WaitGroup
		for i := range tries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := Request{ID: id, Kind: KindApproval, RunID: "run-1", Call: Call{ID: "c1", Function: "bash"}}
				errs[i] = s.Submit(ctx, &r)
				got[i] = r
			}()
		}
		wg.Wait()
		for i := range tries {
			if errs[i] != nil || got[i].ID != id || !got[i].Created.Equal(got[0].Created) || got[i].Status != StatusPending {
				t.Fatalf("try %d: %v, %+v (first: %+v)", i, errs[i], got[i], got[0])
			}
		}
		all, err := s.Requests(ctx, "all")
		if err != nil || len(all) != 1 {
			t.Fatalf("%d rows (%v), want 1", len(all), err)
		}
		other := Request{ID: id, Kind: KindApproval, RunID: "run-2", Call: Call{ID: "c1", Function: "bash"}}
		if err := s.Submit(ctx, &other); !errors.Is(err, ErrIDTaken) {
			t.Fatalf("another run's submit under the id: %v, want ErrIDTaken", err)
		}
		if r, err := s.Request(ctx, id); err != nil || r.RunID != "run-1" {
			t.Fatalf("after another run's try: %+v, %v", r, err)
		}
	})
}
