package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/transcript"
)

// Paths are where a host session's run lives in warden's state.
type Paths struct {
	// Runs is the directory of transcripts ($WARDEN_HOME/runs); their head
	// records are kept there too (seal.Heads).
	Runs string
	// Key is warden's state key ($WARDEN_HOME/keys/override.key): it
	// seals the transcript's lines and authenticates denials and overrides.
	Key string
}

// Session is a host session as a warden run (SPEC X1, X4): its transcript
// in warden's state, read back at every hook so that the denial log, the
// overrides a person granted and the breaker's count of the turn carry
// from one hook process to the next. One hook process of a session holds
// it at a time (a lock beside the transcript): concurrent hooks of one
// session (Codex runs matching hooks concurrently) take turns, and none
// loses an update.
type Session struct {
	RunID string
	// New says the session had no event before this hook (until its run
	// start is recorded).
	New bool
	// Events records into the run's transcript, numbered after the events
	// already there, and into Sink.
	Events *event.Recorder
	// Ledger is the run's denial log and overrides, as the transcript has
	// them (verified).
	Ledger *gate.Ledger
	// Turn are the reviews of boundary requests in the current turn,
	// oldest first, true for a denial (for the breaker).
	Turn []bool
	// Tripped says the breaker interrupted the current turn.
	Tripped bool
	// Notes are the person's overrides granted since the current turn
	// started, for the agent's context (SPEC G12).
	Notes []chat.Message
	// Sealer authenticates denials and overrides (the state key).
	Sealer gate.Sealer
	// Path is the transcript's path.
	Path string

	file *transcript.Transcript
	lock *os.File
	key  *seal.Key
	// n counts the run's events; ledger are the lines of those its denial
	// log and overrides are rebuilt from (see state).
	n      int
	ledger []json.RawMessage
	state  string
}

// plainID reports whether a host's session id may stand in a run id as
// it is: 1 to 80 letters, digits, '-' and '_'.
func plainID(id string) bool {
	if len(id) == 0 || len(id) > 80 {
		return false
	}
	for _, c := range []byte(id) {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// RunID returns the run id of host's session id: host-ID when the id is
// made of letters, digits, '-' and '_', else host-HASH, so that a run id is
// always a safe file name and one session is always one run.
func RunID(host, sessionID string) string {
	if plainID(sessionID) {
		return host + "-" + sessionID
	}
	sum := sha256.Sum256([]byte(sessionID))
	return host + "-" + hex.EncodeToString(sum[:12])
}

// OpenSession opens the run of session id of host, locked for this
// process until Close, and reads its state back from the transcript.
// sink, when set, also receives every event recorded (the store, the
// server).
func OpenSession(p Paths, host, sessionID string, sink event.Sink) (_ *Session, err error) {
	s := &Session{RunID: RunID(host, sessionID)}
	s.Path = filepath.Join(p.Runs, s.RunID+".jsonl")
	if err := os.MkdirAll(p.Runs, 0o700); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if s.lock, err = os.OpenFile(filepath.Join(p.Runs, s.RunID+".lock"), os.O_CREATE|os.O_RDWR, 0o600); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	defer func() {
		if err != nil {
			s.lock.Close()
		}
	}()
	for {
		err = syscall.Flock(int(s.lock.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("session: locking %s: %w", s.RunID, err)
	}
	key, err := seal.LoadOrCreate(p.Key)
	if err != nil {
		return nil, fmt.Errorf("warden state: %w", err)
	}
	s.Sealer, s.key = key, key
	s.state = filepath.Join(p.Runs, s.RunID+".state")
	lineKey := key.Derive(seal.LineKeyLabel)
	heads := seal.Heads(p.Runs)
	if st, ok := s.loadState(); ok {
		// Only what was appended since this session's last hook is read.
		s.restore(st)
		if s.file, err = transcript.OpenAt(s.Path, lineKey, heads, st.Checkpoint, s.count); err != nil {
			s.file = nil
		}
	}
	if s.file == nil {
		s.restore(state{})
		if f, err := os.Open(s.Path); err == nil {
			_, err = transcript.ReadSealed(f, lineKey, heads, s.count)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("session %s: %w", s.RunID, err)
			}
		} else if !os.IsNotExist(err) {
			return nil, fmt.Errorf("session: %w", err)
		}
		if s.file, err = transcript.Open(s.Path, lineKey, heads); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
	}
	s.New = s.n == 0
	// Every event recorded updates the session's state too (the recorder
	// numbers events on from the count restored; count goes on counting).
	w := event.Tee(s.file, event.SinkFunc(s.count))
	if sink != nil {
		w = event.Tee(w, sink)
	}
	s.Events = event.NewRecorder(s.RunID, w)
	s.Events.Continue(s.n)
	return s, nil
}

// count takes the next event of the run's transcript, read back.
func (s *Session) count(e event.Event) error {
	s.n++
	s.read(e)
	return nil
}

// read takes the next event of the run's transcript.
func (s *Session) read(e event.Event) {
	note := s.Ledger.Read(e)
	keep := false
	switch d := e.Data.(type) {
	case event.AutoReview:
		keep = d.DenialID != ""
	case event.Override, event.OverrideUsed:
		keep = true
	}
	if line, err := json.Marshal(e); keep && err == nil {
		s.ledger = append(s.ledger, line)
		s.pruneLedger()
	}
	switch d := e.Data.(type) {
	case event.TurnStart:
		s.Turn, s.Tripped, s.Notes = nil, false, nil
	case event.AutoReview:
		s.Turn = append(s.Turn, d.Status == action.StatusDenied)
	case event.Limit:
		if d.Type == event.LimitInterrupt {
			s.Tripped = true
		}
	}
	if note != nil {
		s.Notes = append(s.Notes, *note)
	}
}

// pruneLedger keeps, of the denials the session's state carries, the
// latest 2×MaxDenials (the ledger keeps MaxDenials; their numbering
// continues after the latest), and every override and its use.
func (s *Session) pruneLedger() {
	denials := 0
	for _, l := range s.ledger {
		if isDenialLine(l) {
			denials++
		}
	}
	if denials <= 2*gate.MaxDenials {
		return
	}
	drop := denials - 2*gate.MaxDenials
	out := s.ledger[:0]
	for _, l := range s.ledger {
		if drop > 0 && isDenialLine(l) {
			drop--
			continue
		}
		out = append(out, l)
	}
	s.ledger = out
}

// isDenialLine reports whether a ledger line is an auto_review record.
func isDenialLine(l json.RawMessage) bool {
	return bytes.HasPrefix(l, []byte(`{"event":"auto_review"`))
}

// Close closes the transcript, keeps the session's state for its next
// hook, and lets that hook in.
func (s *Session) Close() error {
	var errs []error
	if s.file != nil {
		if s.Events.Err() == nil {
			errs = append(errs, s.saveState(s.file.Checkpoint()))
		}
		errs = append(errs, s.file.Close())
	}
	errs = append(errs, s.Events.Err())
	if s.lock != nil {
		errs = append(errs, s.lock.Close())
	}
	return errors.Join(errs...)
}
