package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// A Buffer beside the transcript: every event written through it, from
// concurrent writers, is in the store once Flush returns, in each writer's
// order, once; a failed commit is reported by later writes (SPEC S3, L7).
func TestS3_BufferCommitsEveryEvent(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		b := s.Buffer()
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 1; i <= 300; i++ {
					if err := b.Write(ev(fmt.Sprint("r", g), i, event.Info{Message: "m"})); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		b.Write(ev("r0", 1, event.Info{Message: "m"})) // again: kept once
		if err := b.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for g := 0; g < 4; g++ {
			es, err := s.Events(ctx, fmt.Sprint("r", g), "", 0)
			if err != nil || len(es) != 300 {
				t.Fatalf("run r%d: %d events, %v", g, len(es), err)
			}
			for i, e := range es {
				if want := ev(fmt.Sprint("r", g), i+1, nil).ID; e.ID != want {
					t.Fatalf("run r%d event %d is %s, want %s", g, i, e.ID, want)
				}
			}
		}
		if err := b.Write(ev("r9", 1, event.Info{})); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(ctx, "r9"); err != nil {
			t.Errorf("an event written before Close is missing: %v", err)
		}
		if err := b.Write(ev("r9", 2, event.Info{})); err == nil {
			t.Error("a write after Close was accepted")
		}
		// An event without ids is refused; a commit that fails is reported
		// to the writer.
		b = s.Buffer()
		if err := b.Write(event.Event{RunID: "r1", Data: event.Info{}}); err == nil {
			t.Error("an event without an id was queued")
		}
		s.Close()
		b.Write(ev("r1", 98, event.Info{}))
		if err := b.Flush(ctx); err == nil {
			t.Error("a failed commit was not reported by Flush")
		}
		if err := b.Write(ev("r1", 99, event.Info{})); err == nil {
			t.Error("a failed commit was not reported by the next Write")
		}
		if err := b.Close(); err == nil || errors.Is(err, errBufferClosed) {
			t.Errorf("Close after a failed commit: %v", err)
		}
	})
}
