package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// The same cases, the same answers, on SQLite and on PostgreSQL (SPEC S1).
func TestS1_SameBehaviourBothEngines(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		fn   func(t *testing.T, s *Store)
	}{
		{"events are kept as their exact line, in order, once", func(t *testing.T, s *Store) {
			es := smallRun("r1", "demo", event.StatusCompleted, 0)
			writeAll(t, s, es...)
			writeAll(t, s, es[1], es[3]) // again: kept once
			got, err := s.Events(ctx, "r1", "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(es) {
				t.Fatalf("%d events, want %d", len(got), len(es))
			}
			for i := range es {
				want, _ := json.Marshal(es[i])
				line, _ := json.Marshal(got[i])
				if !bytes.Equal(want, line) {
					t.Errorf("event %d\n got %s\nwant %s", i, line, want)
				}
			}
			page, err := s.Events(ctx, "r1", es[1].ID, 2)
			if err != nil || len(page) != 2 || page[0].ID != es[2].ID || page[1].ID != es[3].ID {
				t.Errorf("page after %s = %v, %v", es[1].ID, page, err)
			}
			_, err = s.Events(ctx, "r1", "r1-nope", 0)
			isErr(t, err, ErrNotFound)
			lines, err := s.EventLines(ctx, "r1", es[3].ID, 0)
			if want, _ := json.Marshal(es[4]); err != nil || len(lines) != 1 || !bytes.Equal(lines[0], want) {
				t.Errorf("lines after %s = %s, %v", es[3].ID, lines, err)
			}
			// The stored line is the transcript's, byte for byte.
			odd := ev("r1", 9, event.Info{Message: "<script>&\u2028 \"quoted\" é"})
			writeAll(t, s, odd)
			var stored string
			if err := s.db.QueryRow(s.q("SELECT line FROM events WHERE run_id = ? AND id = ?"), "r1", odd.ID).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if want := transcript(t, odd); stored+"\n" != string(want) {
				t.Errorf("stored line\n%s\nwant\n%s", stored, want)
			}
			hits, err := s.Search(ctx, Query{Text: `"cmd":"ls"`})
			if err != nil || len(hits) != 1 || hits[0].Event.ID != es[3].ID || !bytes.Contains(hits[0].Line, []byte("a.txt")) {
				t.Errorf("search = %+v, %v", hits, err)
			}
			// Text as a person types it: escaped characters, any case.
			for _, q := range []string{`<SCRIPT>&`, `"quoted"`, `"Quoted" é`} {
				hits, err = s.Search(ctx, Query{Text: q})
				if err != nil || len(hits) != 1 || hits[0].Event.ID != odd.ID {
					t.Errorf("search %q = %d hits, %v", q, len(hits), err)
				}
			}
			hits, err = s.Search(ctx, Query{Kind: "tool", RunID: "r1", Since: t0, Until: t0.Add(time.Hour)})
			if err != nil || len(hits) != 1 {
				t.Errorf("search by kind = %d hits, %v", len(hits), err)
			}
			var n int
			if err := s.db.QueryRow(s.q("SELECT COUNT(*) FROM events WHERE run_id = ? AND call_id = ?"), "r1", "c1").Scan(&n); err != nil || n != 2 {
				t.Errorf("events of call c1 = %d, %v", n, err)
			}
		}},
		{"a run's row follows its events", func(t *testing.T, s *Store) {
			es := smallRun("r1", "demo", event.StatusLimited, 0)
			writeAll(t, s, es[:4]...)
			r, err := s.Run(ctx, "r1")
			if err != nil || r.Status != "running" || r.Ended != nil || r.Task != "demo" || r.Model != "scripted" || !r.Started.Equal(es[0].Time) {
				t.Fatalf("run = %+v, %v", r, err)
			}
			writeAll(t, s, es[4])
			r, _ = s.Run(ctx, "r1")
			if r.Status != event.StatusLimited || r.Ended == nil || !r.Ended.Equal(es[4].Time) {
				t.Errorf("ended run = %+v", r)
			}
			want := map[string]int{"events": 5, "pending": 0, "run_start": 1, "turn_start": 1, "approval": 1, "tool": 1, "run_end": 1}
			if fmt.Sprint(r.Counts) != fmt.Sprint(want) {
				t.Errorf("counts = %v, want %v", r.Counts, want)
			}
			// A resumed run runs again.
			writeAll(t, s, ev("r1", 6, event.TurnStart{Input: "more"}))
			if r, _ = s.Run(ctx, "r1"); r.Status != "running" || r.Ended != nil {
				t.Errorf("resumed run = %+v", r)
			}
			_, err = s.Run(ctx, "nope")
			isErr(t, err, ErrNotFound)
		}},
		{"runs filter by status, task and time, newest first", func(t *testing.T, s *Store) {
			writeAll(t, s, smallRun("a", "fix the build", event.StatusCompleted, 0)...)
			writeAll(t, s, smallRun("b", "write docs", event.StatusError, 100)...)
			writeAll(t, s, smallRun("c", "fix tests", event.StatusCompleted, 200)...)
			if err := s.Submit(ctx, &Request{Kind: KindApproval, RunID: "c"}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				f    RunFilter
				want string
			}{
				{RunFilter{}, "c b a"},
				{RunFilter{Status: event.StatusCompleted}, "c a"},
				{RunFilter{Task: "fix"}, "c a"},
				{RunFilter{Since: t0.Add(100 * time.Second)}, "c b"},
				{RunFilter{Until: t0.Add(100 * time.Second)}, "a"},
				{RunFilter{Limit: 1}, "c"},
				{RunFilter{Status: "running"}, ""},
			} {
				rs, err := s.Runs(ctx, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, r := range rs {
					ids = append(ids, r.ID)
				}
				if strings.Join(ids, " ") != tc.want {
					t.Errorf("Runs(%+v) = %q, want %q", tc.f, ids, tc.want)
				}
				if len(rs) > 0 && rs[0].ID == "c" && (rs[0].Counts["pending"] != 1 || rs[0].Counts["events"] != 5) {
					t.Errorf("counts of c = %v", rs[0].Counts)
				}
			}
		}},
		{"requests are validated, decided once, listed", func(t *testing.T, s *Store) {
			for _, bad := range []Request{
				{Kind: "question"},
				{Kind: KindReview, Choices: []string{"approve"}},
				{Kind: KindApproval, Choices: []string{"approve", "approve"}},
				{Kind: KindApproval, Failsafe: "approve"},
				{Kind: KindReview, Failsafe: "continue"},
				{Kind: KindApproval, Call: Call{Arguments: json.RawMessage(`{`)}},
			} {
				if err := s.Submit(ctx, &bad); err == nil {
					t.Errorf("Submit(%+v) accepted", bad)
				}
			}
			a := &Request{Kind: KindApproval, RunID: "r1", Agent: "main", Call: Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)},
				View: "bash(cmd='ls')", Message: "listing"}
			if err := s.Submit(ctx, a); err != nil {
				t.Fatal(err)
			}
			if a.ID == "" || a.Status != StatusPending || a.Created.IsZero() || strings.Join(a.Choices, ",") != "approve,modify,reject,terminate" {
				t.Fatalf("submitted %+v", a)
			}
			time.Sleep(2 * time.Millisecond)
			b := &Request{Kind: KindReview, RunID: "r1", Result: "<script>", Choices: []string{"continue", "terminate", "escalate"}}
			if err := s.Submit(ctx, b); err != nil {
				t.Fatal(err)
			}
			pending, err := s.Requests(ctx, "pending")
			if err != nil || len(pending) != 2 || pending[0].ID != a.ID || pending[1].ID != b.ID {
				t.Fatalf("pending = %+v, %v", pending, err)
			}
			if got, _ := s.Request(ctx, a.ID); got.Call.Function != "bash" || string(got.Call.Arguments) != `{"cmd":"ls"}` || got.View != a.View {
				t.Errorf("stored %+v", got)
			}
			_, err = s.Decide(ctx, a.ID, Answer{Decision: "continue"})
			isErr(t, err, ErrChoice)
			_, err = s.Decide(ctx, a.ID, Answer{Decision: "modify", Modified: json.RawMessage(`["ls"]`)})
			isErr(t, err, ErrChoice)
			_, err = s.Decide(ctx, "nope", Answer{Decision: "approve"})
			isErr(t, err, ErrNotFound)
			got, err := s.Decide(ctx, a.ID, Answer{Decision: "modify", Modified: json.RawMessage(`{"cmd":"ls -l"}`), Explanation: "long", DecidedBy: "dana"})
			if err != nil || got.Status != StatusDecided || got.Decision != "modify" || string(got.Modified) != `{"cmd":"ls -l"}` || got.DecidedBy != "dana" || got.Explanation != "long" {
				t.Fatalf("decided %+v, %v", got, err)
			}
			_, err = s.Decide(ctx, a.ID, Answer{Decision: "approve"})
			isErr(t, err, ErrNotPending)
			if err := s.Withdraw(ctx, b.ID); err != nil {
				t.Fatal(err)
			}
			if err := s.Withdraw(ctx, b.ID); err != nil {
				t.Errorf("withdrawing twice: %v", err)
			}
			isErr(t, s.Withdraw(ctx, "nope"), ErrNotFound)
			_, err = s.Decide(ctx, b.ID, Answer{Decision: "continue"})
			isErr(t, err, ErrNotPending)
			if got, _ := s.Wait(ctx, b.ID); got.Status != StatusWithdrawn {
				t.Errorf("withdrawn request waits as %+v", got)
			}
			decided, _ := s.Requests(ctx, "decided")
			all, _ := s.Requests(ctx, "all")
			if len(decided) != 2 || decided[0].ID != b.ID || len(all) != 2 {
				t.Errorf("decided %d (first %s), all %d", len(decided), decided[0].ID, len(all))
			}
			if rs, _ := s.Requests(ctx, "pending"); len(rs) != 0 {
				t.Errorf("still pending: %+v", rs)
			}
			if _, err := s.Requests(ctx, "bogus"); err == nil {
				t.Error("a bogus status was accepted")
			}
		}},
		{"the breaker's state per turn follows the events", func(t *testing.T, s *Store) {
			denied := event.AutoReview{CallID: "c1", Status: action.StatusDenied}
			approved := event.AutoReview{CallID: "c2", Status: action.StatusApproved}
			writeAll(t, s,
				ev("r1", 1, event.RunStart{}), ev("r1", 2, event.TurnStart{Input: "a"}),
				ev("r1", 3, denied), ev("r1", 4, approved), ev("r1", 5, denied), ev("r1", 6, denied),
				ev("r1", 7, event.Warning{Message: breakerPrefix + " 3 consecutive auto-review denials in this turn"}),
				ev("r1", 8, event.TurnStart{Input: "b"}), ev("r1", 9, denied))
			rows, err := s.db.Query(s.q("SELECT turn, reviews, denials, consecutive, tripped FROM turns WHERE run_id = ? ORDER BY turn"), "r1")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var a, b, c, d, e int
				rows.Scan(&a, &b, &c, &d, &e)
				got = append(got, fmt.Sprint(a, b, c, d, e))
			}
			if want := []string{"1 4 3 2 1", "2 1 1 1 0"}; !slices.Equal(got, want) {
				t.Errorf("turns = %q, want %q", got, want)
			}
		}},
		{"changes deliver events and requests after the call", func(t *testing.T, s *Store) {
			writeAll(t, s, ev("r1", 1, event.RunStart{}))
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			ch := s.Changes(cctx)
			writeAll(t, s, ev("r1", 2, event.Info{Message: "hi"}))
			r := &Request{Kind: KindApproval, RunID: "r1"}
			submit(ctx, t, s, r)
			if _, err := s.Decide(ctx, r.ID, Answer{Decision: "approve"}); err != nil {
				t.Fatal(err)
			}
			// A request that changed twice between two reads may come once,
			// as it is then.
			var got []string
			timeout := time.After(5 * time.Second)
			for !slices.Contains(got, "request decided") {
				select {
				case c := <-ch:
					switch {
					case c.Event != nil:
						got = append(got, "event "+c.Event.ID)
					case c.Request != nil:
						got = append(got, "request "+c.Request.Status)
					}
				case <-timeout:
					t.Fatalf("changes so far: %q", got)
				}
			}
			want := []string{"event r1-000002", "request pending", "request decided"}
			if !slices.Equal(got, want) && !slices.Equal(got, []string{"event r1-000002", "request decided"}) {
				t.Errorf("changes = %q, want %q", got, want)
			}
			cancel()
			for range ch { // closed when ctx ends
			}
		}},
	}
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { c.fn(t, open(t, freshURL(t, e))) })
		}
	})
}

// freshURL returns a URL of a new empty database of e's engine.
func freshURL(t *testing.T, e storetest.Engine) string {
	for _, f := range storetest.Engines(t) {
		if f.Name == e.Name {
			return f.URL
		}
	}
	t.Fatalf("no engine %s", e.Name)
	return ""
}

// A decision is durable before Decide returns: a store opened afresh
// finds it (SPEC S3).
func TestS3_DecisionDurableBeforeReturn(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		r := &Request{Kind: KindApproval, RunID: "r1"}
		submit(ctx, t, s, r)
		if _, err := s.Decide(ctx, r.ID, Answer{Decision: "reject", Explanation: "no", DecidedBy: "dana"}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		got, err := open(t, e.URL).Request(ctx, r.ID)
		if err != nil || got.Status != StatusDecided || got.Decision != "reject" || got.Explanation != "no" || got.DecidedBy != "dana" {
			t.Errorf("after reopening: %+v, %v", got, err)
		}
	})
}

// Pending requests survive a restart, and are still decidable (SPEC S3).
func TestS3_PendingSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		var ids []string
		for i := 0; i < 3; i++ {
			r := &Request{Kind: KindReview, RunID: "r1", Result: fmt.Sprint(i)}
			submit(ctx, t, s, r)
			ids = append(ids, r.ID)
		}
		s.Close()
		s = open(t, e.URL)
		pending, err := s.Requests(ctx, "pending")
		if err != nil || len(pending) != 3 {
			t.Fatalf("pending after reopening: %d, %v", len(pending), err)
		}
		for i, r := range pending {
			if r.ID != ids[i] || r.Result != fmt.Sprint(i) {
				t.Errorf("pending %d = %+v", i, r)
			}
		}
		if _, err := s.Decide(ctx, ids[1], Answer{Decision: "continue"}); err != nil {
			t.Error(err)
		}
	})
}

// Two Stores on one database, 50 concurrent deciders through each on
// every request: exactly one decision wins per request, the others are
// told it is no longer pending, and the stored decision is the winner's
// (SPEC S1).
func TestS1_ExactlyOnceAcrossStores(t *testing.T) {
	ctx := context.Background()
	const requests, deciders = 10, 100 // half through each Store
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		a, b := open(t, e.URL), open(t, e.URL)
		for i := 0; i < requests; i++ {
			r := &Request{Kind: KindApproval, RunID: "r1"}
			submit(ctx, t, a, r)
			var mu sync.Mutex
			var winners []string
			var wg sync.WaitGroup
			start := make(chan struct{})
			for j := 0; j < deciders; j++ {
				s := a
				if j%2 == 1 {
					s = b
				}
				choice := []string{"approve", "reject", "terminate"}[j%3]
				by := fmt.Sprint("decider-", j)
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					got, err := s.Decide(ctx, r.ID, Answer{Decision: choice, DecidedBy: by})
					switch {
					case err == nil:
						if got.DecidedBy != by {
							t.Errorf("winner %s got back %+v", by, got)
						}
						mu.Lock()
						winners = append(winners, by+" "+choice)
						mu.Unlock()
					case !errors.Is(err, ErrNotPending):
						t.Errorf("decider %s: %v", by, err)
					}
				}()
			}
			close(start)
			wg.Wait()
			if len(winners) != 1 {
				t.Fatalf("request %d: %d winners: %q", i, len(winners), winners)
			}
			got, err := b.Request(ctx, r.ID)
			if err != nil || got.DecidedBy+" "+got.Decision != winners[0] {
				t.Errorf("stored %+v, winner %s", got, winners[0])
			}
		}
		var n int
		if err := a.db.QueryRow("SELECT COUNT(*) FROM decisions").Scan(&n); err != nil || n != requests {
			t.Errorf("%d decisions recorded, want %d (%v)", n, requests, err)
		}
	})
}

// A request whose deadline passes is closed with its fail-safe outcome —
// reject for an approval, terminate for a review — never approve (SPEC H3).
func TestH3_DeadlineExpiresToFailsafe(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		for _, tc := range []struct{ kind, failsafe, want string }{
			{KindApproval, "", "reject"},
			{KindReview, "", "terminate"},
			{KindBoundary, "terminate", "terminate"},
		} {
			deadline := time.Now().Add(150 * time.Millisecond)
			r := &Request{Kind: tc.kind, RunID: "r1", Deadline: &deadline, Failsafe: tc.failsafe}
			submit(ctx, t, s, r)
			got, err := s.Wait(ctx, r.ID)
			if err != nil || got.Status != StatusExpired || got.Decision != tc.want || got.DecidedBy != byDeadline {
				t.Fatalf("%s request after its deadline: %+v, %v", tc.kind, got, err)
			}
			if time.Now().Before(deadline) {
				t.Errorf("expired before its deadline")
			}
			_, err = s.Decide(ctx, r.ID, Answer{Decision: got.Choices[0]})
			isErr(t, err, ErrNotPending)
		}
		// Nobody waiting: listing expires it, and a late decision is refused.
		past := time.Now().Add(20 * time.Millisecond)
		r := &Request{Kind: KindApproval, Deadline: &past}
		submit(ctx, t, s, r)
		time.Sleep(40 * time.Millisecond)
		got, err := s.Decide(ctx, r.ID, Answer{Decision: "approve"})
		isErr(t, err, ErrNotPending)
		if got.Status != StatusExpired || got.Decision != "reject" {
			t.Errorf("a decision after the deadline left %+v", got)
		}
		if rs, _ := s.Requests(ctx, "pending"); len(rs) != 0 {
			t.Errorf("pending past its deadline: %+v", rs)
		}
		if got, _ := s.Request(ctx, r.ID); got.Status != StatusExpired || got.Decision != "reject" {
			t.Errorf("late request: %+v", got)
		}
	})
}

// A run waiting in one Store is released promptly by a decision made
// through another Store on the same database (S1: LISTEN/NOTIFY on
// PostgreSQL, polling on SQLite).
func TestS1_WaitWakesOnDecisionByAnotherStore(t *testing.T) {
	ctx := context.Background()
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		waiter, decider := open(t, e.URL), open(t, e.URL)
		r := &Request{Kind: KindApproval, RunID: "r1"}
		submit(ctx, t, waiter, r)
		type result struct {
			r  Request
			at time.Time
		}
		done := make(chan result, 1)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		go func() {
			got, err := waiter.Wait(wctx, r.ID)
			if err != nil {
				t.Error(err)
			}
			done <- result{got, time.Now()}
		}()
		time.Sleep(1500 * time.Millisecond) // the waiter is at its slowest poll
		decided := time.Now()
		if _, err := decider.Decide(ctx, r.ID, Answer{Decision: "approve"}); err != nil {
			t.Fatal(err)
		}
		res := <-done
		lag := res.at.Sub(decided)
		t.Logf("%s: waiter released %v after the decision", e.Name, lag)
		if res.r.Decision != "approve" || lag > 500*time.Millisecond {
			t.Errorf("released with %+v after %v", res.r, lag)
		}
		// Cancelling the wait returns the context's error.
		r2 := &Request{Kind: KindApproval}
		waiter.Submit(ctx, r2)
		cctx, cancel2 := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel2()
		_, err := waiter.Wait(cctx, r2.ID)
		isErr(t, err, context.DeadlineExceeded)
	})
}

// Changes of one Store reach the subscribers of another (SSE of a replica).
func TestS1_ChangesAcrossStores(t *testing.T) {
	ctx := context.Background()
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		a, b := open(t, e.URL), open(t, e.URL)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := a.Changes(cctx)
		writeAll(t, b, ev("r1", 1, event.RunStart{Task: "x"}))
		r := &Request{Kind: KindBoundary, RunID: "r1"}
		submit(ctx, t, b, r)
		var got []string
		for len(got) < 2 {
			select {
			case c := <-ch:
				if c.Event != nil {
					got = append(got, "event "+c.Event.ID)
				} else {
					got = append(got, "request "+c.Request.ID)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("changes so far: %q", got)
			}
		}
		if want := []string{"event r1-000001", "request " + r.ID}; !slices.Equal(got, want) {
			t.Errorf("changes = %q, want %q", got, want)
		}
	})
}

// Requests of parallel calls and runs queue without blocking each other:
// twenty runs wait at once, and each is released by its own decision, in
// whatever order they come (SPEC H4).
func TestH4_WaitsDoNotBlockEachOther(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		const n = 20
		ids := make([]string, n)
		got := make(chan Request, n)
		for i := range ids {
			r := &Request{Kind: KindApproval, RunID: fmt.Sprint("run-", i)}
			submit(ctx, t, s, r)
			ids[i] = r.ID
			go func() {
				wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				r, err := s.Wait(wctx, r.ID)
				if err != nil {
					t.Error(err)
				}
				got <- r
			}()
		}
		for i := n - 1; i >= 0; i-- { // the last first
			if _, err := s.Decide(ctx, ids[i], Answer{Decision: "approve", DecidedBy: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
			r := <-got
			if r.ID != ids[i] || r.DecidedBy != fmt.Sprint(i) {
				t.Fatalf("decision %d released %s (%s)", i, r.ID, r.DecidedBy)
			}
		}
	})
}

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

// A Buffer beside the transcript: every event written through it, from
// concurrent writers, is in the store once Flush returns, in each writer's
// order, once; a failed commit is reported by later writes (SPEC S3, L7).
func TestS3_BufferCommitsEveryEvent(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		b := s.Buffer()
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 1; i <= 300; i++ {
					if err := b.Write(ev(fmt.Sprint("r", g), i, event.Info{Message: "m"})); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		b.Write(ev("r0", 1, event.Info{Message: "m"})) // again: kept once
		if err := b.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for g := 0; g < 4; g++ {
			es, err := s.Events(ctx, fmt.Sprint("r", g), "", 0)
			if err != nil || len(es) != 300 {
				t.Fatalf("run r%d: %d events, %v", g, len(es), err)
			}
			for i, e := range es {
				if want := ev(fmt.Sprint("r", g), i+1, nil).ID; e.ID != want {
					t.Fatalf("run r%d event %d is %s, want %s", g, i, e.ID, want)
				}
			}
		}
		if err := b.Write(ev("r9", 1, event.Info{})); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(ctx, "r9"); err != nil {
			t.Errorf("an event written before Close is missing: %v", err)
		}
		if err := b.Write(ev("r9", 2, event.Info{})); err == nil {
			t.Error("a write after Close was accepted")
		}
		// An event without ids is refused; a commit that fails is reported
		// to the writer.
		b = s.Buffer()
		if err := b.Write(event.Event{RunID: "r1", Data: event.Info{}}); err == nil {
			t.Error("an event without an id was queued")
		}
		s.Close()
		b.Write(ev("r1", 98, event.Info{}))
		if err := b.Flush(ctx); err == nil {
			t.Error("a failed commit was not reported by Flush")
		}
		if err := b.Write(ev("r1", 99, event.Info{})); err == nil {
			t.Error("a failed commit was not reported by the next Write")
		}
		if err := b.Close(); err == nil || errors.Is(err, errBufferClosed) {
			t.Errorf("Close after a failed commit: %v", err)
		}
	})
}
