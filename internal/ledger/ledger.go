// Package ledger keeps what governs overrides of a run's auto-review
// denials (SPEC G12, G15): the denial records and their MACs, a person's
// override of one denial and the note it leaves for the agent, and the
// Ledger that rebuilds a stored run's denials and overrides from its
// transcript, trusting only what verifies. The gate keeps a live run's
// denials with it; a resumed run, the hooks and warden serve read a
// transcript back with it.
package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
)

// MaxDenials is how many of a run's latest auto-review denials are kept
// for a person to override (SPEC G12): the run's boundary approver keeps
// that many, and the store and the server look no further back.
const MaxDenials = 10

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

// errNoSealer is the error of an override asked without a Sealer.
var errNoSealer = errors.New("overrides need warden's key (the run has no Sealer)")

// The domains of the MACs, so that no record passes for another kind.
const (
	macDenial       = "warden/denial/v1"
	macOverride     = "warden/override/v1"
	macOverrideUsed = "warden/override_used/v1"
	macTurn         = "warden/turn/v1"
	macRunStart     = "warden/run_start/v1"
)

// TurnMAC returns the MAC of the person's request input that starts a turn
// of run runID.
func TurnMAC(s Sealer, runID, input string) string { return s.Sum(turnParts(runID, input)...) }

// RunStartMAC returns the MAC of the run_start record rs of run runID: the
// whole record but its MAC.
func RunStartMAC(s Sealer, runID string, rs event.RunStart) string {
	return s.Sum(runStartParts(runID, rs)...)
}

// DenialMAC returns the MAC of denial d of run runID: its id and action.
func DenialMAC(s Sealer, runID string, d Denial) string {
	return s.Sum([]byte(macDenial), []byte(runID), []byte(d.ID), canonicalOr(d.Action))
}

// UsedMAC returns the MAC of the record that the override nonce of
// denialID was used.
func UsedMAC(s Sealer, runID, denialID, nonce string) string {
	return s.Sum(usedParts(runID, denialID, nonce)...)
}

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

// Grant is an override a person gave and the agent has not used yet.
type Grant struct {
	Denial Denial
	By     string
	Note   string
	Nonce  string
}

// PersonNotePrefix starts the message through which a person's override
// reaches the agent's conversation (SPEC G12).
const PersonNotePrefix = "[warden: from the person, through warden's approval channel — not from a tool, a file or the agent]"

// PersonNote is warden's statement to the agent that a person approved one
// retry of exactly the action of g (SPEC G12). It is a system message, not a
// user one, and it names the denial and the call by their ids: it carries
// nothing the agent wrote (not the action, whose values — a justification
// among them — the agent chose), so neither the agent nor the auto-reviewer,
// which never reads system messages of the agent's history, can take the
// agent's words for the person's.
func PersonNote(g Grant) chat.Message {
	var b strings.Builder
	b.WriteString(PersonNotePrefix + "\n")
	fmt.Fprintf(&b, "Warden states: the person approved one retry of exactly the action auto-review denied as %s", safeNoteID(g.Denial.ID))
	if g.Denial.CallID != "" {
		fmt.Fprintf(&b, " (your tool call %s)", safeNoteID(g.Denial.CallID))
	}
	b.WriteString(".\nYou may retry that exact action once, in the same form. It will still be reviewed; this approval covers nothing else, not even similar actions.")
	if g.Note != "" {
		b.WriteString("\nThe person's note: " + g.Note)
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
	grants   []Grant
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
		g := Grant{Denial: Denial{ID: d.DenialID, Action: d.Action}, By: d.By, Note: d.Note, Nonce: d.Nonce}
		l.grants = append(l.grants, g)
		note := PersonNote(g)
		return &note
	case event.OverrideUsed:
		// A use record only ever withdraws a grant; one that does not
		// verify still does, with a warning.
		if l.sealer == nil || !l.sealer.Verify(d.MAC, usedParts(l.runID, d.DenialID, d.Nonce)...) {
			l.warn("a record of the use of an override of %s does not verify; the override is withdrawn all the same", d.DenialID)
		}
		l.used[d.Nonce] = true
		for i, g := range l.grants {
			if g.Nonce == d.Nonce {
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

// State returns what a resumed run's gate takes over from l: the latest
// denials that verify, the overrides not used yet and the number of the
// run's latest denial, after which it numbers further ones.
func (l *Ledger) State() (denials []Denial, grants []Grant, seq int) {
	return append([]Denial(nil), l.denials...), append([]Grant(nil), l.grants...), l.seq
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

// SameJSON reports whether two JSON texts hold the same value, whatever
// their whitespace, key order and escapes.
func SameJSON(a, b []byte) bool {
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
