package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// open opens the store at url, closed when the test ends.
func open(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// forEngine runs fn as a subtest on a fresh store of each engine.
func forEngine(t *testing.T, fn func(t *testing.T, e storetest.Engine, s *Store)) {
	storetest.Run(t, func(t *testing.T, e storetest.Engine) { fn(t, e, open(t, e.URL)) })
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// recorder returns a recorder of run id writing to s whose clock steps a
// second per event from start.
func ev(run string, n int, d event.Data) event.Event {
	return event.Event{ID: fmt.Sprintf("%s-%06d", run, n), Time: t0.Add(time.Duration(n) * time.Second), RunID: run, Agent: "main", Data: d}
}

// writeAll writes es to s.
// submit submits r to s, failing the test when it cannot.
func submit(ctx context.Context, t testing.TB, s *Store, r *Request) {
	t.Helper()
	if err := s.Submit(ctx, r); err != nil {
		t.Fatal(err)
	}
}

func writeAll(t testing.TB, s *Store, es ...event.Event) {
	t.Helper()
	for _, e := range es {
		if err := s.Write(e); err != nil {
			t.Fatal(err)
		}
	}
}

// run returns the events of a small run: start, a tool call, its end.
func smallRun(id, task, status string, at int) []event.Event {
	return []event.Event{
		ev(id, at+1, event.RunStart{Task: task, Model: "scripted"}),
		ev(id, at+2, event.TurnStart{Input: "go"}),
		ev(id, at+3, event.Approval{CallID: "c1", Approver: "human", Decision: "approve"}),
		ev(id, at+4, event.Tool{CallID: "c1", Function: "bash", Arguments: []byte(`{"cmd":"ls"}`), Result: "a.txt"}),
		ev(id, at+5, event.RunEnd{Status: status}),
	}
}

func isErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
}
