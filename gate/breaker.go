package gate

import (
	"fmt"
	"sync"
)

// Breaker is the per-turn circuit breaker of auto-review (SPEC G11): it
// interrupts a turn whose boundary requests the reviewer keeps denying,
// instead of letting the agent keep asking. Its zero value uses the
// defaults.
type Breaker struct {
	// Consecutive denials that trip it (default 3).
	Consecutive int
	// Denials within the last Window reviews of the turn that trip it
	// (defaults 10 and 50).
	Denials int
	Window  int

	mu      sync.Mutex
	run     int    // consecutive denials
	recent  []bool // the turn's last reviews, true for a denial
	tripped bool
}

// reset clears the breaker's state: a turn starts.
func (b *Breaker) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.run, b.recent, b.tripped = 0, b.recent[:0], false
}

// record counts one review of the turn and reports whether the breaker
// trips now, with why. Only a denial counts as one; any other outcome
// (approved, timed out, aborted, failed) resets the consecutive count. It
// trips at most once per turn.
func (b *Breaker) record(denied bool) (bool, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	consecutive, denials, window := b.Consecutive, b.Denials, b.Window
	if consecutive <= 0 {
		consecutive = 3
	}
	if denials <= 0 {
		denials = 10
	}
	if window <= 0 {
		window = 50
	}
	if denied {
		b.run++
	} else {
		b.run = 0
	}
	b.recent = append(b.recent, denied)
	if len(b.recent) > window {
		b.recent = b.recent[len(b.recent)-window:]
	}
	if b.tripped {
		return false, ""
	}
	n := 0
	for _, d := range b.recent {
		if d {
			n++
		}
	}
	switch {
	case b.run >= consecutive:
		b.tripped = true
		return true, fmt.Sprintf("%d consecutive auto-review denials in this turn", b.run)
	case n >= denials:
		b.tripped = true
		return true, fmt.Sprintf("%d auto-review denials within the last %d reviews of this turn", n, len(b.recent))
	}
	return false, ""
}

// Replay counts the reviews a turn already had, oldest first (true for a
// denial), as if this gate had made them, and reports whether they tripped
// the breaker: what a process that governs a turn another process started
// (`warden hook`, one process per tool call) restores before deciding.
func (b *Breaker) Replay(denied []bool) (tripped bool) {
	for _, d := range denied {
		if trip, _ := b.record(d); trip {
			tripped = true
		}
	}
	return tripped
}
