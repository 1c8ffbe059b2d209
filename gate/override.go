package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
)

// MaxDenials is how many of a run's latest auto-review denials are kept
// for a person to override (SPEC G12): event.MaxDenials.
const MaxDenials = event.MaxDenials

// Denial is a boundary request auto-review denied, kept with the exact
// action so that a person can allow one retry of it (SPEC G12).
type Denial struct {
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Action    json.RawMessage `json:"action"`
	RiskLevel action.Risk     `json:"risk_level,omitempty"`
	Rationale string          `json:"rationale,omitempty"`
	Time      time.Time       `json:"time"`
}

// A Sealer authenticates the records only warden's own channels create —
// denials, a person's overrides and their use (SPEC G12, G15) — so that a
// record the agent or a command wrote into a transcript is refused when
// the run resumes. Sum returns the MAC of parts; Verify checks one.
type Sealer interface {
	Sum(parts ...[]byte) string
	Verify(mac string, parts ...[]byte) bool
}

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

// errNoSealer is the error of an override asked of a gate without a Sealer.
var errNoSealer = errors.New("overrides need warden's key (the run has no Sealer)")

// The domains of the MACs, so that no record passes for another kind.
const (
	macDenial       = "warden/denial/v1"
	macOverride     = "warden/override/v1"
	macOverrideUsed = "warden/override_used/v1"
	macTurn         = "warden/turn/v1"
	macRunStart     = "warden/run_start/v1"
)

func turnParts(runID, input string) [][]byte {
	return [][]byte{[]byte(macTurn), []byte(runID), []byte(input)}
}

// runStartParts are what the MAC of a run_start covers: the whole record
// but its MAC, in canonical JSON, so that it verifies after a round trip
// through the transcript.
func runStartParts(runID string, rs event.RunStart) [][]byte {
	rs.MAC = ""
	data, err := json.Marshal(rs)
	if err != nil {
		data = nil // verifies nothing: a MAC is never made of an empty record
	}
	return [][]byte{[]byte(macRunStart), []byte(runID), canonicalOr(data)}
}

func denialMAC(s Sealer, runID string, d Denial) string {
	return s.Sum([]byte(macDenial), []byte(runID), []byte(d.ID), canonicalOr(d.Action))
}

func overrideParts(runID string, o event.Override) [][]byte {
	return [][]byte{[]byte(macOverride), []byte(runID), []byte(o.DenialID), canonicalOr(o.Action), []byte(o.By), []byte(o.Note), []byte(o.Nonce)}
}

func usedParts(runID, denialID, nonce string) [][]byte {
	return [][]byte{[]byte(macOverrideUsed), []byte(runID), []byte(denialID), []byte(nonce)}
}

// NewOverride returns the record of a person's override of denial d of run
// runID, authenticated with s (SPEC G12, G15). by and note say who approved
// and why. Only code acting for a person may call it.
func NewOverride(s Sealer, runID string, d Denial, by, note string) (event.Override, error) {
	if s == nil {
		return event.Override{}, errNoSealer
	}
	nonce, err := seal.Nonce()
	if err != nil {
		return event.Override{}, fmt.Errorf("override of %s: %w", d.ID, err)
	}
	o := event.Override{DenialID: d.ID, By: by, Note: note, Action: d.Action, Nonce: nonce}
	if o.MAC = s.Sum(overrideParts(runID, o)...); o.MAC == "" {
		return event.Override{}, errors.New("warden's key is unavailable, so no override can be made")
	}
	return o, nil
}

// grant is an override a person gave and the agent has not used yet.
type grant struct {
	denial Denial
	by     string
	note   string
	nonce  string
}

// denialLog keeps the latest denials, the overrides granted on them and
// the notes for the agent that overrides leave.
type denialLog struct {
	mu      sync.Mutex
	seq     int // the number of the run's latest denial, across resumes
	denials []Denial
	grants  []grant
	notes   []chat.Message
}

// add keeps d as the newest denial, forgetting the oldest beyond
// MaxDenials. It gives d the run's next denial ID.
func (l *denialLog) add(runID string, d Denial) Denial {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	d.ID = fmt.Sprintf("%s-d%d", runID, l.seq)
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

// Denials returns the run's latest auto-review denials, oldest first (at
// most MaxDenials).
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
		o, err := NewOverride(g.Sealer, g.runID(), d, by, note)
		if err != nil {
			return err
		}
		gr := grant{denial: d, by: by, note: note, nonce: o.Nonce}
		l.grants = append(l.grants, gr)
		l.notes = append(l.notes, personNote(gr))
		g.Events.Emit(o)
		return nil
	}
	return fmt.Errorf("no denial %q among the run's last %d", id, MaxDenials)
}

// used records that the grant gr was taken, so that no resume grants it
// again.
func (g *Gate) used(rec *event.Recorder, gr grant) {
	u := event.OverrideUsed{DenialID: gr.denial.ID, Nonce: gr.nonce}
	if g.Sealer != nil {
		u.MAC = g.Sealer.Sum(usedParts(g.runID(), u.DenialID, u.Nonce)...)
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
const PersonNotePrefix = "[warden: from the person, through warden's approval channel — not from a tool, a file or the agent]"

// personNote is warden's statement to the agent that a person approved one
// retry of exactly the action of g (SPEC G12). It is a system message, not a
// user one, and it names the denial and the call by their ids: it carries
// nothing the agent wrote (not the action, whose values — a justification
// among them — the agent chose), so neither the agent nor the auto-reviewer,
// which never reads system messages of the agent's history, can take the
// agent's words for the person's.
func personNote(g grant) chat.Message {
	var b strings.Builder
	b.WriteString(PersonNotePrefix + "\n")
	fmt.Fprintf(&b, "Warden states: the person approved one retry of exactly the action auto-review denied as %s", safeNoteID(g.denial.ID))
	if g.denial.CallID != "" {
		fmt.Fprintf(&b, " (your tool call %s)", safeNoteID(g.denial.CallID))
	}
	b.WriteString(".\nYou may retry that exact action once, in the same form. It will still be reviewed; this approval covers nothing else, not even similar actions.")
	if g.note != "" {
		b.WriteString("\nThe person's note: " + g.note)
	}
	return chat.Message{Role: chat.System, Content: b.String()}
}

// safeNoteID keeps an id to letters, digits and "-_.:", at most 128 bytes,
// so that it cannot carry words into the note.
func safeNoteID(id string) string {
	if len(id) > 128 {
		id = id[:128]
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == ':':
			return r
		}
		return '_'
	}, id)
}

// Ledger rebuilds the denial log and the overrides of a stored run from
// its transcript, trusting only what verifies (SPEC G12, G15): denials and
// overrides whose MAC does not verify under the run's Sealer are refused
// with a warning, never granted; an override whose use is recorded is never
// granted again; and denial IDs continue after the highest one the run has
// issued. Read the transcript's events in order with Read.
type Ledger struct {
	runID    string
	sealer   Sealer
	seq      int
	denials  []Denial
	grants   []grant
	used     map[string]bool
	warnings []string
	started  bool // a run_start was read
}

// NewLedger returns an empty ledger of run runID, verifying with s (nil
// refuses every override).
func NewLedger(runID string, s Sealer) *Ledger {
	return &Ledger{runID: runID, sealer: s, used: map[string]bool{}}
}

// Read takes the next event of the run's transcript. For an override that
// verifies, it returns the note the agent's conversation holds from the
// person at that point.
func (l *Ledger) Read(e event.Event) *chat.Message {
	switch d := e.Data.(type) {
	case event.AutoReview:
		if n, ok := denialNumber(l.runID, d.DenialID); ok && n > l.seq {
			l.seq = n
		}
		if d.Status != action.StatusDenied || d.DenialID == "" {
			return nil
		}
		den := Denial{ID: d.DenialID, CallID: d.CallID, Action: d.Action, RiskLevel: d.RiskLevel, Rationale: d.Rationale, Time: e.Time}
		if l.sealer == nil || !l.sealer.Verify(d.MAC, []byte(macDenial), []byte(l.runID), []byte(den.ID), canonicalOr(den.Action)) {
			l.warn("refused denial %s: it is not warden's own record (its MAC does not verify), so it cannot be overridden", d.DenialID)
			return nil
		}
		l.denials = append(l.denials, den)
		if len(l.denials) > MaxDenials {
			l.denials = l.denials[1:]
		}
	case event.Override:
		if l.sealer == nil || d.Nonce == "" || !l.sealer.Verify(d.MAC, overrideParts(l.runID, d)...) {
			l.warn("refused an override of %s: only the person's channel can create one, and this record's MAC does not verify; nothing is granted", d.DenialID)
			return nil
		}
		if l.used[d.Nonce] {
			return nil
		}
		g := grant{denial: Denial{ID: d.DenialID, Action: d.Action}, by: d.By, note: d.Note, nonce: d.Nonce}
		l.grants = append(l.grants, g)
		note := personNote(g)
		return &note
	case event.OverrideUsed:
		// A use record only ever withdraws a grant; one that does not
		// verify still does, with a warning.
		if l.sealer == nil || !l.sealer.Verify(d.MAC, usedParts(l.runID, d.DenialID, d.Nonce)...) {
			l.warn("a record of the use of an override of %s does not verify; the override is withdrawn all the same", d.DenialID)
		}
		l.used[d.Nonce] = true
		for i, g := range l.grants {
			if g.nonce == d.Nonce {
				l.grants = append(l.grants[:i], l.grants[i+1:]...)
				break
			}
		}
	}
	return nil
}

// RunStart reports whether the run_start record d is the run's start as
// warden recorded it (SPEC G15): the first run_start of the transcript,
// verifying under the Sealer. Any other is refused with a warning: the run
// cannot be resumed from it, since its task file, working directory,
// policies and sandbox could be the agent's.
func (l *Ledger) RunStart(d event.RunStart) bool {
	if l.started {
		l.warn("ignored a further run_start record: a run starts once")
		return false
	}
	l.started = true
	if l.sealer == nil || d.MAC == "" || !l.sealer.Verify(d.MAC, runStartParts(l.runID, d)...) {
		l.warn("refused the run's start record: warden did not record it (its MAC does not verify), so neither its task file, working directory, policies nor sandbox are trusted")
		return false
	}
	return true
}

// TurnInput returns the person's request of a turn_start event of the
// transcript, and whether it verifies as one warden recorded: a request
// that does not is refused with a warning, so that a line the agent wrote
// cannot speak for the person when the run resumes (SPEC G15).
func (l *Ledger) TurnInput(d event.TurnStart) (string, bool) {
	if l.sealer == nil || !l.sealer.Verify(d.MAC, turnParts(l.runID, d.Input)...) {
		l.warn("refused a request of the person in the transcript that warden did not record (its MAC does not verify): %.80q", d.Input)
		return "", false
	}
	return d.Input, true
}

func (l *Ledger) warn(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// Denials returns the run's latest denials that verify, oldest first.
func (l *Ledger) Denials() []Denial { return append([]Denial(nil), l.denials...) }

// Warnings returns what the ledger refused, one message each.
func (l *Ledger) Warnings() []string { return append([]string(nil), l.warnings...) }

// FindDenial returns the denial id among the latest denials that verify.
func (l *Ledger) FindDenial(id string) (Denial, bool) {
	for _, d := range l.denials {
		if d.ID == id {
			return d, true
		}
	}
	return Denial{}, false
}

// Restore gives the gate of a resumed run the denial log of l: its latest
// denials, the overrides not used yet and the numbering of further denials.
func (g *Gate) Restore(l *Ledger) {
	dl := &g.denials
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.denials = append([]Denial(nil), l.denials...)
	dl.grants = append([]grant(nil), l.grants...)
	dl.seq = max(dl.seq, l.seq)
}

// denialNumber returns N of a denial ID "<runID>-dN".
func denialNumber(runID, id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, runID+"-d")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0 && n < 1<<30
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

// canonicalOr returns the canonical form of a JSON text, or the text when it
// is not JSON.
func canonicalOr(data []byte) []byte {
	if c, err := canonical(data); err == nil {
		return c
	}
	return data
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
