package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
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
	// Denials are the run's latest auto-review denials, oldest first.
	Denials []agent.Denial
	// Overrides are the overrides not used yet, by denial id.
	Overrides []event.Override
	// Events counts the transcript's events.
	Events int
}

// TranscriptPath returns where the transcript of runID lives under
// $WARDEN_HOME.
func TranscriptPath(runID string) string {
	return filepath.Join(Home(), "runs", runID+".jsonl")
}

// LoadStored reads the transcript at path.
func LoadStored(path string) (*Stored, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := &Stored{Path: path}
	used := map[string]bool{}
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
	err = event.Read(f, func(e event.Event) error {
		st.Events++
		if st.RunID == "" {
			st.RunID = e.RunID
		}
		switch d := e.Data.(type) {
		case event.RunStart:
			withholdPending()
			st.TaskFile, st.Model = d.TaskFile, d.Model
		case event.TurnStart:
			withholdPending()
			st.Messages = append(st.Messages, chat.Message{Role: chat.User, Content: d.Input})
		case event.RunEnd:
			clear(pending)
		case event.Model:
			if e.Agent == agent.MainAgent {
				clear(pending)
				out := d.Output
				out.Role = chat.Assistant
				st.Messages = append(st.Messages, out)
			}
		case event.Tool:
			if e.Agent == agent.MainAgent {
				pending[d.CallID] = append(pending[d.CallID], len(st.Messages))
				st.Messages = append(st.Messages, chat.Message{Role: chat.Tool, Content: d.Result, ToolCallID: d.CallID, Function: d.Function, Error: d.Error})
			}
		case event.Review:
			// A transcript written before withheld events existed still
			// never sends a terminated result.
			if e.Agent == agent.MainAgent && d.Decision == string(review.Terminate) {
				withhold(d.CallID, &tool.Error{Type: tool.ErrLimit, Message: "the run was stopped at this call (reviewer " + d.Reviewer + " terminated the run); its result was withheld"})
			}
		case event.Withheld:
			// The model received the error instead of the result (SPEC R2).
			if e.Agent == agent.MainAgent {
				te := d.Error
				if te == nil {
					te = &tool.Error{Type: tool.ErrLimit, Message: "the run was stopped at this call; its result was withheld"}
				}
				withhold(d.CallID, te)
			}
		case event.AutoReview:
			if d.Status == event.ReviewDenied && d.DenialID != "" && d.Source != event.SourceOverride {
				st.Denials = append(st.Denials, agent.Denial{ID: d.DenialID, CallID: d.CallID, Action: d.Action, RiskLevel: d.RiskLevel, Rationale: d.Rationale, Time: e.Time})
				if len(st.Denials) > agent.MaxDenials {
					st.Denials = st.Denials[1:]
				}
			}
			if d.Source == event.SourceOverride && d.DenialID != "" {
				used[d.DenialID] = true
			}
		case event.Override:
			st.Overrides = append(st.Overrides, d)
			delete(used, d.DenialID) // a new override of the same denial
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.RunID == "" {
		return nil, fmt.Errorf("%s: an empty transcript", path)
	}
	var overrides []event.Override
	for _, o := range st.Overrides {
		if !used[o.DenialID] {
			overrides = append(overrides, o)
		}
	}
	st.Overrides = overrides
	withholdPending()
	st.Messages = agent.CloseCalls(st.Messages)
	return st, nil
}

// FindDenial returns the denial id among the stored run's latest denials.
func (st *Stored) FindDenial(id string) (agent.Denial, bool) {
	for _, d := range st.Denials {
		if d.ID == id {
			return d, true
		}
	}
	return agent.Denial{}, false
}

// Resume prepares the next turn of the stored run at path: its task file
// (or opts' model) again, its conversation, denials and pending overrides,
// and input as the person's new request. New events are appended to the
// same transcript.
func Resume(path, input string, opts Options) (*Prepared, error) {
	st, err := LoadStored(path)
	if err != nil {
		return nil, err
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
	opts.Transcript, opts.RunID = path, st.RunID
	p, err := t.Prepare(opts)
	if err != nil {
		return nil, err
	}
	p.Run.Resumed = true
	p.Run.Events.Continue(st.Events)
	for _, d := range st.Denials {
		p.Run.Remember(d)
	}
	for _, o := range st.Overrides {
		if err := p.Run.RestoreOverride(o.DenialID, o.By, o.Note); err != nil {
			p.Close()
			return nil, fmt.Errorf("override of %s: %w", o.DenialID, err)
		}
	}
	p.Input = append(st.Messages, chat.Message{Role: chat.User, Content: input})
	return p, nil
}

// ApproveStored records a person's override of the denial id in the stored
// run at path (SPEC G12): the run may retry exactly that action once, when
// it resumes.
func ApproveStored(ctx context.Context, path, id, by, note string) error {
	st, err := LoadStored(path)
	if err != nil {
		return err
	}
	if _, ok := st.FindDenial(id); !ok {
		var ids []string
		for _, d := range st.Denials {
			ids = append(ids, d.ID)
		}
		return fmt.Errorf("run %s has no denial %q among its last %d (denials: %v)", st.RunID, id, agent.MaxDenials, ids)
	}
	f, err := event.Create(path)
	if err != nil {
		return err
	}
	rec := event.NewRecorder(st.RunID, event.NewWriter(f))
	rec.Continue(st.Events)
	rec.Emit(event.Override{DenialID: id, By: by, Note: note})
	if err := rec.Err(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
