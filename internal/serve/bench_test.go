package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest"
)

// BenchmarkDecideAPI measures what a person's decision costs end to end on
// SQLite: POST /api/requests/{id}/decision, committed, and the run waiting
// in Client.Wait (a long poll on the same server) released. It reports
// the median and 99th percentile per decision.
func BenchmarkDecideAPI(b *testing.B) {
	ts := startServer(b, "")
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := store.Request{Kind: store.KindApproval, RunID: "bench", Call: store.Call{ID: fmt.Sprint(i), Function: "bash"}}
		if err := ts.Store.Submit(ctx, &r); err != nil {
			b.Fatal(err)
		}
		released := make(chan time.Time, 1)
		go func() {
			got, err := ts.Client.Wait(ctx, r.ID)
			if err != nil || got.Status != store.StatusDecided {
				b.Error(got, err)
			}
			released <- time.Now()
		}()
		time.Sleep(2 * time.Millisecond) // the long poll is in place
		b.StartTimer()
		start := time.Now()
		if _, err := ts.Client.Decide(ctx, r.ID, store.Answer{Decision: "approve"}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, (<-released).Sub(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkDecideConcurrent measures the throughput of decisions posted
// concurrently through the API (GOMAXPROCS×4 clients), on SQLite and, when
// WARDEN_TEST_POSTGRES is set, on PostgreSQL.
func BenchmarkDecideConcurrent(b *testing.B) {
	for _, e := range storetest.Engines(b) {
		b.Run(e.Name, func(b *testing.B) {
			ts := startServer(b, e.URL)
			ctx := context.Background()
			ids := make([]string, b.N)
			for i := range ids {
				r := store.Request{Kind: store.KindApproval, RunID: "bench", Call: store.Call{ID: fmt.Sprint(i), Function: "bash"}}
				if err := ts.Store.Submit(ctx, &r); err != nil {
					b.Fatal(err)
				}
				ids[i] = r.ID
			}
			c := &serveclient.Client{URL: ts.URL, Token: testToken, HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
			var next atomic.Int64
			b.SetParallelism(4)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := ids[next.Add(1)-1]
					if _, err := c.Decide(ctx, id, store.Answer{Decision: "reject"}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "decisions/s")
		})
	}
}

// BenchmarkClientWrite measures a run's events sent through Client.Write
// to the server's store (SQLite) until Close says all are stored.
func BenchmarkClientWrite(b *testing.B) {
	ts := startServer(b, "")
	c := &serveclient.Client{URL: ts.URL, Token: testToken}
	now := time.Now().UTC()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		e := event.Event{ID: fmt.Sprintf("bench-%07d", i+1), Time: now, RunID: "bench", Agent: "main",
			Data: event.Tool{CallID: fmt.Sprint(i), Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls -l"}`), Result: "total 0\n"}}
		if err := c.Write(e); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkS4_SubmitAndRead compares, side by side, what a run pays per
// request (submit, then read back) with an operator's credential, which
// is not scoped, and with a run credential, whose run ownership the server
// checks on each call (SPEC S4).
func BenchmarkS4_SubmitAndRead(b *testing.B) {
	ts := startServer(b, "")
	ts.RunToken = runToken
	ctx := context.Background()
	for _, tc := range []struct{ name, token string }{{"operator", testToken}, {"run credential", runToken}} {
		b.Run(tc.name, func(b *testing.B) {
			c := &serveclient.Client{URL: ts.URL, Token: tc.token, ID: "bench"} // one id across the rounds of b.N
			for i := 0; i < b.N; i++ {
				r := store.Request{Kind: store.KindApproval, RunID: "bench-" + tc.name, Call: store.Call{ID: fmt.Sprint(i), Function: "bash"}}
				if err := c.Submit(ctx, &r); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Request(ctx, r.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkS4_NewConnection compares a call on a new connection that the
// client has the server prove first (the handshake of SPEC S4) with the
// same call sent without it.
func BenchmarkS4_NewConnection(b *testing.B) {
	ts := startServer(b, "")
	ctx := context.Background()
	b.Run("proved", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c := &serveclient.Client{URL: ts.URL, Token: testToken, HTTP: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
			if _, err := c.Whoami(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unproved", func(b *testing.B) {
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/whoami", nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := hc.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(resp, err)
			}
			resp.Body.Close()
		}
	})
}

// BenchmarkS4_SubmitShellCall measures submitting a shell call and reading
// it back through a run's client: in a run without rules, and in a run
// whose rule covers the call (approved on submission) or does not.
func BenchmarkS4_SubmitShellCall(b *testing.B) {
	ts := startServer(b, "")
	ts.RunToken = runToken
	ctx := context.Background()
	c := &serveclient.Client{URL: ts.URL, Token: runToken, ID: "bench"}
	for _, tc := range []struct{ name, cmd string }{{"no rule", "git status"}, {"covered", "git status -s"}, {"not covered", "git status; ls"}} {
		b.Run(tc.name, func(b *testing.B) {
			run := "bench-" + strings.ReplaceAll(tc.name, " ", "-")
			if tc.name != "no rule" {
				if err := ts.Store.AddRunRule(ctx, &store.RunRule{RunID: run, Function: "bash", Arg: "cmd", Prefix: []string{"git", "status"}, Rest: json.RawMessage(`{}`), CreatedBy: "alice"}); err != nil {
					b.Fatal(err)
				}
			}
			args, _ := json.Marshal(map[string]string{"cmd": tc.cmd})
			for i := 0; i < b.N; i++ {
				r := store.Request{Kind: store.KindApproval, RunID: run, Call: store.Call{ID: fmt.Sprint(i), Function: "bash", Arguments: args}, Choices: []string{"approve", "reject"}}
				if err := c.Submit(ctx, &r); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Request(ctx, r.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecideWithWaiters measures decisions through the API while 100
// runs wait, each long-polling its own request (Client.Wait) and
// submitting the next once it is decided, as a busy `warden serve` sees
// them. It reports decisions/s and the CPU time of the process (server and
// clients) per decision, on SQLite and, when WARDEN_TEST_POSTGRES is set,
// on PostgreSQL.
func BenchmarkDecideWithWaiters(b *testing.B) {
	const runs = 100
	engines := []storetest.Engine{{Name: storetest.SQLite, URL: "sqlite:" + filepath.Join(b.TempDir(), "warden.db")}}
	for _, e := range storetest.Engines(b) {
		if e.Name == storetest.Postgres {
			engines = append(engines, e)
		}
	}
	for _, e := range engines {
		b.Run(e.Name, func(b *testing.B) {
			ts := startServer(b, e.URL)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ids := make(chan string, runs)
			for i := range runs {
				c := &serveclient.Client{URL: ts.URL, Token: testToken}
				go func() {
					for n := 0; ctx.Err() == nil; n++ {
						r := store.Request{Kind: store.KindApproval, RunID: fmt.Sprint("run-", i), Call: store.Call{ID: fmt.Sprint("c", n), Function: "bash"}}
						if err := c.Submit(ctx, &r); err != nil {
							return
						}
						select {
						case ids <- r.ID:
						case <-ctx.Done():
							return
						}
						if _, err := c.Wait(ctx, r.ID); err != nil {
							return
						}
					}
				}()
			}
			// Every run waits before the clock starts.
			time.Sleep(200 * time.Millisecond)
			cpu0 := benchtest.CPUTime(b)
			start := time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := <-ids
				if _, err := ts.Client.Decide(ctx, id, store.Answer{Decision: "approve"}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			el := time.Since(start)
			b.ReportMetric(float64(b.N)/el.Seconds(), "decisions/s")
			b.ReportMetric(float64(benchtest.CPUTime(b)-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/decision")
			cancel()
		})
	}
}
