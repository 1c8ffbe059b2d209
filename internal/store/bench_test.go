package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/storetest"
)

// benchEngines are the engines a benchmark runs on.
func benchEngines(b *testing.B) []storetest.Engine { return storetest.Engines(b) }

// BenchmarkDecide measures a decision as a waiting run sees it: Submit,
// a Wait already blocked on the request, Decide (durable), and the time
// from the start of Decide until Wait returns (p50 and p90 reported, in
// ms). "same-store" waits in the deciding Store (warden serve's case: the
// run long-polls the server that decides); "other-store" in a second Store
// on the same database (another process or replica).
func BenchmarkDecide(b *testing.B) {
	ctx := context.Background()
	for _, e := range benchEngines(b) {
		for _, mode := range []string{"same-store", "other-store"} {
			b.Run(e.Name+"/"+mode, func(b *testing.B) {
				s := open(b, e.URL)
				waiter := s
				if mode == "other-store" {
					waiter = open(b, e.URL)
				}
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					r := &Request{Kind: KindApproval, RunID: "bench"}
					submit(ctx, b, s, r)
					released := make(chan time.Time, 1)
					waiting := make(chan struct{})
					go func() {
						close(waiting)
						if _, err := waiter.Wait(ctx, r.ID); err != nil {
							b.Error(err)
						}
						released <- time.Now()
					}()
					<-waiting
					time.Sleep(time.Millisecond) // the waiter is blocked
					start := time.Now()
					if _, err := s.Decide(ctx, r.ID, Answer{Decision: "approve"}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, (<-released).Sub(start))
				}
				b.StopTimer()
				reportPercentiles(b, lat)
			})
		}
	}
}

// reportPercentiles reports the p50 and p90 of lat in milliseconds.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*9/10]), "p90-ms")
}

// BenchmarkDecideConcurrent measures the throughput of concurrent
// decisions (each a Submit and a Decide of its own request, from 8
// goroutines per CPU), reported as decisions/s.
func BenchmarkDecideConcurrent(b *testing.B) {
	ctx := context.Background()
	for _, e := range benchEngines(b) {
		b.Run(e.Name, func(b *testing.B) {
			s := open(b, e.URL)
			var n atomic.Int64
			b.SetParallelism(8)
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := &Request{Kind: KindApproval, RunID: "bench"}
					if err := s.Submit(ctx, r); err != nil {
						b.Error(err)
						return
					}
					if _, err := s.Decide(ctx, r.ID, Answer{Decision: "reject"}); err != nil {
						b.Error(err)
						return
					}
					n.Add(1)
				}
			})
			b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "decisions/s")
		})
	}
}

// BenchmarkWriteEvent measures writing one transcript event (a tool event
// with a 1 KiB result), committed, as `warden run` does through the Sink.
func BenchmarkWriteEvent(b *testing.B) {
	for _, e := range benchEngines(b) {
		b.Run(e.Name, func(b *testing.B) {
			writeToolEvents(b, open(b, e.URL))
		})
	}
}

// writeToolEvents resets the timer and writes b.N tool events, each with
// a 1 KiB result, to w.
func writeToolEvents(b *testing.B, w event.Sink) {
	result := strings.Repeat("x", 1024)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := event.Event{ID: fmt.Sprintf("bench-%07d", i), Time: time.Now().UTC(), RunID: "bench", Agent: "main",
			Data: event.Tool{CallID: fmt.Sprint("c", i), Function: "bash", Arguments: []byte(`{"cmd":"ls"}`), Result: result}}
		if err := w.Write(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBufferWrite measures the cost per event of a Buffer (queue,
// then group commit), amortized over b.N events and the final Close.
func BenchmarkBufferWrite(b *testing.B) {
	for _, e := range benchEngines(b) {
		b.Run(e.Name, func(b *testing.B) {
			buf := open(b, e.URL).Buffer()
			writeToolEvents(b, buf)
			if err := buf.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkIdleWaiters measures what 200 runs waiting for a person cost
// while nothing is decided (SQLite): the CPU time of this process per
// second of waiting (cpu-ms/s), and the database reads behind it, before
// the waiters are released by 200 decisions (decide-ms, the time to
// decide and release them all).
func BenchmarkIdleWaiters(b *testing.B) {
	const waiters = 200
	ctx := context.Background()
	s := open(b, "sqlite:"+b.TempDir()+"/warden.db")
	for i := 0; i < b.N; i++ {
		ids := make([]string, waiters)
		var wg sync.WaitGroup
		for j := range ids {
			r := &Request{Kind: KindApproval, RunID: "idle"}
			submit(ctx, b, s, r)
			ids[j] = r.ID
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Wait(ctx, r.ID); err != nil {
					b.Error(err)
				}
			}()
		}
		time.Sleep(500 * time.Millisecond) // the waiters are at their slowest
		cpu0 := benchtest.CPUTime(b)
		time.Sleep(time.Second)
		b.ReportMetric(float64(benchtest.CPUTime(b)-cpu0)/float64(time.Millisecond), "cpu-ms/s")
		start := time.Now()
		for _, id := range ids {
			if _, err := s.Decide(ctx, id, Answer{Decision: "approve"}); err != nil {
				b.Fatal(err)
			}
		}
		wg.Wait()
		b.ReportMetric(float64(time.Since(start))/float64(time.Millisecond), "decide-ms")
	}
}

// BenchmarkDecideOnly measures Decide alone, sequentially, on requests
// submitted before the clock starts.
func BenchmarkDecideOnly(b *testing.B) {
	ctx := context.Background()
	for _, e := range benchEngines(b) {
		b.Run(e.Name, func(b *testing.B) {
			s := open(b, e.URL)
			ids := make([]string, b.N)
			for i := range ids {
				r := &Request{Kind: KindApproval, RunID: "bench"}
				submit(ctx, b, s, r)
				ids[i] = r.ID
			}
			b.ResetTimer()
			for _, id := range ids {
				if _, err := s.Decide(ctx, id, Answer{Decision: "approve"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
