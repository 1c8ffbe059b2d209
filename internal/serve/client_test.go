package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest"
)

// Many requests from parallel calls and runs wait at once; each is
// released by its own decision, in whatever order people decide, and no
// pending request holds up another (SPEC H4).
func TestH4_ManyPendingDontBlock(t *testing.T) {
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		ts := startServer(t, e.URL)
		n, slow := 60, 2*time.Second
		if raceEnabled {
			n, slow = 20, 10*time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		type result struct {
			id  string
			req store.Request
			err error
		}
		ids := make(chan string, n)
		results := make(chan result, n)
		for i := range n {
			go func() {
				r := store.Request{Kind: store.KindApproval, RunID: fmt.Sprintf("run%d", i%7), Agent: "main",
					Call: store.Call{ID: fmt.Sprintf("c%d", i), Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)}}
				if err := ts.Client.Submit(ctx, &r); err != nil {
					results <- result{err: err}
					return
				}
				ids <- r.ID
				got, err := ts.Client.Wait(ctx, r.ID)
				results <- result{r.ID, got, err}
			}()
		}
		var all []string
		for range n {
			select {
			case id := <-ids:
				all = append(all, id)
			case r := <-results:
				t.Fatalf("before any decision: %+v", r)
			}
		}
		// Every waiter is waiting now; decide them in a random order,
		// and each decision releases exactly its own waiter.
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		want := map[string]string{}
		for i, id := range all {
			d := []string{"approve", "reject", "terminate"}[i%3]
			want[id] = d
			start := time.Now()
			if _, err := ts.Client.Decide(ctx, id, store.Answer{Decision: d}); err != nil {
				t.Fatal(err)
			}
			select {
			case r := <-results:
				if r.err != nil || r.id != id || r.req.Decision != d || r.req.Status != store.StatusDecided {
					t.Fatalf("decided %s (%s), released %+v", id, d, r)
				}
			case <-time.After(3 * slow):
				t.Fatalf("the decision of %s released no waiter in %v (%d decided)", id, 3*slow, i)
			}
			if el := time.Since(start); el > slow {
				t.Errorf("releasing %s took %v", id, el)
			}
		}
	})
}

// A request with a deadline that nobody answers ends with its fail-safe
// outcome, never approve; a decision after that is refused (SPEC H3).
func TestH3_TimeoutFailsafe(t *testing.T) {
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		ts := startServer(t, e.URL)
		ctx := context.Background()
		for _, tc := range []struct {
			kind, failsafe, want string
		}{
			{store.KindApproval, "", "reject"},
			{store.KindApproval, "terminate", "terminate"},
			{store.KindReview, "", "terminate"},
			{store.KindBoundary, "reject", "reject"},
		} {
			dl := time.Now().Add(300 * time.Millisecond)
			r := store.Request{Kind: tc.kind, RunID: "r", Call: store.Call{ID: "c", Function: "bash"}, Deadline: &dl, Failsafe: tc.failsafe}
			if err := ts.Client.Submit(ctx, &r); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			got, err := ts.Client.Wait(ctx, r.ID)
			if err != nil || got.Status != store.StatusExpired || got.Decision != tc.want {
				t.Fatalf("%s/%s: %+v %v", tc.kind, tc.failsafe, got, err)
			}
			if el := time.Since(start); el > bound(3*time.Second) {
				t.Errorf("the fail-safe came %v after the deadline", el)
			}
			choice := "approve"
			if tc.kind == store.KindReview {
				choice = "continue"
			}
			if _, err := ts.Client.Decide(ctx, r.ID, store.Answer{Decision: choice}); !errors.Is(err, store.ErrNotPending) {
				t.Fatalf("a decision after the deadline: %v", err)
			}
		}
		// A fail-safe that lets the call through is refused.
		for _, fs := range []string{"approve", "continue", "modify"} {
			dl := time.Now().Add(time.Minute)
			r := store.Request{Kind: store.KindApproval, Deadline: &dl, Failsafe: fs}
			if err := ts.Client.Submit(ctx, &r); err == nil {
				t.Errorf("failsafe %s accepted", fs)
			}
		}
	})
}

// A run that stops waiting withdraws its request: Wait ends with the
// context and the request is no longer in the queue.
func TestH4_CancelledWaitWithdraws(t *testing.T) {
	ts := startServer(t, "")
	r := submit(t, ts.Client, "r")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := ts.Client.Wait(ctx, r.ID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait: %v", err)
	}
	got, err := ts.Store.Request(context.Background(), r.ID)
	if err != nil || got.Status != store.StatusWithdrawn {
		t.Fatalf("after the cancelled wait: %+v %v", got, err)
	}
	if _, err := ts.Client.Decide(context.Background(), r.ID, store.Answer{Decision: "approve"}); !errors.Is(err, store.ErrNotPending) {
		t.Fatalf("deciding a withdrawn request: %v", err)
	}
}

// Wait rides out a server restart: it keeps trying until the server is
// back, and the decision made meanwhile still reaches it.
func TestH4_WaitSurvivesServerRestart(t *testing.T) {
	dbURL := "sqlite:" + filepath.Join(t.TempDir(), "warden.db")
	st := openStore(t, dbURL)
	s := &Server{Store: st, Token: testToken}
	hs := httptest.NewServer(s.Handler())
	addr := hs.Listener.Addr().String()
	c := &serveclient.Client{URL: hs.URL, Token: testToken}
	r := submit(t, c, "r")
	done := make(chan store.Request, 1)
	go func() {
		got, err := c.Wait(context.Background(), r.ID)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	time.Sleep(100 * time.Millisecond)
	hs.CloseClientConnections()
	hs.Close()
	if _, err := st.Decide(context.Background(), r.ID, store.Answer{Decision: "reject", DecidedBy: "console"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	hs2 := httptest.NewUnstartedServer(s.Handler())
	ln, err := listenAgain(addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	hs2.Listener = ln
	hs2.Start()
	defer hs2.Close()
	select {
	case got := <-done:
		if got.Decision != "reject" {
			t.Fatalf("released with %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not resume after the server came back")
	}
}

// A request made through one replica is decided through another, exactly
// once, and the waiter on the first learns of it (SPEC S1). On PostgreSQL
// when WARDEN_TEST_POSTGRES is set; on a shared SQLite file always.
func TestS1_DecideThroughAnotherReplica(t *testing.T) {
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		a := startServer(t, e.URL)
		b := startServer(t, e.URL)
		c := startServer(t, e.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		const n = 20
		var wg sync.WaitGroup
		for i := range n {
			r := submit(t, a.Client, fmt.Sprintf("run%d", i))
			released := make(chan store.Request, 1)
			go func() {
				got, err := a.Client.Wait(ctx, r.ID)
				if err != nil {
					t.Error(err)
				}
				released <- got
			}()
			// Two replicas race to decide it: exactly one wins.
			var wins, conflicts int
			var mu sync.Mutex
			for j, rep := range []*testServer{b, c} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := rep.Client.Decide(ctx, r.ID, store.Answer{Decision: []string{"approve", "reject"}[j]})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						wins++
					case errors.Is(err, store.ErrNotPending):
						conflicts++
					default:
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if wins != 1 || conflicts != 1 {
				t.Fatalf("request %d: %d wins, %d conflicts", i, wins, conflicts)
			}
			start := time.Now()
			select {
			case got := <-released:
				if got.Status != store.StatusDecided {
					t.Fatalf("released with %+v", got)
				}
			case <-ctx.Done():
				t.Fatal("the waiter on replica a never learned of the decision")
			}
			if el := time.Since(start); el > bound(time.Second) {
				t.Errorf("the waiter learned of the decision after %v", el)
			}
		}
	})
}

// Every event written through the client is stored, in order, even when
// written from many goroutines at once and when the server restarts in the
// middle (storing an event twice keeps one).
func TestS3_ClientEventsNotLost(t *testing.T) {
	ts := startServer(t, "")
	const writers, per = 8, 250
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				e := event.Event{ID: fmt.Sprintf("run%d-%06d", w, i+1), Time: time.Now().UTC(), RunID: fmt.Sprintf("run%d", w), Agent: "main",
					Data: event.Info{Message: fmt.Sprintf("event %d", i)}}
				if err := ts.Client.Write(e); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ts.Client.Close(); err != nil {
		t.Fatal(err)
	}
	for w := range writers {
		es, err := ts.Store.Events(context.Background(), fmt.Sprintf("run%d", w), "", 0)
		if err != nil || len(es) != per {
			t.Fatalf("run%d: %d events stored, %v", w, len(es), err)
		}
		for i, e := range es {
			if e.ID != fmt.Sprintf("run%d-%06d", w, i+1) {
				t.Fatalf("run%d: event %d is %s: out of order", w, i, e.ID)
			}
		}
	}
	// A server that refuses events for good: the error comes back.
	bad := &serveclient.Client{URL: ts.URL, Token: "wrong"}
	bad.Write(event.Event{ID: "x-1", RunID: "x", Data: event.Info{}})
	if err := bad.Flush(context.Background()); err == nil {
		t.Fatal("events refused by the server were reported stored")
	}
	if err := bad.Write(event.Event{ID: "x-2", RunID: "x", Data: event.Info{}}); err == nil {
		t.Fatal("Write after a refusal succeeded")
	}
}

// When the server is gone and the request's deadline passes, Wait gives up
// with an error rather than wait for ever: the caller fails closed (SPEC
// H3).
func TestH3_UnreachableServerFailsClosed(t *testing.T) {
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	hs := httptest.NewServer((&Server{Store: st, Token: testToken}).Handler())
	c := &serveclient.Client{URL: hs.URL, Token: testToken}
	dl := time.Now().Add(500 * time.Millisecond)
	r := store.Request{Kind: store.KindApproval, RunID: "r", Deadline: &dl}
	if err := c.Submit(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	// The server goes away: the client's URL now leads nowhere.
	hs.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.URL = "http://" + ln.Addr().String()
	ln.Close()
	start := time.Now()
	if _, err := c.Wait(context.Background(), r.ID); err == nil {
		t.Fatal("Wait succeeded with the server gone")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Wait gave up %v after the deadline", el)
	}
}

// A run whose server is gone ends within its request's deadline and says
// so (issue 21): Wait gives up soon after the deadline with an error that
// names the server as gone, and the events the run still writes are not
// retried for minutes — Close returns at once, saying where they are.
func TestH3_RunWhoseServerIsGoneEnds(t *testing.T) {
	ts := startServer(t, "")
	c := &serveclient.Client{URL: ts.URL, Token: testToken}
	dl := time.Now().Add(time.Second)
	r := store.Request{Kind: store.KindApproval, RunID: "gone", Deadline: &dl}
	if err := c.Submit(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(event.Event{ID: "gone-1", Time: time.Now().UTC(), RunID: "gone", Agent: "main", Data: event.Info{Message: "before"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.URL = "http://" + ln.Addr().String() // the server goes away
	ln.Close()
	start := time.Now()
	_, err = c.Wait(context.Background(), r.ID)
	if err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("Wait with the server gone: %v, want an error saying it is gone", err)
	}
	if late := time.Since(dl); late > bound(4*time.Second) {
		t.Errorf("Wait gave up %v after the deadline", late)
	}
	c.Write(event.Event{ID: "gone-2", Time: time.Now().UTC(), RunID: "gone", Agent: "main", Data: event.Info{Message: "after"}})
	closing := time.Now()
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "transcript") {
		t.Errorf("Close with the server gone: %v, want an error saying where the events are", err)
	}
	if el := time.Since(closing); el > bound(4*time.Second) {
		t.Errorf("Close took %v with the server gone", el)
	}
	if total := time.Since(start); total > bound(8*time.Second) {
		t.Errorf("the run lingered %v after its server went", total)
	}
}

// A backlog of events is never refused whole (issue 21 item 6): a run
// that queued more than a body limit's worth of events while its server
// was away sends them in batches under it, and a server whose limit is
// smaller than the client's batches (413) gets halves until they fit;
// every event is stored. limit is the body limit of the server in front.
func TestS3_EventBacklogSplitBySize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
	}{
		{"1MiB", 1 << 20},
		{"100KiB", 100 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, "")
			var mu sync.Mutex
			var posts, refused int
			var largest int64
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Path == "/api/events" {
					mu.Lock()
					posts++
					largest = max(largest, r.ContentLength)
					tooBig := r.ContentLength > tc.limit
					if tooBig {
						refused++
					}
					mu.Unlock()
					if tooBig {
						writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", tc.limit))
						return
					}
				}
				ts.Server.Handler().ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			c := &serveclient.Client{URL: front.URL, Token: testToken}
			// 400 events of 8 KB: 3.3 MB in all, more than one body.
			big := strings.Repeat("x", 8<<10)
			for i := range 400 {
				if err := c.Write(event.Event{ID: fmt.Sprintf("e-%03d", i), Time: time.Now().UTC(), RunID: "backlog", Agent: "main", Data: event.Info{Message: big}}); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), bound(30*time.Second))
			defer cancel()
			if err := c.Flush(ctx); err != nil {
				t.Fatalf("the backlog was refused: %v", err)
			}
			lines, err := ts.Store.EventLines(ctx, "backlog", "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 400 {
				t.Fatalf("stored %d of 400 events", len(lines))
			}
			mu.Lock()
			defer mu.Unlock()
			if posts < 7 {
				t.Errorf("%d posts for 3.3 MB of events: the batches were not split by size", posts)
			}
			if tc.limit >= 1<<20 && refused > 0 {
				t.Errorf("%d batches over the server's 1 MiB limit (largest %d bytes)", refused, largest)
			}
			t.Logf("%d posts, %d refused as too large, largest body %d bytes", posts, refused, largest)
		})
	}
}

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
