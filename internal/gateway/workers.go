package gateway

import (
	"context"
	"time"
)

// workerIdle is how long a session's idle worker waits for the next
// request before it ends.
const workerIdle = 10 * time.Second

// workers run a session's governed calls and routed requests, each on a
// goroutine of its own as before, but goroutines that live on between
// requests: a call runs deep (the decision, the policy, the recording of
// its events), and a goroutine started for each call grew its stack
// again, copying it, several times per call (docs/mcp.md, Performance).
// A request is handed to an idle worker when there is one, else to a new
// worker: requests never wait for each other here. A worker ends when it
// was idle for workerIdle or the session ended.
type workers struct {
	// idle hands a request to a worker waiting for one; it is unbuffered,
	// so that a request is taken only by a worker free to run it now.
	idle chan func()
	done <-chan struct{}
}

// newWorkers returns the workers of a session that ends with ctx.
func newWorkers(ctx context.Context) *workers {
	return &workers{idle: make(chan func()), done: ctx.Done()}
}

// run runs f on an idle worker, or on a new one when none is idle.
func (w *workers) run(f func()) {
	select {
	case w.idle <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then the requests handed to it while it waits.
func (w *workers) loop(f func()) {
	timer := time.NewTimer(workerIdle)
	defer timer.Stop()
	for {
		f()
		timer.Reset(workerIdle)
		select {
		case f = <-w.idle:
		case <-timer.C:
			return
		case <-w.done:
			return
		}
	}
}
