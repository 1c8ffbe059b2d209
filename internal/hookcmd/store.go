package hookcmd

import (
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/spool"
)

// spoolMarks is the default store of a governed session: the session opens
// no database, but marks in $WARDEN_HOME's spool the runs whose
// transcripts it wrote (internal/spool), which the store imports,
// verified, when it is next opened or drained (`warden serve`). It sits
// after the transcript among the session's sinks: an event it sees is in
// the transcript already. A hook marks when it closes (newSpoolMarks); a
// long-lived session (`warden mcp`) also beside its calls, at most every
// half spool.Interval (newLiveMarks), so that `warden serve` shows it
// within about a drain of its events while no call waits on SQLite.
type spoolMarks struct {
	home    string
	mu      sync.Mutex
	pending map[string]bool
	err     error
	// stop and done end the marking beside the calls; nil for a hook.
	stop, done chan struct{}
}

// newSpoolMarks returns a hook's marks, made when it closes.
func newSpoolMarks(home string) *spoolMarks {
	return &spoolMarks{home: home, pending: map[string]bool{}}
}

// newLiveMarks returns a long-lived session's marks, made beside its calls
// too.
func newLiveMarks(home string) *spoolMarks {
	m := newSpoolMarks(home)
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	go m.loop()
	return m
}

// Write implements event.Sink: it notes e's run for the next mark. Once a
// mark failed (the spool cannot be written), every event is that error,
// so that the session's calls fail as they would on an unwritable store.
func (m *spoolMarks) Write(e event.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.pending[e.RunID] = true
	return nil
}

func (m *spoolMarks) loop() {
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
func (m *spoolMarks) mark() error {
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

// Close stops marking beside the calls and marks what is left; an error
// (the spool could not be written) is the host's deny, as an unwritable
// store's was.
func (m *spoolMarks) Close() error {
	if m.stop != nil {
		close(m.stop)
		<-m.done
	}
	if err := m.mark(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}
