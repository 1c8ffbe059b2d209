package hookcmd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/store"
)

// storeAside is the default store of a hook, opened beside the decision
// once the hook has an event to record (a hook that records nothing opens
// no store), with store.OpenRecorder: the events a hook records are kept
// and committed, in one transaction, when it closes. The store is left
// open: the process exits right after, and closing it would checkpoint its
// write-ahead log (fsyncs, 10–60 ms on every tool call here); the commit is
// in the log, which the store's next opener reads.
type storeAside struct {
	ctx    context.Context
	tr     *trace
	start  sync.Once
	opened chan struct{}
	st     *store.Store
	err    error
	mu     sync.Mutex
	events []event.Event
}

func openStoreAside(ctx context.Context, tr *trace) *storeAside {
	return &storeAside{ctx: ctx, tr: tr, opened: make(chan struct{})}
}

// open starts opening the store, once.
func (s *storeAside) open() {
	s.start.Do(func() {
		go func() {
			defer close(s.opened)
			start := time.Now()
			s.st, s.err = store.OpenRecorder(s.ctx, "")
			s.tr.beside("store-open", time.Since(start))
		}()
	})
}

// Write implements event.Sink: it keeps e for Close, and starts opening
// the store.
func (s *storeAside) Write(e event.Event) error {
	s.open()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

// Close commits the events kept; an error (the store could not be opened
// or written) is the host's deny.
func (s *storeAside) Close() error {
	s.mu.Lock()
	none := len(s.events) == 0
	s.mu.Unlock()
	if none {
		return nil
	}
	<-s.opened
	if s.err != nil {
		return fmt.Errorf("the store: %w", s.err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.st.Buffer()
	for _, e := range s.events {
		if err := b.Write(e); err != nil {
			b.Close()
			return err
		}
	}
	return b.Close()
}

var _ event.Sink = (*store.Store)(nil)
