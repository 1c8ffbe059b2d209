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
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/internal/transcript"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
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
	Queue queue.Queue
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
	// KeepWorkdir keeps the temporary working directory Prepare makes for
	// a task without workdir: when the run is over (see Prepared.Cleanup).
	KeepWorkdir bool

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
	// TempWorkdir says Workdir is a temporary directory Prepare made, the
	// task naming none; Cleanup removes it unless KeepWorkdir is set.
	TempWorkdir bool
	// KeepWorkdir keeps a temporary Workdir when the run is over
	// (Options.KeepWorkdir; set it too when a run was interrupted, to
	// resume it).
	KeepWorkdir bool
	// TempDir holds the run's private temporary directories, what its
	// sandboxed commands see at /tmp, /dev/shm and $TMPDIR
	// (sandbox.Policy.TempDir): $WARDEN_HOME/tmp/RUN_ID. Cleanup removes
	// it unless KeepWorkdir is set.
	TempDir string
	file    *transcript.Transcript
	queue   queue.Queue
}

// homeDir returns $WARDEN_HOME, or ~/.warden, as package sandbox, which
// protects it, finds it; ".warden" when neither can be found.
func homeDir() string {
	if h := wardenhome.Home(); h != "" {
		return h
	}
	return ".warden"
}

// Prepare resolves the model, policies, tools and transcript of a run of t.
// An error is a configuration error: nothing has run, and a temporary
// working directory Prepare made is removed again.
func (t *Task) Prepare(opts Options) (*Prepared, error) { return t.prepare(opts, false) }

// Check resolves everything Prepare resolves for a run of t with opts — the
// model (a scripted model's file is read; a provider's missing key is
// found), the policies, tools, sandbox, exec rules and who decides boundary
// requests (with the auto-review policy) — and reports the first problem,
// as Prepare would. It makes no working directory, transcript or key and
// runs nothing: it is the same code as Prepare, stopping before anything is
// created.
func (t *Task) Check(opts Options) error {
	_, err := t.prepare(opts, true)
	return err
}

// prepare is Prepare; with dry, it stops before creating anything (Check).
func (t *Task) prepare(opts Options, dry bool) (_ *Prepared, err error) {
	spec := opts.Model
	if spec == "" {
		spec = t.Model
	}
	if spec == "" {
		return nil, fmt.Errorf("%s: no model: give --model or a model: key in the task", t.Path)
	}
	m, err := model.Open(spec, opts.ModelOptions)
	if err != nil {
		if opts.Model != "" {
			return nil, fmt.Errorf("--model: %w", err)
		}
		return nil, t.atKey("model", err)
	}
	appr, rev := t.Approval, t.Review
	if st := opts.stored; st != nil && st.Settings != nil {
		// The policies in force when the run started, as resolved then.
		appr, rev = storedPolicy(st.Approval), storedPolicy(st.Review)
	}
	if opts.Approval != "" {
		entries, err := resolvePolicy(opts.Approval, "", policyfile.Approval)
		if err != nil {
			return nil, fmt.Errorf("--approval: %w", err)
		}
		appr = &Policy{Entries: entries, Source: opts.Approval}
	}
	if opts.Review != "" {
		entries, err := resolvePolicy(opts.Review, "", policyfile.Review)
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
	p := &Prepared{Task: t, KeepWorkdir: opts.KeepWorkdir}
	p.Workdir = t.Workdir
	if opts.Workdir != "" {
		if p.Workdir, err = filepath.Abs(opts.Workdir); err != nil {
			return nil, fmt.Errorf("workdir: %w", err)
		}
		if fi, err := os.Stat(p.Workdir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("workdir %s: not a directory (it may have been removed)", p.Workdir)
		}
	}
	switch {
	case p.Workdir != "":
	case dry:
		// A run would make a temporary directory; Check makes none and
		// resolves against the task's own directory instead.
		p.Workdir = t.Dir
	default:
		var dir string
		if dir, err = os.MkdirTemp("", "warden-"+sanitize(t.Name)+"-"); err != nil {
			return nil, err
		}
		p.Workdir, p.TempWorkdir = dir, true
		defer func() {
			if err != nil {
				os.RemoveAll(dir)
			}
		}()
	}
	// The tools never work in warden's own state (SPEC G16).
	if err = wardenhome.CheckRoot("the workspace", p.Workdir); err != nil {
		return nil, err
	}
	env := toolbox.Env{Dir: p.Workdir}
	if env.Sandbox, err = t.sandboxPolicy(opts, p.Workdir); err != nil {
		return nil, t.atKey("sandbox", err)
	}
	if sp := env.Sandbox; sp != nil {
		for _, r := range sp.WritableRoots {
			if !filepath.IsAbs(r) {
				r = filepath.Join(sp.Workdir, r)
			}
			if err = wardenhome.CheckRoot("the writable root", r); err != nil {
				return nil, t.atKey("sandbox", err)
			}
		}
	}
	if files := append(append([]string{}, t.Rules...), opts.Rules...); len(files) > 0 {
		if env.Rules, err = rules.Load(files...); err != nil {
			return nil, t.atKey("rules", err)
		}
	}
	if p.Agent, err = t.Agent(env); err != nil {
		return nil, err
	}
	maxOut := t.MaxOutput
	if opts.MaxOutput != nil {
		maxOut = opts.MaxOutput
	}
	settings := &event.RunSettings{
		Rules:              append(append([]string{}, t.Rules...), opts.Rules...),
		AutoReviewModel:    opts.AutoReviewModel,
		MaxOutput:          maxOut,
		MaxConcurrentCalls: firstPositive(opts.MaxConcurrentCalls, t.MaxConcurrentCalls),
		MaxCallsPerMessage: firstPositive(opts.MaxCallsPerMessage, t.MaxCallsPerMessage),
	}
	for i, f := range settings.Rules {
		settings.Rules[i] = absPath(f)
	}
	if sp := env.Sandbox; sp != nil {
		ss := &event.SandboxSettings{Mode: string(sp.Mode), NetworkAccess: sp.NetworkAccess, Unenforced: sp.Unenforced}
		for _, r := range sp.WritableRoots {
			ss.WritableRoots = append(ss.WritableRoots, absPath(r))
		}
		settings.Sandbox = ss
	}
	if settings.ApprovalsReviewer, err = t.approvalsReviewer(opts); err != nil {
		return nil, err
	}
	var roots []string
	if settings.Sandbox != nil {
		roots = settings.Sandbox.WritableRoots
	}
	if p.Boundary, err = t.boundaryPolicy(opts, spec, m, env.Rules, p.Workdir, roots); err != nil {
		if opts.ApprovalsReviewer != "" {
			return nil, err
		}
		return nil, t.atKey("approvals_reviewer", err)
	}
	if dry {
		return p, nil
	}
	runID := opts.RunID
	if runID == "" {
		runID = event.NewRunID()
	}
	if sp := env.Sandbox; sp != nil {
		// The tools hold this policy: their commands share the run's
		// private temporary directories.
		p.TempDir = filepath.Join(homeDir(), "tmp", runID)
		sp.TempDir = p.TempDir
	}
	p.TranscriptPath = opts.Transcript
	if p.TranscriptPath == "" {
		p.TranscriptPath = filepath.Join(homeDir(), "runs", runID+".jsonl")
		// Warden's home and its runs are the person's alone (0700), as
		// the token's and the keys' directories are (SPEC G16).
		if err := os.MkdirAll(filepath.Dir(p.TranscriptPath), 0o700); err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
	}
	// Every line is sealed, chained and counted in warden's state (SPEC
	// L8): a run never starts without warden's key.
	key, err := TranscriptKey()
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	f, err := transcript.Open(p.TranscriptPath, key, Heads())
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	p.file = f
	var sink event.Sink = f
	if opts.Sink != nil {
		sink = event.Tee(sink, opts.Sink)
	}
	p.Run = &agent.Run{
		ID: runID, Task: t.Name, ModelName: spec, Model: m,
		Events: event.NewRecorder(runID, sink), Limits: t.Limits,
		Approval: ap, Review: rp, TaskFile: absPath(t.Path),
		PinPolicy:          opts.PinPolicy || t.PinPolicy,
		MaxConcurrentCalls: settings.MaxConcurrentCalls,
		MaxCallsPerMessage: settings.MaxCallsPerMessage,
		Workdir:            p.Workdir,
		Settings:           settings,
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
		return queue.WithQueue(ctx, p.queue, p.Run.ID)
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

// Cleanup removes the working directory when Prepare made it (TempWorkdir)
// and KeepWorkdir is not set; removed says whether it did. Unless
// KeepWorkdir is set, it also removes the run's private temporary
// directories (TempDir): a resume then starts with empty ones. Call it when
// the run is over, after Close. A resumed run's directory is never removed.
func (p *Prepared) Cleanup() (removed bool, err error) {
	if p.TempDir != "" && !p.KeepWorkdir {
		if err := removeAll(p.TempDir); err != nil {
			return false, fmt.Errorf("private temporary directories: %w", err)
		}
	}
	if !p.TempWorkdir || p.KeepWorkdir || p.Workdir == "" {
		return false, nil
	}
	if err := removeAll(p.Workdir); err != nil {
		return false, fmt.Errorf("workdir: %w", err)
	}
	return true, nil
}

// KeepReason says why the temporary working directory of a run that
// ended with res (interrupted: by a signal) should outlive it, to be
// resumed: the run was interrupted, did not complete (limited, failed), or
// holds an auto-review denial a person may approve before resuming (SPEC
// G12). It is "" for a run that completed without denials, whose temporary
// directory Cleanup removes.
func (p *Prepared) KeepReason(res *agent.Result, interrupted bool) string {
	switch {
	case interrupted:
		return "the run was interrupted"
	case res != nil && res.Status == event.StatusLimited:
		return "the run was limited"
	case res != nil && res.Status != event.StatusCompleted:
		return "the run ended with an error"
	case p.Gate != nil && len(p.Gate.Denials()) > 0:
		return "the run has auto-review denials a person may approve (warden auto-review approve)"
	}
	return ""
}

// removeAll removes dir and everything in it, making directories a tool
// left read-only writable first.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
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
	cfg := SandboxConfig{}
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
// opts', the run's model and opts.AutoReviewModel; the first pass judges the
// sandbox's writable roots as the workspace.
func (t *Task) boundaryPolicy(opts Options, spec string, m model.Model, set *rules.Set, workdir string, roots []string) (*approval.Policy, error) {
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
		Workdir: workdir, WritableRoots: roots, DryRun: decider.KernelDryRun(),
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
