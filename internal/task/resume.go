package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/wardenhq/warden/internal/wardenhome"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/transcript"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// Stored is what a run's transcript says about it, for resuming it: its
// task, model, conversation, denials and the overrides a person gave.
type Stored struct {
	Path     string
	RunID    string
	TaskFile string
	Model    string
	// Messages is the main agent's conversation (without its system
	// prompt, which the agent adds).
	Messages []chat.Message
	// Denials are the run's latest auto-review denials, oldest first: those
	// that verify as warden's own records.
	Denials []gate.Denial
	// Ledger holds the denials and the overrides not used yet, verified
	// (SPEC G12, G15).
	Ledger *ledger.Ledger
	// Events counts the transcript's events.
	Events int
	// Start is the run's run_start: what it was prepared with.
	Start *event.RunStart
	// Turns counts the transcript's turn_start events.
	Turns int
	// CallIDs are the ids of the calls the transcript's models made.
	CallIDs []string
	// Cut, when set, is the transcript's last line, cut short by a crash:
	// the run is what came before it. Resuming removes the cut line first.
	Cut *event.CutLineError
	// sealed is what verifying the transcript found (SPEC L8).
	sealed *transcript.Sealed
	// LastSeq is the highest number of the run's event ids (RUN-NNNNNN),
	// the cut line counted: new events are numbered after it, so no id is
	// ever given twice (SPEC L8).
	LastSeq int
}

// keyPath returns where warden keeps the key that authenticates overrides
// (SPEC G15): wardenhome.KeyPath.
func keyPath() string { return wardenhome.KeyPath() }

// loadStateKey returns the key that authenticates denials and overrides
// (SPEC G15): the file at keyPath, read — or created, 0600 — when first
// used. A key that cannot be read or created authenticates nothing: MACs
// are empty, nothing verifies, and no override can be made.
func loadStateKey() gate.Sealer { return newStateKey() }

func newStateKey() *stateKey { return &stateKey{path: keyPath()} }

// stateKey is the key at path, loaded when first used.
type stateKey struct {
	path string
	once sync.Once
	key  *seal.Key
}

func (k *stateKey) load() *seal.Key {
	k.once.Do(func() {
		k.key, _ = seal.LoadOrCreate(k.path)
	})
	return k.key
}

// Sum implements gate.Sealer; it returns "" when the key is unavailable.
func (k *stateKey) Sum(parts ...[]byte) string {
	if key := k.load(); key != nil {
		return key.Sum(parts...)
	}
	return ""
}

// Verify implements gate.Sealer; nothing verifies when the key is
// unavailable.
func (k *stateKey) Verify(mac string, parts ...[]byte) bool {
	key := k.load()
	return key != nil && key.Verify(mac, parts...)
}

// Err reports why the key is unavailable, or nil.
func (k *stateKey) Err() error {
	if k.load() != nil {
		return nil
	}
	_, err := seal.LoadOrCreate(k.path)
	if err != nil {
		return fmt.Errorf("warden state: %w", err)
	}
	return nil
}

// TranscriptKey returns warden's key derived for sealing transcript lines
// (SPEC L8), creating warden's key when first used.
func TranscriptKey() (seal.MACKey, error) {
	k, err := seal.LoadOrCreate(keyPath())
	if err != nil {
		return nil, fmt.Errorf("warden state: %w", err)
	}
	return k.Derive(seal.LineKeyLabel), nil
}

// Heads returns where warden keeps the head records of transcripts (SPEC
// L8): $WARDEN_HOME/runs, as RUN_ID.head beside the default transcripts,
// in warden's protected state.
func Heads() seal.Heads { return seal.Heads(filepath.Join(homeDir(), "runs")) }

// VerifyTranscript checks the transcript at path as warden wrote it (SPEC
// L8): every line's MAC under this machine's warden key, the chain of each
// run, and, against warden's head record of each run, that none of its
// last lines were removed (a run with no head record is refused: the end
// of its chain cannot be checked). A broken chain is a *seal.ChainError
// naming the file and the first bad line; a last line cut short by a
// crash is a *event.CutLineError, after everything before it verified.
func VerifyTranscript(path string) (*transcript.Sealed, error) {
	key, err := TranscriptKey()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var order []string
	last := map[string]int{}
	n := 0
	s, err := transcript.ReadSealed(f, key, Heads(), func(e event.Event) error {
		n++
		if _, ok := last[e.RunID]; !ok {
			order = append(order, e.RunID)
		}
		last[e.RunID] = n
		return nil
	})
	var cut *event.CutLineError
	if err != nil && !errors.As(err, &cut) {
		return nil, atPath(path, err)
	}
	if s.Lines == 0 {
		return nil, fmt.Errorf("%s: an empty transcript", path)
	}
	for _, id := range order {
		if !s.Headed[id] {
			return nil, noHead(path, s.Lines+1, id)
		}
	}
	return s, err
}

// noHead is the error of a run warden has no head record of.
func noHead(path string, line int, runID string) error {
	return &seal.ChainError{Path: path, Line: line, RunID: runID,
		Err: fmt.Errorf("%w: warden has no head record of run %s (%s.head in %s), so the end of its transcript cannot be checked", seal.ErrTruncated, runID, runID, Heads())}
}

// atPath names path in err when it is a *seal.ChainError.
func atPath(path string, err error) error {
	var ce *seal.ChainError
	if errors.As(err, &ce) {
		ce.Path = path
	}
	return err
}

// TranscriptPath returns where the transcript of runID lives under
// $WARDEN_HOME.
func TranscriptPath(runID string) string {
	return filepath.Join(homeDir(), "runs", runID+".jsonl")
}

// LoadStored reads the transcript at path, which must verify as warden
// wrote it (SPEC L8): a line changed, removed, inserted or moved, a run's
// last lines removed, or a transcript not sealed at all is refused with a
// *seal.ChainError naming the file and the first bad line. Only a last
// line cut short by a crash is tolerated (Stored.Cut).
func LoadStored(path string) (*Stored, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lineKey, err := TranscriptKey()
	if err != nil {
		return nil, err
	}
	key := loadStateKey()
	st := &Stored{Path: path}
	// pending are the main agent's tool results since its last model event,
	// by call id: not yet seen by a model. A withheld event replaces one; a
	// model event or the end of the turn settles them; a turn that never
	// ended (a crash) withholds them (SPEC R2: fail closed). A model may
	// give two calls one id: a withheld id withholds every result under it.
	pending := map[string][]int{}
	withhold := func(id string, te *tool.Error) {
		for _, i := range pending[id] {
			st.Messages[i].Content, st.Messages[i].Error = te.Error(), te
		}
		delete(pending, id)
	}
	withholdPending := func() {
		for id := range pending {
			withhold(id, &tool.Error{Type: tool.ErrCancelled, Message: "the run ended before the result of this call was reviewed; its result was withheld"})
		}
	}
	var notes []chat.Message
	sealed, err := transcript.ReadSealed(f, lineKey, Heads(), func(e event.Event) error {
		st.Events++
		if e.RunID == st.RunID || st.RunID == "" {
			st.LastSeq = max(st.LastSeq, idSeq(e.RunID, e.ID))
		}
		if st.RunID == "" {
			st.RunID = e.RunID
			st.Ledger = ledger.NewLedger(st.RunID, key)
		}
		if note := st.Ledger.Read(e); note != nil {
			notes = append(notes, *note) // the person's override, told to the agent before the next request
		}
		switch d := e.Data.(type) {
		case event.RunStart:
			withholdPending()
			// Only the run's first start record, and only when it verifies
			// as warden's own, says how the run is resumed (SPEC G15).
			if st.Ledger.RunStart(d) {
				st.TaskFile, st.Model = d.TaskFile, d.Model
				st.Start = &d
			}
		case event.TurnStart:
			withholdPending()
			st.Turns++
			if input, ok := st.Ledger.TurnInput(d); ok { // only the person's own requests (SPEC G15)
				st.Messages = append(append(st.Messages, notes...), chat.Message{Role: chat.User, Content: input})
				notes = nil
			}
		case event.RunEnd:
			clear(pending)
		case event.Model:
			for _, c := range d.Output.ToolCalls {
				st.CallIDs = append(st.CallIDs, c.ID)
			}
			if e.Agent == eventkind.MainAgent {
				clear(pending)
				out := d.Output
				out.Role = chat.Assistant
				st.Messages = append(st.Messages, out)
			}
		case event.Tool:
			if e.Agent == eventkind.MainAgent {
				pending[d.CallID] = append(pending[d.CallID], len(st.Messages))
				st.Messages = append(st.Messages, chat.Message{Role: chat.Tool, Content: d.Result, ToolCallID: d.CallID, Function: d.Function, Error: d.Error})
			}
		case event.Review:
			// A transcript written before withheld events existed still
			// never sends a terminated result.
			if e.Agent == eventkind.MainAgent && d.Decision == string(review.Terminate) {
				withhold(d.CallID, &tool.Error{Type: tool.ErrLimit, Message: "the run was stopped at this call (reviewer " + d.Reviewer + " terminated the run); its result was withheld"})
			}
		case event.Withheld:
			// The model received the error instead of the result (SPEC R2).
			if e.Agent == eventkind.MainAgent {
				te := d.Error
				if te == nil {
					te = &tool.Error{Type: tool.ErrLimit, Message: "the run was stopped at this call; its result was withheld"}
				}
				withhold(d.CallID, te)
			}
		}
		return nil
	})
	if errors.As(err, &st.Cut) {
		err = nil
	}
	var ce *seal.ChainError
	if errors.As(err, &ce) {
		return nil, atPath(path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.RunID == "" {
		return nil, fmt.Errorf("%s: an empty transcript", path)
	}
	st.sealed = sealed
	if !sealed.Headed[st.RunID] {
		// The chain cannot show that its last lines are all there.
		return nil, noHead(path, sealed.Lines+1, st.RunID)
	}
	st.LastSeq = max(st.LastSeq, st.Events)
	if st.Cut != nil {
		st.LastSeq++ // the cut line had the next id, and a store may hold it
	}
	st.Denials = st.Ledger.Denials()
	withholdPending()
	st.Messages = append(agent.CloseCalls(st.Messages), notes...)
	return st, nil
}

// idSeq returns the number of event id "RUN-NNNNNN" of run runID, or 0.
func idSeq(runID, id string) int {
	rest, ok := strings.CutPrefix(id, runID+"-")
	if !ok || rest == "" || len(rest) > 12 {
		return 0
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// dropCut removes the transcript's cut last line, if any, so that what is
// appended follows the last complete event (the cut line never decodes, and
// left in the middle of the file it would make the transcript unreadable).
func (st *Stored) dropCut() error {
	if st.Cut == nil {
		return nil
	}
	if err := os.Truncate(st.Path, st.Cut.Offset); err != nil {
		return fmt.Errorf("%s: removing the cut last line: %w", st.Path, err)
	}
	// A head record that counted the cut line now counts the lines left.
	for _, id := range st.sealed.Ahead {
		if err := Heads().Write(id, st.sealed.Runs[id]); err != nil {
			return fmt.Errorf("%s: removing the cut last line: %w", st.Path, err)
		}
	}
	return nil
}

// cutWarning is the warning a resumed run records about the cut line it
// removed.
func (st *Stored) cutWarning() string {
	return fmt.Sprintf("the transcript's last line (line %d, %d bytes) was cut short, likely by a crash while it was written; it was removed and the run resumed from the last complete event", st.Cut.Line, st.Cut.Size)
}

// FindDenial returns the denial id among the stored run's latest denials.
func (st *Stored) FindDenial(id string) (gate.Denial, bool) {
	for _, d := range st.Denials {
		if d.ID == id {
			return d, true
		}
	}
	return gate.Denial{}, false
}

// Resume prepares the next turn of the stored run at path: its task file
// (or opts' model) again, its conversation, denials and pending overrides,
// and input as the person's new request. New events are appended to the
// same transcript.
//
// The transcript must verify as warden wrote it (SPEC L8, LoadStored), and
// when opts.RunID is set it must be that run's.
func Resume(path, input string, opts Options) (*Prepared, error) {
	st, err := LoadStored(path)
	var ce *seal.ChainError
	if errors.As(err, &ce) {
		return nil, fmt.Errorf("%w; the run cannot be resumed from a transcript warden cannot vouch for: start a new run", err)
	}
	if err != nil {
		return nil, err
	}
	if opts.RunID != "" && opts.RunID != st.RunID {
		return nil, fmt.Errorf("%s is the transcript of run %s, not of run %s; it cannot be resumed as that run", path, st.RunID, opts.RunID)
	}
	if st.Start == nil {
		return nil, errors.New(path + ": the transcript's run_start is not warden's own record (missing, or its MAC does not verify under this machine's warden key); it cannot be resumed, since its task file, working directory, policies and sandbox could have been written by the agent: start a new run")
	}
	if st.TaskFile == "" {
		return nil, errors.New(path + ": the transcript does not name its task file; it cannot be resumed")
	}
	t, err := Load(st.TaskFile)
	if err != nil {
		return nil, err
	}
	if opts.Model == "" {
		opts.Model = st.Model
	}
	if st.Start != nil {
		if w := st.Start.Workdir; w != "" && opts.Workdir == "" && t.Workdir == "" {
			if _, err := os.Stat(w); errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("run %s cannot be resumed: its workdir %s was a temporary directory, removed when the run ended; "+
					"run the task with --keep-workdir (or give it a workdir:) to resume it later", st.RunID, w)
			}
		}
		t, opts = resumeSettings(t, opts, st.Start)
	}
	opts.Transcript, opts.RunID = path, st.RunID
	if err := st.dropCut(); err != nil {
		return nil, err
	}
	p, err := t.Prepare(opts)
	if err != nil {
		return nil, err
	}
	p.Run.Resumed = true
	p.Run.Events.Continue(st.LastSeq)
	p.Run.ContinueCallIDs(st.Turns, st.CallIDs)
	if st.Cut != nil {
		p.Run.Events.Emit(event.Warning{Message: st.cutWarning()})
	}
	for _, w := range st.Ledger.Warnings() { // refused, never silently (SPEC G15)
		p.Run.Events.Emit(event.Warning{Message: w})
	}
	p.Gate.Restore(st.Ledger)
	p.Input = append(st.Messages, chat.Message{Role: chat.User, Content: input})
	return p, nil
}

// resumeSettings returns t and opts prepared as the stored run was (issue
// 10): its working directory, sandbox, rules, approvals reviewer, caps,
// pin_policy and (in Prepare) its run-level policies as resolved then. What
// opts give explicitly wins: --approval, --review, --sandbox,
// --approvals-reviewer, --auto-review-model, --max-output and the caps
// replace the recorded ones; --rules adds to the recorded rules;
// --pin-policy and --sandbox-unenforced can only be turned on. A
// transcript written before settings were recorded resumes from the task
// file as it is now.
func resumeSettings(t *Task, opts Options, start *event.RunStart) (*Task, Options) {
	if opts.Workdir == "" {
		opts.Workdir = start.Workdir
	}
	set := start.Settings
	if set == nil {
		return t, opts
	}
	rt := *t
	rt.at = nil // the settings are the transcript's, not the file's
	opts.stored = start
	rt.Rules = set.Rules
	rt.ApprovalsReviewer = set.ApprovalsReviewer
	rt.PinPolicy = start.PinPolicy
	rt.MaxOutput = set.MaxOutput
	rt.MaxConcurrentCalls, rt.MaxCallsPerMessage = set.MaxConcurrentCalls, set.MaxCallsPerMessage
	rt.Sandbox = nil
	if sb := set.Sandbox; sb != nil {
		rt.Sandbox = &SandboxConfig{Mode: sb.Mode, WritableRoots: sb.WritableRoots, NetworkAccess: sb.NetworkAccess}
		opts.SandboxUnenforced = opts.SandboxUnenforced || sb.Unenforced
	}
	if opts.AutoReviewModel == "" {
		opts.AutoReviewModel = set.AutoReviewModel
	}
	return &rt, opts
}

// ApproveStored records a person's override of the denial id in the stored
// run at path (SPEC G12), authenticated with warden's key (G15): the run
// may retry exactly that action once, when it resumes, and the agent is
// told so in a note from the person.
func ApproveStored(ctx context.Context, path, id, by, note string) error {
	st, err := LoadStored(path)
	if err != nil {
		return err
	}
	d, ok := st.FindDenial(id)
	if !ok {
		var ids []string
		for _, d := range st.Denials {
			ids = append(ids, d.ID)
		}
		return fmt.Errorf("run %s has no denial %q among its last %d (denials: %v)", st.RunID, id, ledger.MaxDenials, ids)
	}
	key := newStateKey()
	if err := key.Err(); err != nil {
		return err
	}
	o, err := ledger.NewOverride(key, st.RunID, d, by, note)
	if err != nil {
		return err
	}
	if err := st.dropCut(); err != nil {
		return err
	}
	lineKey, err := TranscriptKey()
	if err != nil {
		return err
	}
	f, err := transcript.Open(path, lineKey, Heads())
	if err != nil {
		return err
	}
	rec := event.NewRecorder(st.RunID, f)
	rec.Continue(st.LastSeq)
	if st.Cut != nil {
		rec.Emit(event.Warning{Message: st.cutWarning()})
	}
	rec.Emit(o)
	if err := rec.Err(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
