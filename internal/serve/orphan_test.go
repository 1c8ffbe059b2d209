package serve

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
)

// A request its run left behind expires (issue 21 item 6): submitted
// without a deadline, it gets the server's default one and then reads
// expired, with its fail-safe outcome, wherever it is read; a deadline the
// run gave wins, and a server told to give none gives none.
func TestH3_OrphanedRequestExpires(t *testing.T) {
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	s := &Server{Store: st, Token: testToken, RequestDeadline: 300 * time.Millisecond}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	c := &serveclient.Client{URL: hs.URL, Token: testToken}
	ctx := context.Background()

	orphan := store.Request{Kind: store.KindApproval, RunID: "orphan", Call: store.Call{ID: "c1", Function: "bash"}}
	if err := c.Submit(ctx, &orphan); err != nil {
		t.Fatal(err)
	}
	if orphan.Deadline == nil || orphan.Failsafe != "reject" {
		t.Fatalf("a request submitted without a deadline: deadline %v, failsafe %q; want the server's default and reject", orphan.Deadline, orphan.Failsafe)
	}
	if d := orphan.Deadline.Sub(orphan.Created); d < 250*time.Millisecond || d > 2*time.Second {
		t.Errorf("default deadline %v after creation, want about 300ms", d)
	}
	dl := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
	given := store.Request{Kind: store.KindReview, RunID: "orphan", Call: store.Call{ID: "c2", Function: "bash"}, Deadline: &dl}
	if err := c.Submit(ctx, &given); err != nil {
		t.Fatal(err)
	}
	if given.Deadline == nil || !given.Deadline.Equal(dl) {
		t.Errorf("the run's own deadline %v became %v", dl, given.Deadline)
	}
	time.Sleep(400 * time.Millisecond)
	got, err := c.Request(ctx, orphan.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.StatusExpired || got.Decision != "reject" {
		t.Fatalf("the orphaned request past its deadline reads %s/%q, want expired/reject", got.Status, got.Decision)
	}
	listed, err := st.Requests(ctx, store.StatusPending)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0].ID != given.ID {
		t.Errorf("pending after the default deadline: %v, want only the request with its own deadline", listed)
	}

	none := &Server{Store: st, Token: testToken, RequestDeadline: -1}
	hn := httptest.NewServer(none.Handler())
	t.Cleanup(hn.Close)
	cn := &serveclient.Client{URL: hn.URL, Token: testToken}
	open := store.Request{Kind: store.KindApproval, RunID: "open", Call: store.Call{ID: "c1", Function: "bash"}}
	if err := cn.Submit(ctx, &open); err != nil {
		t.Fatal(err)
	}
	if open.Deadline != nil {
		t.Errorf("a server told to give no deadline gave %v", open.Deadline)
	}
}

// The server's default deadline is not the run's (issue 21 item 5 and 6):
// a run that gave no deadline and whose server goes away gives up after
// the client's retry window (30 s), not after the hour the server gave
// the request.
func TestH3_DefaultDeadlineDoesNotKeepARunWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the client's 30 s retry window")
	}
	t.Parallel()
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	hs := httptest.NewServer((&Server{Store: st, Token: testToken}).Handler())
	c := &serveclient.Client{URL: hs.URL, Token: testToken}
	r := store.Request{Kind: store.KindApproval, RunID: "gone", Call: store.Call{ID: "c1", Function: "bash"}}
	if err := c.Submit(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Deadline == nil || time.Until(*r.Deadline) < 50*time.Minute {
		t.Fatalf("the server's default deadline: %v", r.Deadline)
	}
	hs.Close() // the server goes away
	start := time.Now()
	_, err := c.Wait(context.Background(), r.ID)
	if err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("Wait with the server gone: %v", err)
	}
	if el := time.Since(start); el > bound(45*time.Second) {
		t.Errorf("the run waited %v for a server that was gone", el)
	}
}
