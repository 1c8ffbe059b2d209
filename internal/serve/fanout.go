package serve

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/store"
)

// Limits of the live event stream.
const (
	// streamBuffer is how many rendered messages wait for one subscriber;
	// a subscriber that falls further behind is dropped.
	streamBuffer = 256
	// defaultStreamWriteTimeout is how long one write to a subscriber may
	// take before the subscriber is dropped.
	defaultStreamWriteTimeout = 10 * time.Second
)

// fanout reads the store's changes once for the whole process, while
// anyone listens, renders each once as a server-sent event and hands it to
// every subscriber, each through a bounded buffer: a subscriber that does
// not keep up is dropped rather than held in memory or allowed to slow
// the others.
type fanout struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	// stop ends the current reading of changes; nil when none runs.
	stop context.CancelFunc
}

// subscriber is one listener of a fanout.
type subscriber struct {
	// msgs are the rendered messages waiting for it.
	msgs chan []byte
	// gone is closed when the fanout dropped it.
	gone chan struct{}
}

// subscribe adds a subscriber, starting to read changes from changes
// (store.Store.Changes, or a wrapper) if it is the first. Changes are
// those after the call.
func (f *fanout) subscribe(changes func(context.Context) <-chan store.Change, log *slog.Logger) *subscriber {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = make(map[*subscriber]struct{})
	}
	if f.stop == nil {
		ctx, stop := context.WithCancel(context.Background())
		f.stop = stop
		go f.run(ctx, changes(ctx), log)
	}
	sb := &subscriber{msgs: make(chan []byte, streamBuffer), gone: make(chan struct{})}
	f.subs[sb] = struct{}{}
	return sb
}

// unsubscribe removes sb, and stops reading changes after the last one.
func (f *fanout) unsubscribe(sb *subscriber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[sb]; ok {
		delete(f.subs, sb)
		close(sb.gone)
	}
	if len(f.subs) == 0 && f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

// run renders each change of cs once and hands it to every subscriber,
// until ctx ends. If cs ends first, it drops every subscriber, so that
// their clients reconnect and the next one reads afresh.
func (f *fanout) run(ctx context.Context, cs <-chan store.Change, log *slog.Logger) {
	for c := range cs {
		msg, err := sseMessage(c)
		if err != nil {
			log.Error("event stream", "err", err)
			continue
		}
		if msg == nil {
			continue
		}
		f.mu.Lock()
		if ctx.Err() != nil { // a later reading serves the subscribers now
			f.mu.Unlock()
			return
		}
		for sb := range f.subs {
			select {
			case sb.msgs <- msg:
			default:
				delete(f.subs, sb)
				close(sb.gone)
			}
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() == nil {
		for sb := range f.subs {
			delete(f.subs, sb)
			close(sb.gone)
		}
		f.stop()
		f.stop = nil
	}
}

// count returns how many subscribers listen.
func (f *fanout) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}
