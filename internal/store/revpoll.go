package store

import (
	"context"
	"sync"
	"time"
)

// revPoller wakes this process's waiters of requests that another process
// changed (SQLite, which has no notifications): one goroutine per Store
// polls the requests' revisions while any request is waited for, instead
// of every waiter polling its own row. Changes made through this Store
// wake their waiters at once (Store.changed) and need no poll.
type revPoller struct {
	mu      sync.Mutex
	waiters int
	running bool
	done    chan struct{} // closed by stop
	wg      sync.WaitGroup
}

// watch counts a waiter in, starting the poller if it is not running,
// and returns a function that counts it out. The poller's first reading
// is taken before watch returns, so that a change committed after the
// waiter's first read of its row is not missed.
func (s *Store) watch(ctx context.Context) func() {
	p := &s.revs
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiters++
	if !p.running && p.done == nil {
		p.done = make(chan struct{})
	}
	if !p.running && !closed(p.done) {
		p.running = true
		last := s.maxRev(ctx)
		p.wg.Add(1)
		go s.pollRevs(last)
	}
	return func() {
		p.mu.Lock()
		p.waiters--
		p.mu.Unlock()
	}
}

// stop ends the poller for good (Store.Close).
func (p *revPoller) stop() {
	p.mu.Lock()
	if p.done == nil {
		p.done = make(chan struct{})
	}
	if !closed(p.done) {
		close(p.done)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// maxRev reads the requests' latest revision; 0 when it cannot.
func (s *Store) maxRev(ctx context.Context) int64 {
	var rev int64
	if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(rev), 0) FROM requests").Scan(&rev); err != nil {
		return 0
	}
	return rev
}

// pollRevs reads the revisions after last, backing off from pollMin to
// pollMax while nothing changes, wakes the waiters of each request that
// changed, and returns once no one waits or the store closes.
func (s *Store) pollRevs(last int64) {
	p := &s.revs
	defer p.wg.Done()
	backoff := pollMin
	for {
		t := time.NewTimer(backoff)
		select {
		case <-p.done:
			t.Stop()
			p.mu.Lock()
			p.running = false
			p.mu.Unlock()
			return
		case <-t.C:
		}
		p.mu.Lock()
		if p.waiters == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		backoff = min(2*backoff, pollMax)
		ctx, cancel := context.WithTimeout(context.Background(), pollMax)
		rows, err := s.db.QueryContext(ctx, "SELECT id, rev, status FROM requests WHERE rev > ? ORDER BY rev LIMIT ?", last, changeBatch)
		if err != nil {
			cancel()
			continue
		}
		for rows.Next() {
			var id, status string
			var rev int64
			if rows.Scan(&id, &rev, &status) != nil {
				break
			}
			last = max(last, rev)
			backoff = pollMin
			if status != StatusPending {
				// A waiter waits for its request to be closed: a new
				// request wakes no one.
				s.hub.wake(id)
			}
		}
		rows.Close()
		cancel()
	}
}
