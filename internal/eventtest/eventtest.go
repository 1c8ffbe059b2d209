// Package eventtest is the event sink tests write runs to: it keeps every
// event, in order, for any number of writers at once, and lists them by
// kind or by type.
package eventtest

import (
	"sync"

	"github.com/wardenhq/warden/event"
)

// Sink is an event.Sink that keeps what is written to it. The zero Sink is
// ready to use.
type Sink struct {
	mu     sync.Mutex
	events []event.Event
}

// Write keeps e.
func (s *Sink) Write(e event.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

// All returns a copy of the events written so far, in order.
func (s *Sink) All() []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]event.Event(nil), s.events...)
}

// Kinds returns the kinds of the events written so far, in order.
func (s *Sink) Kinds() []string {
	var out []string
	for _, e := range s.All() {
		out = append(out, e.Kind())
	}
	return out
}

// Find returns the events of kind k, in order.
func (s *Sink) Find(k string) []event.Event {
	var out []event.Event
	for _, e := range s.All() {
		if e.Kind() == k {
			out = append(out, e)
		}
	}
	return out
}

// Approvals returns the data of the approval events, in order.
func (s *Sink) Approvals() []event.Approval { return Data[event.Approval](s) }

// Tools returns the data of the tool events, in order.
func (s *Sink) Tools() []event.Tool { return Data[event.Tool](s) }

// Reviews returns the data of the review events, in order.
func (s *Sink) Reviews() []event.Review { return Data[event.Review](s) }

// WithheldFor returns the withheld events of the call id, in order.
func (s *Sink) WithheldFor(id string) []event.Withheld {
	var out []event.Withheld
	for _, w := range Data[event.Withheld](s) {
		if w.CallID == id {
			out = append(out, w)
		}
	}
	return out
}

// Data returns the data of type T of the events of s, in order.
func Data[T event.Data](s *Sink) []T {
	var out []T
	for _, e := range s.All() {
		if d, ok := e.Data.(T); ok {
			out = append(out, d)
		}
	}
	return out
}
