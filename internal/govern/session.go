package govern

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/eventid"
	"github.com/wardenhq/warden/internal/ledger"
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

// Session is a governed session as a warden run (SPEC X1, X4, X2): a
// host's session, or an MCP client's (held open by warden mcp). Its transcript
// in warden's state, read back at every hook so that the denial log, the
// overrides a person granted and the breaker's count of the turn carry
// from one hook process to the next. One hook process of a session holds
// it at a time (a lock beside the transcript): concurrent hooks of one
// session (Codex runs matching hooks concurrently) take turns, and none
// loses an update. A hook waiting for a person or the reviewer agent lets
// the lock go meanwhile (Unlock, Lock).
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
	Ledger *ledger.Ledger
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
	// lock is the session's lock file; nil for a new session (Options.New),
	// which no other process holds.
	lock *os.File
	// dir is the runs directory, open: Refresh looks the transcript's
	// name up in it, not its whole path.
	dir  *os.File
	key  *seal.Key
	runs string
	// out writes a recorded event: the transcript, the count, the sink.
	out event.Sink
	// mu guards held, file and waiting; held says this process holds the
	// session's lock; waiting are events recorded while it did not.
	mu      sync.Mutex
	held    bool
	waiting []event.Event
	// n counts the run's events; ledger are the lines of those its denial
	// log and overrides are rebuilt from (see state).
	n      int
	ledger []json.RawMessage
	state  string
	// kept is a new session's state while it is unlocked (Options.New: in
	// memory, not in a state file).
	kept *state
	// fresh says the session is new (Options.New).
	fresh bool
}

// Options are how a process that opens many sessions (warden mcp) opens
// one.
type Options struct {
	// Key is warden's state key, loaded once (seal.LoadOrCreate of
	// Paths.Key); nil loads it from Paths.Key.
	Key *seal.Key
	// New says the session id was just made by the caller, at random, for
	// this session alone (a warden mcp client session): no other process
	// holds or will open the run, so the session takes no lock file, and
	// keeps its state in memory while it is unlocked, not in a state file
	// beside the transcript. A run whose transcript exists already is
	// refused.
	New bool
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
// process until Close (Unlock lets it go meanwhile), and reads its state
// back from the transcript. sink, when set, also receives every event
// recorded (the store, the server).
func OpenSession(p Paths, host, sessionID string, sink event.Sink) (_ *Session, err error) {
	return Open(p, host, sessionID, sink, Options{})
}

// Open is OpenSession with options.
func Open(p Paths, host, sessionID string, sink event.Sink, o Options) (_ *Session, err error) {
	s := &Session{RunID: RunID(host, sessionID), runs: p.Runs, fresh: o.New}
	s.Path = filepath.Join(p.Runs, s.RunID+".jsonl")
	if err := os.MkdirAll(p.Runs, 0o700); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if !s.fresh {
		if s.lock, err = os.OpenFile(filepath.Join(p.Runs, s.RunID+".lock"), os.O_CREATE|os.O_RDWR, 0o600); err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
	}
	if s.dir, err = os.Open(p.Runs); err != nil {
		if s.lock != nil {
			s.lock.Close()
		}
		return nil, fmt.Errorf("session: %w", err)
	}
	defer func() {
		if err != nil {
			if s.lock != nil {
				s.lock.Close()
			}
			s.dir.Close()
		}
	}()
	key := o.Key
	if key == nil {
		if key, err = seal.LoadOrCreate(p.Key); err != nil {
			return nil, fmt.Errorf("warden state: %w", err)
		}
	}
	s.Sealer, s.key = key, key
	s.state = filepath.Join(p.Runs, s.RunID+".state")
	// Every event recorded updates the session's state too (the recorder
	// numbers events on from the count restored; count goes on counting).
	s.out = event.Tee(transcriptSink{s}, event.SinkFunc(s.count))
	if sink != nil {
		s.out = event.Tee(s.out, sink)
	}
	if err := s.Lock(); err != nil {
		return nil, err
	}
	s.New = s.n == 0
	s.Events = event.NewRecorder(s.RunID, event.SinkFunc(s.emit))
	s.Events.Continue(s.n)
	return s, nil
}

// Lock takes the session's lock (waiting for the hook holding it) and
// reads what its other hooks recorded since this one last held it; events
// recorded meanwhile (Unlock) are then written, numbered after theirs.
func (s *Session) Lock() (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return nil
	}
	for s.lock != nil {
		err = syscall.Flock(int(s.lock.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("session: locking %s: %w", s.RunID, err)
	}
	s.held = true
	lineKey := s.key.Derive(seal.LineKeyLabel)
	heads := seal.Heads(s.runs)
	s.file = nil
	if st, ok := s.loadState(); ok {
		// Only what was appended since this session's last hook is read.
		s.restore(st)
		if s.file, err = transcript.OpenAt(s.Path, lineKey, heads, st.Checkpoint, s.count); err != nil {
			s.file = nil
		}
	}
	if s.file == nil && s.fresh && s.kept == nil {
		// A new session's first Lock: there is nothing to read back, and
		// a transcript under its name is not its own.
		s.restore(state{})
		if s.file, err = transcript.Open(s.Path, lineKey, heads); err != nil {
			s.held = false
			return fmt.Errorf("session: %w", err)
		}
		if s.file.Size() != 0 {
			s.file.Close()
			s.file, s.held = nil, false
			return fmt.Errorf("session %s: a new session's run has a transcript already", s.RunID)
		}
	}
	if s.file == nil {
		s.restore(state{})
		if f, err := os.Open(s.Path); err == nil {
			_, err = transcript.ReadSealed(f, lineKey, heads, s.count)
			f.Close()
			if err != nil {
				return fmt.Errorf("session %s: %w", s.RunID, err)
			}
		} else if !os.IsNotExist(err) {
			return fmt.Errorf("session: %w", err)
		}
		if s.file, err = transcript.Open(s.Path, lineKey, heads); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	// Lines another process appends while this one holds the transcript
	// open (a person's override) are read into the state as the next
	// write finds them, so that Refresh, which sees the file's size
	// already counted then, does not miss them.
	s.file.OnAppended(s.count)
	waiting := s.waiting
	s.waiting = nil
	for _, e := range waiting {
		e.ID = eventid.Make(s.RunID, s.n+1)
		if err := s.out.Write(e); err != nil {
			return fmt.Errorf("session %s: %w", s.RunID, err)
		}
	}
	if s.Events != nil {
		s.Events.Continue(s.n)
	}
	return nil
}

// Refresh reads what other warden processes appended to the run's
// transcript since this one last read it (a person's override granted by
// `warden auto-review approve`, SPEC G12), when the file grew: a holder
// that keeps the session open for long (warden mcp) calls it before each
// call is decided, as each hook process reads the session when it starts.
func (s *Session) Refresh() error {
	s.mu.Lock()
	f, held := s.file, s.held
	s.mu.Unlock()
	if !held {
		return nil
	}
	if f != nil {
		// The name is looked up again at every call, in the runs
		// directory this session holds (as it holds its lock file there):
		// a transcript replaced under the name is seen as one that changed.
		var st unix.Stat_t
		if err := unix.Fstatat(int(s.dir.Fd()), filepath.Base(s.Path), &st, 0); err == nil && st.Size == f.Size() {
			return nil
		}
	}
	if err := s.Unlock(); err != nil {
		return err
	}
	return s.Lock()
}

// Unlock lets the session's other hooks in while this one waits (for a
// person, for the reviewer agent): what it recorded is kept for the next
// (its state saved, the transcript closed), and what it records until Lock
// waits in memory for Lock to write it.
func (s *Session) Unlock() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return nil
	}
	err := s.closeFile()
	if s.lock == nil {
		s.held = false
		return err
	}
	if uerr := syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN); uerr != nil && err == nil {
		err = fmt.Errorf("session: unlocking %s: %w", s.RunID, uerr)
	}
	s.held = false
	return err
}

// closeFile keeps the session's state for its next hook and closes the
// transcript.
func (s *Session) closeFile() error {
	if s.file == nil {
		return nil
	}
	var errs []error
	if s.Events == nil || s.Events.Err() == nil {
		errs = append(errs, s.saveState(s.file.Checkpoint()))
	}
	errs = append(errs, s.file.Close())
	s.file = nil
	return errors.Join(errs...)
}

// emit takes an event the session's recorder stamped: written while the
// lock is held, else kept for Lock.
func (s *Session) emit(e event.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		s.waiting = append(s.waiting, e)
		return nil
	}
	return s.out.Write(e)
}

// transcriptSink writes into the session's transcript as it is open now,
// keeping each event's sealed line for the sinks after it.
type transcriptSink struct{ s *Session }

// Write implements event.Sink.
func (t transcriptSink) Write(e event.Event) error { return t.s.file.Write(e) }

// WriteLine writes e and returns its sealed line and the id the line
// gives it (numbered after what other processes appended).
func (t transcriptSink) WriteLine(e event.Event) ([]byte, string, error) {
	return t.s.file.WriteLine(e)
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
	// Only the events kept are marshalled: an event the transcript sealed
	// or read marshals to its sealed line, copied here so that the state
	// never shares the transcript's buffer.
	if keep {
		if line, err := e.MarshalJSON(); err == nil {
			s.ledger = append(s.ledger, bytes.Clone(line))
			s.pruneLedger()
		}
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
	if denials <= 2*ledger.MaxDenials {
		return
	}
	drop := denials - 2*ledger.MaxDenials
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
	errs = append(errs, s.Lock()) // writes what waited, if anything did
	s.mu.Lock()
	errs = append(errs, s.closeFile(), s.Events.Err())
	s.held = false
	s.mu.Unlock()
	if s.lock != nil {
		errs = append(errs, s.lock.Close())
	}
	if s.dir != nil {
		errs = append(errs, s.dir.Close())
	}
	return errors.Join(errs...)
}
