package govern

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/transcript"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// state is what a session's hooks carry from one to the next, so that a
// hook reads only what the transcript gained since the last: where the
// transcript stood (its checkpoint), how many events it holds, the turn's
// reviews and notes, and the lines the denial log and overrides are rebuilt
// from. It is kept beside the transcript, authenticated with warden's state
// key: a state file anything else wrote is ignored, and the transcript is
// read whole instead.
type state struct {
	Checkpoint transcript.Checkpoint `json:"checkpoint"`
	Events     int                   `json:"events"`
	Turn       []bool                `json:"turn,omitempty"`
	Tripped    bool                  `json:"tripped,omitempty"`
	Notes      []string              `json:"notes,omitempty"`
	Ledger     []json.RawMessage     `json:"ledger,omitempty"`
}

// stateFile is a state with its MAC.
type stateFile struct {
	State json.RawMessage `json:"state"`
	MAC   string          `json:"mac"`
}

const stateLabel = "warden/hook-session-state/v1"

// loadState reads the session's state; false when there is none, or it
// does not verify.
func (s *Session) loadState() (state, bool) {
	if s.fresh {
		if s.kept == nil {
			return state{}, false
		}
		return *s.kept, true
	}
	data, err := os.ReadFile(s.state)
	if err != nil {
		return state{}, false
	}
	var f stateFile
	if json.Unmarshal(data, &f) != nil || !s.key.Verify(f.MAC, []byte(stateLabel), []byte(s.RunID), f.State) {
		return state{}, false
	}
	var st state
	if json.Unmarshal(f.State, &st) != nil {
		return state{}, false
	}
	return st, true
}

// restore sets the session's state from st (the zero state: nothing
// read yet).
func (s *Session) restore(st state) {
	s.n, s.Turn, s.Tripped, s.Notes, s.ledger = st.Events, st.Turn, st.Tripped, nil, nil
	for _, n := range st.Notes {
		s.Notes = append(s.Notes, chat.Message{Role: chat.User, Content: n})
	}
	s.Ledger = ledger.NewLedger(s.RunID, s.key)
	for _, line := range st.Ledger {
		var e event.Event
		if json.Unmarshal(line, &e) == nil {
			s.Ledger.Read(e)
			s.ledger = append(s.ledger, line)
		}
	}
}

// saveState keeps the session's state for its next hook. It is written
// in place, under the session's lock that every reader takes too: a
// temporary file renamed over it cost a new inode and a rename, about
// 0.8 ms of every hook here, against 0.05 ms. A write cut short (a crash)
// leaves a file that does not verify, and the next hook reads the
// transcript whole instead.
func (s *Session) saveState(cp transcript.Checkpoint) error {
	st := state{Checkpoint: cp, Events: s.n, Turn: s.Turn, Tripped: s.Tripped, Ledger: s.ledger}
	for _, n := range s.Notes {
		st.Notes = append(st.Notes, n.Content)
	}
	if s.fresh {
		// Kept in memory: copies, as the session goes on appending to
		// its own.
		st.Turn, st.Ledger = slices.Clone(st.Turn), slices.Clone(st.Ledger)
		s.kept = &st
		return nil
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	data, err := json.Marshal(stateFile{State: raw, MAC: s.key.Sum([]byte(stateLabel), []byte(s.RunID), raw)})
	if err != nil {
		return err
	}
	if err := wardenhome.Rewrite(s.state, data); err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	return nil
}
