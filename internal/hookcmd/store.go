package hookcmd

import (
	"fmt"
	"sync"

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
