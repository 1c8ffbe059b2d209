package task

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/human" // also the default approvals reviewer: a person
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/toolbox"
)

// Options are the run-level settings of `warden run`. Zero values defer to
// the task file and then to the defaults.
type Options struct {
	// Model is a model spec; empty means the task's.
	Model        string
	ModelOptions model.Options
	// Approval and Review, when non-empty, replace the task's policies
	// wholesale (SPEC P4): a file path or a registered name.
	Approval string
	Review   string
	// Transcript is the JSONL path; empty means $WARDEN_HOME/runs/<id>.jsonl.
	Transcript string
	// MaxOutput, when set, overrides the task's max_output (0 disables).
	MaxOutput *int
	// Sink, when set, also receives every event (for live rendering, a
	// store, a server).
	Sink event.Sink
	// Queue, when set, is where a person decides the requests of the
	// run's "human" approvers and reviewers (the web panel, the API);
	// nil asks at the console (SPEC H1).
	Queue human.Queue
	// Sandbox, when set, is the sandbox mode, replacing the task's.
	Sandbox string
	// SandboxUnenforced accepts running read-only and workspace-write
	// commands without kernel enforcement where Landlock is missing.
	SandboxUnenforced bool
	// Rules are exec rules files added to the task's.
	Rules []string
	// ApprovalsReviewer, when set, replaces the task's approvals_reviewer.
	ApprovalsReviewer string
	// AutoReviewModel is the model spec of the reviewer agent; empty means
	// the run's model.
	AutoReviewModel string
	// RunID, when set, is the id of the run (a resumed run keeps its own).
	RunID string
	// PinPolicy makes the run's policies (Approval and Review, else the
	// task's) apply to every agent, replacing the agents' own; the task's
	// pin_policy: true does the same.
	PinPolicy bool
	// MaxConcurrentCalls and MaxCallsPerMessage, when positive, replace
	// the task's max_concurrent_calls and max_calls_per_message (SPEC L1).
	MaxConcurrentCalls int
	MaxCallsPerMessage int
	// Workdir, when set, is the run's working directory, replacing the
	// task's workdir: (a resumed run uses its recorded one).
	Workdir string

	// stored is the run_start of a run being resumed: what it was
	// prepared with applies where opts give nothing else.
	stored *event.RunStart
}

// Prepared is a task ready to run: everything that can be checked has been.
type Prepared struct {
	Task *Task
	Run  *agent.Run
	// Gate is the run's boundary approver (Run.Boundary): it keeps the
	// denial log, the overrides a person grants and the circuit breaker
	// (SPEC G11, G12, G15).
	Gate *gate.Gate
	// Boundary is the policy of approvers that decides boundary requests
	// behind the Gate (SPEC G3).
	Boundary       *approval.Policy
	Agent          *agent.Agent
	Input          []chat.Message
	TranscriptPath string
	Workdir        string
	file           *os.File
	queue          human.Queue
}

// homeDir returns $WARDEN_HOME, or ~/.warden, as package sandbox, which
// protects it, finds it; ".warden" when neither can be found.
func homeDir() string {
	if h := sandbox.StateHome(); h != "" {
		return h
	}
	return ".warden"
}

// Prepare resolves the model, policies, tools and transcript of a run of t.
// An error is a configuration error: nothing has run.
func (t *Task) Prepare(opts Options) (*Prepared, error) {
	spec := opts.Model
	if spec == "" {
		spec = t.Model
	}
	if spec == "" {
		return nil, fmt.Errorf("%s: no model: give --model or a model: key in the task", t.Path)
	}
	m, err := model.Open(spec, opts.ModelOptions)
	if err != nil {
		return nil, err
	}
	appr, rev := t.Approval, t.Review
	if st := opts.stored; st != nil && st.Settings != nil {
		// The policies in force when the run started, as resolved then.
		appr, rev = storedPolicy(st.Approval), storedPolicy(st.Review)
	}
	if opts.Approval != "" {
		entries, err := resolvePolicy(opts.Approval, "", policy.Approval)
		if err != nil {
			return nil, fmt.Errorf("--approval: %w", err)
		}
		appr = &Policy{Entries: entries, Source: opts.Approval}
	}
	if opts.Review != "" {
		entries, err := resolvePolicy(opts.Review, "", policy.Review)
		if err != nil {
			return nil, fmt.Errorf("--review: %w", err)
		}
		rev = &Policy{Entries: entries, Source: opts.Review}
	}
	ap, err := appr.ApprovalPolicy()
	if err != nil {
		return nil, err
	}
	rp, err := rev.ReviewPolicy()
	if err != nil {
		return nil, err
	}
	p := &Prepared{Task: t}
	p.Workdir = t.Workdir
	if opts.Workdir != "" {
		if p.Workdir, err = filepath.Abs(opts.Workdir); err != nil {
			return nil, fmt.Errorf("workdir: %w", err)
		}
		if fi, err := os.Stat(p.Workdir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("workdir %s: not a directory (it may have been removed)", p.Workdir)
		}
	}
	if p.Workdir == "" {
		dir, err := os.MkdirTemp("", "warden-"+sanitize(t.Name)+"-")
		if err != nil {
			return nil, err
		}
		p.Workdir = dir
	}
	env := toolbox.Env{Dir: p.Workdir}
	if env.Sandbox, err = t.sandboxPolicy(opts, p.Workdir); err != nil {
		return nil, err
	}
	if files := append(append([]string{}, t.Rules...), opts.Rules...); len(files) > 0 {
		if env.Rules, err = rules.Load(files...); err != nil {
			return nil, err
		}
	}
	if p.Agent, err = t.Agent(env); err != nil {
		return nil, err
	}
	runID := opts.RunID
	if runID == "" {
		runID = event.NewRunID()
	}
	p.TranscriptPath = opts.Transcript
	if p.TranscriptPath == "" {
		p.TranscriptPath = filepath.Join(homeDir(), "runs", runID+".jsonl")
	}
	f, err := event.Create(p.TranscriptPath)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	p.file = f
	var sink event.Sink = event.NewWriter(f)
	if opts.Sink != nil {
		sink = event.Tee(sink, opts.Sink)
	}
	maxOut := t.MaxOutput
	if opts.MaxOutput != nil {
		maxOut = opts.MaxOutput
	}
	p.Run = &agent.Run{
		ID: runID, Task: t.Name, ModelName: spec, Model: m,
		Events: event.NewRecorder(runID, sink), Limits: t.Limits,
		Approval: ap, Review: rp, TaskFile: absPath(t.Path),
		PinPolicy:          opts.PinPolicy || t.PinPolicy,
		MaxConcurrentCalls: firstPositive(opts.MaxConcurrentCalls, t.MaxConcurrentCalls),
		MaxCallsPerMessage: firstPositive(opts.MaxCallsPerMessage, t.MaxCallsPerMessage),
		Workdir:            p.Workdir,
	}
	p.Run.Settings = &event.RunSettings{
		Rules:              append(append([]string{}, t.Rules...), opts.Rules...),
		AutoReviewModel:    opts.AutoReviewModel,
		MaxOutput:          maxOut,
		MaxConcurrentCalls: p.Run.MaxConcurrentCalls,
		MaxCallsPerMessage: p.Run.MaxCallsPerMessage,
	}
	for i, f := range p.Run.Settings.Rules {
		p.Run.Settings.Rules[i] = absPath(f)
	}
	if sp := env.Sandbox; sp != nil {
		ss := &event.SandboxSettings{Mode: string(sp.Mode), NetworkAccess: sp.NetworkAccess, Unenforced: sp.Unenforced}
		for _, r := range sp.WritableRoots {
			ss.WritableRoots = append(ss.WritableRoots, absPath(r))
		}
		p.Run.Settings.Sandbox = ss
	}
	if p.Run.Settings.ApprovalsReviewer, err = t.approvalsReviewer(opts); err != nil {
		return nil, err
	}
	if p.Boundary, err = t.boundaryPolicy(opts, spec, m, env.Rules, p.Workdir); err != nil {
		return nil, err
	}
	p.Gate = &gate.Gate{Next: agent.BoundaryPolicy(p.Boundary), RunID: runID, Events: p.Run.Events,
		Sealer: loadStateKey()} // the key is created when a denial is first recorded
	p.Run.Boundary = p.Gate
	if maxOut != nil {
		p.Run.MaxOutput = *maxOut
		if *maxOut == 0 {
			p.Run.MaxOutput = agent.NoTruncation
		}
	}
	p.Input = []chat.Message{{Role: chat.User, Content: t.Input}}
	p.queue = opts.Queue
	return p, nil
}

// Execute runs the prepared task's first turn (or, for a resumed run, its
// next one). The transcript stays open for further turns; Close it when
// done.
func (p *Prepared) Execute(ctx context.Context) *agent.Result {
	return p.Run.Execute(p.context(ctx), p.Agent, p.Input)
}

// context returns ctx with the run's queue, if any, for its people.
func (p *Prepared) context(ctx context.Context) context.Context {
	if p.queue != nil {
		return human.WithQueue(ctx, p.queue, p.Run.ID)
	}
	return ctx
}

// Next runs a further turn of the same run: the conversation so far, then
// input as the person's new request (SPEC G11: the breaker's state clears).
func (p *Prepared) Next(ctx context.Context, history []chat.Message, input string) *agent.Result {
	p.Run.Resumed = true
	p.Input = append(append([]chat.Message(nil), history...), chat.Message{Role: chat.User, Content: input})
	return p.Run.Execute(p.context(ctx), p.Agent, p.Input)
}

// Close closes the transcript.
func (p *Prepared) Close() error {
	if err := p.file.Close(); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	return nil
}

func firstPositive(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

func sanitize(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			out = append(out, r)
		}
	}
	if len(out) > 32 {
		out = out[:32]
	}
	return string(out)
}

// sandboxPolicy returns the sandbox of the run: the task's sandbox: section
// with the mode replaced by opts.Sandbox, or nil when neither sets one. A
// mode the kernel cannot enforce is an error unless opts accepts it.
func (t *Task) sandboxPolicy(opts Options, workdir string) (*sandbox.Policy, error) {
	if t.Sandbox == nil && opts.Sandbox == "" {
		return nil, nil
	}
	cfg := sandbox.Config{}
	if t.Sandbox != nil {
		cfg = *t.Sandbox
	}
	if opts.Sandbox != "" {
		cfg.Mode = opts.Sandbox
	}
	sp, err := cfg.Policy(workdir, t.Dir)
	if err != nil {
		return nil, err
	}
	sp.Unenforced = opts.SandboxUnenforced
	if sp.Mode != sandbox.FullAccess && !sp.Unenforced {
		if _, err := sandbox.Supported(); err != nil {
			return nil, fmt.Errorf("sandbox %s cannot be enforced here: %w (pass --sandbox-unenforced to run without kernel enforcement)", sp.Mode, err)
		}
	}
	return &sp, nil
}

// boundaryPolicy returns who decides requests to cross the sandbox boundary
// (SPEC G3), built by decider.New — the constructor `warden eval` measures
// — from the task's approvals_reviewer (or opts'), its exec rules and
// opts', the run's model and opts.AutoReviewModel.
func (t *Task) boundaryPolicy(opts Options, spec string, m model.Model, set *rules.Set, workdir string) (*approval.Policy, error) {
	who, err := t.approvalsReviewer(opts)
	if err != nil {
		return nil, err
	}
	return decider.New(decider.Config{
		Reviewers: who,
		RuleFiles: append(append([]string{}, t.Rules...), opts.Rules...),
		Rules:     set,
		Model:     m, ModelSpec: spec,
		ReviewModel: opts.AutoReviewModel, ModelOptions: opts.ModelOptions,
		Workdir: workdir,
	})
}

// approvalsReviewer returns who decides boundary requests: opts', else the
// task's approvals_reviewer.
func (t *Task) approvalsReviewer(opts Options) ([]string, error) {
	if opts.ApprovalsReviewer == "" {
		return t.ApprovalsReviewer, nil
	}
	who, err := ParseApprovalsReviewer(opts.ApprovalsReviewer)
	if err != nil {
		return nil, fmt.Errorf("approvals reviewer: %w", err)
	}
	return who, nil
}

// storedPolicy is a policy recorded in a run_start, as entries: nil (no
// policy) stays nil.
func storedPolicy(entries []policy.Entry) *Policy {
	if entries == nil {
		return nil
	}
	return &Policy{Entries: entries, Source: "run_start"}
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
