package hookcmd

import (
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/spool"
)

// spoolMarks is the default store of a hook: the hook opens no database,
// but marks in $WARDEN_HOME's spool the runs whose transcripts it wrote
// (internal/spool), which the store imports, verified, when it is next
// opened or drained (`warden serve`). It sits after the transcript among
// the session's sinks: an event it sees is in the transcript already.
type spoolMarks struct {
	home string
	mu   sync.Mutex
	runs []string
}

// Write implements event.Sink: it notes e's run for Close.
func (m *spoolMarks) Write(e event.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs {
		if r == e.RunID {
			return nil
		}
	}
	m.runs = append(m.runs, e.RunID)
	return nil
}

// Close marks each run noted; an error (the spool could not be written) is
// the host's deny, as an unwritable store's was.
func (m *spoolMarks) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs {
		if err := spool.Mark(m.home, r); err != nil {
			return fmt.Errorf("the store's spool: %w", err)
		}
	}
	return nil
}

// liveMarks is the default store of a long-lived session (`warden mcp`):
// as spoolMarks, it opens no database, but a run with new events is marked
// beside the calls, at most every half spool.Interval, and at Close, so
// that `warden serve` (which drains every spool.Interval) shows a session
// within about a drain of its events, while no call waits on SQLite.
type liveMarks struct {
	home    string
	mu      sync.Mutex
	pending map[string]bool
	err     error
	stop    chan struct{}
	done    chan struct{}
}

// newLiveMarks starts marking home's spool.
func newLiveMarks(home string) *liveMarks {
	m := &liveMarks{home: home, pending: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	go m.loop()
	return m
}

// Write implements event.Sink: it notes e's run for the next mark. Once a
// mark failed (the spool cannot be written), every event is that error,
// so that the session's calls fail as they would on an unwritable store.
func (m *liveMarks) Write(e event.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.pending[e.RunID] = true
	return nil
}

func (m *liveMarks) loop() {
	defer close(m.done)
	t := time.NewTicker(spool.Interval / 2)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = m.mark()
		case <-m.stop:
			return
		}
	}
}

// mark marks the runs noted since the last mark.
func (m *liveMarks) mark() error {
	m.mu.Lock()
	runs := m.pending
	if len(runs) > 0 {
		m.pending = map[string]bool{}
	}
	m.mu.Unlock()
	for r := range runs {
		if err := spool.Mark(m.home, r); err != nil {
			m.mu.Lock()
			defer m.mu.Unlock()
			if m.err == nil {
				m.err = fmt.Errorf("the store's spool: %w", err)
			}
			return m.err
		}
	}
	return nil
}

// Close stops marking beside the calls and marks what is left.
func (m *liveMarks) Close() error {
	close(m.stop)
	<-m.done
	if err := m.mark(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}
