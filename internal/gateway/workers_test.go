package gateway

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestX2_WorkersRunRequestsAtOnce checks that a session's workers never
// make one request wait for another (a call waiting for a person must not
// hold up the next), that a worker freed takes the next request, and that
// the workers end with the session.
func TestX2_WorkersRunRequestsAtOnce(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	w := newWorkers(ctx)
	for round := 0; round < 3; round++ {
		// Each request waits until all have started: run only returns
		// for all of them if none waits for another.
		const n = 20
		var started, finished sync.WaitGroup
		started.Add(n)
		finished.Add(n)
		release := make(chan struct{})
		for i := 0; i < n; i++ {
			w.run(func() {
				defer finished.Done()
				started.Done()
				<-release
			})
		}
		waited := make(chan struct{})
		go func() { started.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: requests waited for each other", round)
		}
		// The rounds after the first run on the workers the first
		// started, idle meanwhile, not on 20 more.
		if got := runtime.NumGoroutine() - before; got > n+5 {
			t.Errorf("round %d: %d goroutines more than before, want the %d workers", round, got, n)
		}
		close(release)
		finished.Wait()
		time.Sleep(20 * time.Millisecond) // the workers wait for the next
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Errorf("%d goroutines after the session ended, %d before: the workers did not end", got, before)
	}
}
