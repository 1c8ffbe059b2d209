// Package govern is a governed session: what `warden hook` (a host's
// session, one hook process at a time) and `warden mcp` (a client session,
// held open) share. A governed session is a warden run in warden's state
// and the store (Session: the sealed transcript, its denial log,
// overrides and breaker read back), decided by one configuration (Config:
// the approval and review policies compiled once, the exec rules, the
// boundary decider, the queue a person decides in), which the same
// configuration file and flags give both commands (File).
//
// What a host's or a client's messages are, and how a call is answered,
// stay with their adapters (internal/hook, internal/gateway), above this
// package.
package govern

import (
	"path/filepath"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/rules"
)

// DefaultTimeout is how long an escalation waits when the configuration
// gives no timeout: below the timeouts `warden hook install` gives the
// hosts, so that warden's denial, not the host's timeout (which some hosts
// read as "proceed"), ends it.
const DefaultTimeout = 5 * time.Minute

// Config is how a governed session decides, resolved from the flags and
// the configuration file (Resolve), connected by the command (Queue,
// Sink).
type Config struct {
	// Approval decides tool calls before they run (pre-tool events); nil
	// or empty leaves them to the host (Pass).
	Approval *approval.Policy
	// ApprovalEntries and ReviewEntries are the policies as written, for
	// the run's start record.
	ApprovalEntries, ReviewEntries []policy.Entry
	// Review decides results after calls ran (post-tool events); nil
	// continues every result.
	Review *review.Policy
	// Rules are the exec rules every shell command is judged by: forbidden
	// is denied, prompt is a boundary request (SPEC G14).
	Rules *rules.Set
	// Boundary builds the boundary decider (approvalsreviewer.Build: a
	// person alone, else internal/decider's) for a
	// session's working directory: who decides permission requests, exec
	// rules' prompts and escalations (approvals_reviewer). It is called
	// only when one is needed, with the person of the decision (person:
	// the queue, or nobody). Nil: nobody decides boundary requests.
	Boundary func(workdir string, person approval.Approver) (*approval.Policy, error)
	// Queue is where a person decides (a server's, or the store's); nil
	// when none is configured.
	Queue queue.Queue
	// Timeout bounds how long an escalation waits for a person; its
	// outcome is a denial that says so.
	Timeout time.Duration
	// Paths are where sessions live.
	Paths Paths
	// Sink, when set, also receives every event (the store, the server).
	Sink event.Sink
}

// Resolve resolves what f names without connecting anything: the policies
// compiled, the exec rules loaded, the boundary decider's approvers
// named (checked when Boundary is called); sessions live in home's runs
// directory, sealed with the key at key. `warden check` checks a
// configuration file with it. f's sandbox key is its caller's.
func Resolve(f *File, home, key string) (*Config, error) {
	cfg := &Config{Timeout: f.Timeout, Paths: Paths{Runs: filepath.Join(home, "runs"), Key: key}}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	var err error
	if cfg.Approval, cfg.ApprovalEntries, err = compilePolicy(f, "approval", f.Approval, policyfile.Approval,
		approval.Registered, approval.Names(), approval.Compile); err != nil {
		return nil, err
	}
	if cfg.Review, cfg.ReviewEntries, err = compilePolicy(f, "review", f.Review, policyfile.Review,
		review.Registered, review.Names(), review.Compile); err != nil {
		return nil, err
	}
	ruleFiles := f.RulePaths()
	if len(ruleFiles) > 0 {
		if cfg.Rules, err = rules.Load(ruleFiles...); err != nil {
			return nil, f.At("rules", err)
		}
	}
	who, model := f.ApprovalsReviewer, f.AutoReviewModel
	cfg.Boundary = func(workdir string, person approval.Approver) (*approval.Policy, error) {
		return approvalsreviewer.Build(approvalsreviewer.Session{Reviewers: who, RuleFiles: ruleFiles, Rules: cfg.Rules,
			ReviewModel: model, Workdir: workdir, Person: person})
	}
	return cfg, nil
}

// compilePolicy resolves the policy f names under key (spec: a file, else
// a registered name; "" for none) and compiles it with compile, the
// approval or the review package's; errors carry the key.
func compilePolicy[P any](f *File, key, spec string, kind policyfile.Kind, registered func(string) bool, names []string,
	compile func([]policy.Entry) (*P, error)) (*P, []policy.Entry, error) {
	if spec == "" {
		return nil, nil, nil
	}
	entries, err := policyfile.Resolve(spec, f.Dir, kind, registered, names)
	if err != nil {
		return nil, nil, f.At(key, err)
	}
	p, err := compile(entries)
	if err != nil {
		return nil, nil, f.At(key, err)
	}
	return p, entries, nil
}

// Gate returns a gate for the session's run, restored from its transcript:
// the denial log, the overrides a person granted, the breaker's count of
// the turn.
func (s *Session) Gate() *gate.Gate {
	g := &gate.Gate{RunID: s.RunID, Events: s.Events, Sealer: s.Sealer}
	s.Restore(g)
	return g
}

// Restore brings g up to what the session's transcript holds now (after
// Lock read what the session's other holders recorded).
func (s *Session) Restore(g *gate.Gate) {
	g.Restore(s.Ledger)
	g.Breaker = gate.Breaker{}
	g.Breaker.Replay(s.Turn)
}
