package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/event"
)

// MaxDenials is how many of a run's latest auto-review denials are kept
// for a person to override (SPEC G12).
const MaxDenials = 10

// Denial is a boundary request auto-review denied, kept with the exact
// action so that a person can allow one retry of it (SPEC G12).
type Denial struct {
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Action    json.RawMessage `json:"action"`
	RiskLevel string          `json:"risk_level,omitempty"`
	Rationale string          `json:"rationale,omitempty"`
	Time      time.Time       `json:"time"`
}

// grant is an override a person gave and the agent has not used yet.
type grant struct {
	denial Denial
	by     string
	note   string
}

// denialLog keeps the latest denials and the overrides granted on them.
type denialLog struct {
	mu      sync.Mutex
	seq     int
	denials []Denial
	grants  []grant
}

// add keeps d as the newest denial, forgetting the oldest beyond
// MaxDenials. It gives d an ID when it has none.
func (l *denialLog) add(runID string, d Denial) Denial {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if d.ID == "" {
		d.ID = fmt.Sprintf("%s-d%d", runID, l.seq)
	}
	l.denials = append(l.denials, d)
	if len(l.denials) > MaxDenials {
		l.denials = l.denials[len(l.denials)-MaxDenials:]
	}
	return d
}

// take returns, and uses up, the override granted for exactly action.
func (l *denialLog) take(action []byte) (grant, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, g := range l.grants {
		if sameJSON(g.denial.Action, action) {
			l.grants = append(l.grants[:i], l.grants[i+1:]...)
			return g, true
		}
	}
	return grant{}, false
}

// Remember keeps d, read back from the run's transcript, in the denial log
// of a resumed run.
func (r *Run) Remember(d Denial) { r.denials.add(r.runID(), d) }

// Denials returns the run's latest auto-review denials, oldest first (at
// most MaxDenials).
func (r *Run) Denials() []Denial {
	r.denials.mu.Lock()
	defer r.denials.mu.Unlock()
	return append([]Denial(nil), r.denials.denials...)
}

// Override lets the agent retry, once, exactly the action of the denial
// id, in the same context (SPEC G12), and records it in the transcript. It
// is the person's channel: only code acting for a person may call it. The
// retry is still reviewed, and the reviewer sees the person's approval as a
// trusted marker; it may deny again where its policy says a denial cannot
// be overridden. by and note say who approved and why.
func (r *Run) Override(id, by, note string) error {
	if err := r.RestoreOverride(id, by, note); err != nil {
		return err
	}
	r.Events.Emit(event.Override{DenialID: id, By: by, Note: note})
	return nil
}

// RestoreOverride is Override for an override already in the transcript of
// a resumed run: it is granted again, and not recorded twice.
func (r *Run) RestoreOverride(id, by, note string) error {
	l := &r.denials
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.denials {
		if d.ID == id {
			l.grants = append(l.grants, grant{denial: d, by: by, note: note})
			return nil
		}
	}
	return fmt.Errorf("no denial %q among the run's last %d", id, MaxDenials)
}

// sameJSON reports whether two JSON texts hold the same value, whatever
// their whitespace, key order and escapes.
func sameJSON(a, b []byte) bool {
	ca, errA := canonical(a)
	cb, errB := canonical(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca, cb)
}

// canonical re-encodes a JSON text with sorted keys and Go's escapes.
func canonical(data []byte) ([]byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
