package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest"
)

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
			cpu0 := cpuTime()
			start := time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := <-ids
				if _, err := ts.Client.Decide(ctx, id, store.Decision{Decision: "approve"}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			el := time.Since(start)
			b.ReportMetric(float64(b.N)/el.Seconds(), "decisions/s")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/decision")
			cancel()
		})
	}
}

// cpuTime returns the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
