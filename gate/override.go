package gate

import (
	"fmt"
	"sync"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/seal"
)

// Denial is a boundary request auto-review denied, kept with the exact
// action so that a person can allow one retry of it (SPEC G12): Gate.Denials
// lists the run's latest ones.
type Denial = ledger.Denial

// A Sealer authenticates the records only warden's own channels create —
// denials, a person's overrides and their use (SPEC G12, G15) — so that a
// record the agent or a command wrote into a transcript is refused when
// the run resumes. Sum returns the MAC of parts; Verify checks one.
type Sealer = ledger.Sealer

// FileSealer returns a Sealer whose HMAC-SHA256 key is kept in the file at
// path, created (0600, in a 0700 directory) when missing. Keep the file
// where neither the agent nor the commands it runs can read or write it.
func FileSealer(path string) (Sealer, error) {
	k, err := seal.LoadOrCreate(path)
	if err != nil {
		return nil, fmt.Errorf("warden's key: %w", err)
	}
	return k, nil
}

// denialLog keeps the latest denials, the overrides granted on them and
// the notes for the agent that overrides leave.
type denialLog struct {
	mu      sync.Mutex
	seq     int // the number of the run's latest denial, across resumes
	denials []Denial
	grants  []ledger.Grant
	notes   []chat.Message
}

// add keeps d as the newest denial, forgetting the oldest beyond
// ledger.MaxDenials. It gives d the run's next denial ID.
func (l *denialLog) add(runID string, d Denial) Denial {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	d.ID = fmt.Sprintf("%s-d%d", runID, l.seq)
	l.denials = append(l.denials, d)
	if len(l.denials) > ledger.MaxDenials {
		l.denials = l.denials[len(l.denials)-ledger.MaxDenials:]
	}
	return d
}

// take returns, and uses up, the override granted for exactly action.
func (l *denialLog) take(action []byte) (ledger.Grant, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, g := range l.grants {
		if ledger.SameJSON(g.Denial.Action, action) {
			l.grants = append(l.grants[:i], l.grants[i+1:]...)
			return g, true
		}
	}
	return ledger.Grant{}, false
}

// Denials returns the run's latest auto-review denials, oldest first (at
// most ledger.MaxDenials).
func (g *Gate) Denials() []Denial {
	g.denials.mu.Lock()
	defer g.denials.mu.Unlock()
	return append([]Denial(nil), g.denials.denials...)
}

// Override lets the agent retry, once, exactly the action of the denial
// id, in the same context (SPEC G12): it records the override on Events,
// authenticated with the Sealer, and tells the agent in its next turn, in a
// message from the person. It is the person's channel: only code acting for
// a person may call it. The retry is still reviewed, and the reviewer sees the
// person's approval as a trusted marker; it may deny again where its policy
// says a denial cannot be overridden. by and note say who approved and why.
func (g *Gate) Override(id, by, note string) error {
	l := &g.denials
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.denials {
		if d.ID != id {
			continue
		}
		o, err := ledger.NewOverride(g.Sealer, g.runID(), d, by, note)
		if err != nil {
			return err
		}
		gr := ledger.Grant{Denial: d, By: by, Note: note, Nonce: o.Nonce}
		l.grants = append(l.grants, gr)
		l.notes = append(l.notes, ledger.PersonNote(gr))
		g.Events.Emit(o)
		return nil
	}
	return fmt.Errorf("no denial %q among the run's last %d", id, ledger.MaxDenials)
}

// used records that the grant gr was taken, so that no resume grants it
// again.
func (g *Gate) used(rec *event.Recorder, gr ledger.Grant) {
	u := event.OverrideUsed{DenialID: gr.Denial.ID, Nonce: gr.Nonce}
	if g.Sealer != nil {
		u.MAC = ledger.UsedMAC(g.Sealer, g.runID(), u.DenialID, u.Nonce)
	}
	rec.Emit(u)
}

// takeNotes returns, and clears, the notes overrides left for the agent.
func (g *Gate) takeNotes() []chat.Message {
	g.denials.mu.Lock()
	defer g.denials.mu.Unlock()
	n := g.denials.notes
	g.denials.notes = nil
	return n
}

// withNotes puts the notes overrides left for the agent before the last
// message of input, the person's new request — or after it when it is the
// only message, so that a note never stands first, where the agent's own
// system prompt belongs.
func (g *Gate) withNotes(input []chat.Message) []chat.Message {
	notes := g.takeNotes()
	if len(notes) == 0 || len(input) == 0 {
		return input
	}
	out := make([]chat.Message, 0, len(input)+len(notes))
	if len(input) == 1 {
		return append(append(out, input...), notes...)
	}
	out = append(out, input[:len(input)-1]...)
	out = append(out, notes...)
	return append(out, input[len(input)-1])
}

// PersonNotePrefix starts the message through which a person's override
// reaches the agent's conversation (SPEC G12).
const PersonNotePrefix = ledger.PersonNotePrefix

// Restore gives the gate of a resumed run the denial log of l: its latest
// denials, the overrides not used yet and the numbering of further denials.
func (g *Gate) Restore(l *ledger.Ledger) {
	denials, grants, seq := l.State()
	dl := &g.denials
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.denials = denials
	dl.grants = grants
	dl.seq = max(dl.seq, seq)
}
