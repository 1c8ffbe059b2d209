package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

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
			if err := s.Submit(ctx, r); err != nil {
				b.Fatal(err)
			}
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
		cpu0 := cpuTime()
		time.Sleep(time.Second)
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond), "cpu-ms/s")
		start := time.Now()
		for _, id := range ids {
			if _, err := s.Decide(ctx, id, Decision{Decision: "approve"}); err != nil {
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
				if err := s.Submit(ctx, r); err != nil {
					b.Fatal(err)
				}
				ids[i] = r.ID
			}
			b.ResetTimer()
			for _, id := range ids {
				if _, err := s.Decide(ctx, id, Decision{Decision: "approve"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
