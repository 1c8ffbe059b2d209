package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/wardenhq/warden/event"
)

// maxBatch bounds the events a Buffer commits at once.
const maxBatch = 256

// Buffer is an event.Sink that writes a run's events to the store in the
// background, committing whatever has queued up in one transaction (group
// commit), so that a run is not slowed by a commit per event. Write only
// queues: an event is in the store once Flush or Close returns. Use it
// beside the JSONL transcript (event.Tee), which stays the record a crash
// cannot shorten: importing the transcript again (Import is idempotent)
// completes the store after a crash. The first error of a background
// commit is returned by every later Write, Flush and Close, so that the
// run's recorder sees it.
type Buffer struct {
	s *Store

	mu      sync.Mutex
	q       []event.Event
	queued  int64 // events ever queued
	written int64 // events ever committed or dropped after an error
	err     error
	closed  bool
	wake    chan struct{}
	done    chan struct{} // closed, and replaced, after each batch
	stopped chan struct{}
}

var _ event.Sink = (*Buffer)(nil)

// Buffer returns a new Buffer writing to s. Close it when the run ends.
func (s *Store) Buffer() *Buffer {
	b := &Buffer{s: s, wake: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	go b.loop()
	return b
}

// errBufferClosed is the error of a Write after Close.
var errBufferClosed = errors.New("store: the event buffer is closed")

// Write queues e and returns the first error of an earlier commit, if any.
// An event without an id or run id is refused at once.
func (b *Buffer) Write(e event.Event) error {
	if e.ID == "" || e.RunID == "" {
		return fmt.Errorf("store: event %q of run %q: an event needs an id and a run id", e.ID, e.RunID)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	if b.closed {
		return errBufferClosed
	}
	b.q = append(b.q, e)
	b.queued++
	signal(b.wake)
	return nil
}

// Flush waits until every event queued before the call is committed, or
// ctx ends.
func (b *Buffer) Flush(ctx context.Context) error {
	b.mu.Lock()
	target := b.queued
	for b.written < target && b.err == nil {
		done := b.done
		b.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("store: flushing events: %w", ctx.Err())
		case <-b.stopped:
		}
		b.mu.Lock()
	}
	defer b.mu.Unlock()
	return b.err
}

// Close commits the queued events and stops the buffer.
func (b *Buffer) Close() error {
	err := b.Flush(context.Background())
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.wake)
	}
	b.mu.Unlock()
	<-b.stopped
	return err
}

// loop commits what has queued, batch after batch, until the buffer is
// closed and empty. It starts the next commit as soon as one ends: waiting
// for a larger batch (3 or 10 ms between commits, or 64 events) saved some
// of the store's CPU but lengthened the scripted run of
// BenchmarkScriptedRun, since what is queued when the run ends is
// committed at Close.
func (b *Buffer) loop() {
	defer close(b.stopped)
	for {
		b.mu.Lock()
		batch := b.q
		if len(batch) > maxBatch {
			batch, b.q = batch[:maxBatch], batch[maxBatch:]
		} else {
			b.q = nil
		}
		closed := b.closed
		b.mu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			<-b.wake
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		_, err := b.s.writeEvents(ctx, batch)
		cancel()
		b.mu.Lock()
		if err != nil && b.err == nil {
			b.err = fmt.Errorf("store: writing events: %w", err)
		}
		b.written += int64(len(batch))
		close(b.done)
		b.done = make(chan struct{})
		b.mu.Unlock()
	}
}
