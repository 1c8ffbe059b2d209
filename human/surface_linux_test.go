package human_test

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/human"
	"github.com/wardenhq/warden/internal/bgtest"
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/store"
)

// pendingIn waits until s holds a pending request and returns it.
func pendingIn(t *testing.T, s *store.Store) store.Request {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(5 * time.Millisecond) {
		rs, err := s.Requests(context.Background(), "pending")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) > 0 {
			return rs[0]
		}
	}
	t.Fatal("no request became pending")
	return store.Request{}
}

// A run with a queue and a person at its terminal asks on both: whichever
// surface decides first decides, exactly once, and the other stops asking
// (SPEC H1, H4).
func TestH1_ConsoleAndQueueWhicheverDecidesFirst(t *testing.T) {
	for _, first := range []string{"console", "panel"} {
		t.Run(first, func(t *testing.T) {
			st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "w.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			master, term := ptytest.Open(t)
			scr := human.NewScreen()
			c := human.NewTestTerm(t, term, scr)
			a := human.SurfaceApprover(c)
			ctx := queue.WithQueue(context.Background(), st, "run-1")
			done := bgtest.Go(func() (approval.Approval, error) {
				return a.Approve(ctx, human.BashRequest("make deploy"))
			})
			req := pendingIn(t, st)
			human.WaitForScreen(t, scr, "Decide:", 1)
			want := approval.Reject
			if first == "console" {
				if _, err := io.WriteString(master, "r\n"); err != nil {
					t.Fatal(err)
				}
			} else {
				want = approval.Approve
				if _, err := st.Decide(context.Background(), req.ID, store.Answer{Decision: "approve", DecidedBy: "panel"}); err != nil {
					t.Fatal(err)
				}
			}
			var r bgtest.Result[approval.Approval]
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("no decision\n%s", scr.String())
			}
			if r.Err != nil || r.Value.Decision != want || !strings.Contains(r.Value.Explanation, first) {
				t.Fatalf("decision %+v, %v; want %s by the %s", r.Value, r.Err, want, first)
			}
			stored, err := st.Request(context.Background(), req.ID)
			if err != nil || stored.Status != "decided" || stored.Decision != string(want) || stored.DecidedBy != first {
				t.Fatalf("stored %+v, %v", stored, err)
			}
			if first == "panel" {
				human.WaitForScreen(t, scr, "decided by panel: approve", 1)
			}
			human.Drain(master)
		})
	}
}
