// Package decider builds the boundary decider: the approval policy that
// decides requests to cross the sandbox boundary (SPEC G3), as configured
// by approvals_reviewer. It is the one constructor of that assembly: `warden
// run` (package task) ships what New returns and `warden eval` measures
// what New returns, so that the figures of an evaluation are the figures of
// the assembly a run uses — the same policy resolution (SPEC G8), exec
// rules, first pass (SPEC G14), model reviewer, timeout, attempts and
// client retries (SPEC G10).
package decider

import (
	"fmt"
	"slices"

	"github.com/wardenhq/warden/approval"
	_ "github.com/wardenhq/warden/human" // the default approvals reviewer: a person at the console
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
)

// Config says how to build the boundary decider. The zero value is a
// person deciding every request.
type Config struct {
	// Reviewers is the approvals_reviewer list, in order; empty means
	// [user]. Alone, user is a person and auto_review the first pass then
	// the model reviewer; in a longer list each name is one approver
	// asked in order, the first decision that is not escalate winning.
	Reviewers []string
	// RuleFiles are the exec rules files of the run (Codex .rules or
	// YAML); the first pass judges with them.
	RuleFiles []string
	// Rules is RuleFiles loaded, when the caller has loaded them already;
	// nil loads RuleFiles here.
	Rules *rules.Set
	// Model is the run's model and ModelSpec its spec: the reviewer
	// agent's model when ReviewModel is empty.
	Model     model.Model
	ModelSpec string
	// ReviewModel, when set, is the model spec of the reviewer agent
	// (--auto-review-model), opened with ModelOptions.
	ReviewModel string
	// ModelOptions are the options ReviewModel is opened with. The
	// reviewer retries within its own timeout (SPEC G10), so its client
	// is opened with no retries of its own whatever MaxRetries says.
	ModelOptions model.Options
	// Workdir is the workspace the reviewer agent's read-only tools see.
	Workdir string
	// WritableRoots are the sandbox's configured writable roots: the first
	// pass judges them as the workspace (triage.Knowledge.WithWritableRoots).
	WritableRoots []string
	// PolicySources are the files the reviewer's policy text and timeout
	// are read from (SPEC G8); nil means autoreview.DefaultPolicySources().
	PolicySources *autoreview.PolicySources
	// Knowledge is what the first pass knows about programs; nil loads it
	// from the programs files PolicySources name ([first_pass] programs,
	// triage.LoadKnowledge).
	Knowledge *triage.Knowledge
	// Person, when set, replaces the person at the console (user, human):
	// `warden eval` puts an approver there that passes every request on,
	// since no person answers an evaluation.
	Person approval.Approver
	// DryRun, when set, runs a boundary request the first pass passes on
	// once in a throw-away view first (SPEC G17), unless [auto_review]
	// dry_run = false: a clear harm in what it did is denied, and its
	// effects go on to the reviewer and the person. Nil: no dry run.
	DryRun *DryRunner
}

// New builds the boundary decider of cfg: a person at the console (user,
// the default), the reviewer agent (auto_review alone: first the first pass,
// which settles clear cases, then, for what it passes on, the model
// reviewer on cfg.ReviewModel or else on the run's model, with the policy
// text and timeout resolved from the managed and user configuration, SPEC
// G8, G10, G14), or a list of approvers asked in order like any approval
// policy (SPEC P3): for example [first_pass, human], the first pass and then a
// person, without the model. An error is a configuration error.
func New(cfg Config) (*approval.Policy, error) {
	written, err := approvalsreviewer.Check(cfg.Reviewers)
	if err != nil {
		return nil, err
	}
	// who are the names as registered now; entries keep the names as
	// written, which the transcript records.
	who := make([]string, len(written))
	for i, n := range written {
		who[i] = approvalsreviewer.Canonical(n)
	}
	set := cfg.Rules
	if set == nil && len(cfg.RuleFiles) > 0 {
		if set, err = rules.Load(cfg.RuleFiles...); err != nil {
			return nil, fmt.Errorf("exec rules: %w", err)
		}
	}
	k := cfg.Knowledge
	if k == nil && (slices.Contains(who, approvalsreviewer.AutoReview) || slices.Contains(who, approvalsreviewer.FirstPass)) {
		src := autoreview.DefaultPolicySources()
		if cfg.PolicySources != nil {
			src = *cfg.PolicySources
		}
		if k, err = triage.LoadKnowledge(src); err != nil {
			return nil, fmt.Errorf("first pass: %w", err)
		}
	}
	if len(cfg.WritableRoots) > 0 && (slices.Contains(who, approvalsreviewer.AutoReview) || slices.Contains(who, approvalsreviewer.FirstPass)) {
		k = k.WithWritableRoots(cfg.WritableRoots)
	}
	check, err := cfg.dryRunCheck()
	if err != nil {
		return nil, err
	}
	if approvalsreviewer.PersonOnly(who) && cfg.Person != nil {
		// The same decider warden-hook builds for this list.
		return approvalsreviewer.Person(cfg.Person), nil
	}
	if len(who) == 1 {
		switch who[0] {
		case approvalsreviewer.User:
			who = []string{approvalsreviewer.Human}
		case approvalsreviewer.AutoReview:
			r, spec, err := cfg.reviewerAgent()
			if err != nil {
				return nil, err
			}
			return approval.New(approval.Rule{Name: approvalsreviewer.AutoReview, Match: approvalsreviewer.MatchAll(), Handler: withDryRun(triage.KnowledgeApprover(k, set, r), check),
				Entry: policy.Entry{Name: approvalsreviewer.AutoReview, Params: map[string]any{"model": spec}}}), nil
		}
	}
	var list []approval.Rule
	for i, name := range who {
		entry := policy.Entry{Name: written[i]}
		var h approval.Approver
		switch name {
		case approvalsreviewer.AutoReview:
			r, spec, err := cfg.reviewerAgent()
			if err != nil {
				return nil, err
			}
			// What the model cannot decide (a timeout, a failure) goes to
			// the next approver of the list.
			r.PassOnUndecided = i < len(who)-1
			h, entry.Params = r, map[string]any{"model": spec}
		case approvalsreviewer.FirstPass:
			// The registered first pass: unclear actions escalate to the
			// next approver of the list.
			if len(cfg.RuleFiles) > 0 {
				entry.Params = map[string]any{"rules": append([]string(nil), cfg.RuleFiles...)}
			}
			h = withDryRun(triage.PassOnApprover(k, set), check)
		case approvalsreviewer.User, approvalsreviewer.Human:
			entry.Name = approvalsreviewer.Human
			h = cfg.Person
		}
		if h == nil {
			if h, err = approval.Build(entry.Name, entry.Params); err != nil {
				return nil, fmt.Errorf("approvals reviewer: %w", err)
			}
		}
		list = append(list, approval.Rule{Name: entry.Name, Match: approvalsreviewer.MatchAll(), Handler: h, Entry: entry})
	}
	return approval.New(list...), nil
}

// reviewerAgent returns the reviewer agent of cfg and its model spec: on
// cfg.ReviewModel, or else on the run's model.
func (cfg Config) reviewerAgent() (*autoreview.Reviewer, string, error) {
	m, spec := cfg.Model, cfg.ModelSpec
	if cfg.ReviewModel != "" {
		spec = cfg.ReviewModel
		mo, none := cfg.ModelOptions, 0
		mo.MaxRetries = &none
		var err error
		if m, err = model.Open(spec, mo); err != nil {
			return nil, "", fmt.Errorf("auto-review model: %w", err)
		}
	}
	if m == nil {
		return nil, "", fmt.Errorf("auto-review: no reviewer model is configured")
	}
	src := autoreview.DefaultPolicySources()
	if cfg.PolicySources != nil {
		src = *cfg.PolicySources
	}
	resolved, err := autoreview.ResolvePolicy(src)
	if err != nil {
		return nil, "", fmt.Errorf("auto-review policy: %w", err)
	}
	r := &autoreview.Reviewer{Model: m, ModelName: spec, Policy: resolved.Text, Timeout: resolved.Timeout,
		MaxSteps: resolved.MaxSteps, MaxToolCalls: resolved.MaxToolCalls, Tools: autoreview.ReadOnlyTools(cfg.Workdir)}
	if sh := autoreview.ShellTool(cfg.Workdir); sh != nil {
		r.Tools = append(r.Tools, sh)
	}
	return r, spec, nil
}

func init() {
	// The boundary decider of governed sessions (warden hook, warden mcp).
	approvalsreviewer.Register(func(s approvalsreviewer.Session) (*approval.Policy, error) {
		return New(Config{Reviewers: s.Reviewers, RuleFiles: s.RuleFiles, Rules: s.Rules, ReviewModel: s.ReviewModel, ModelSpec: s.ReviewModel,
			Workdir: s.Workdir, Person: s.Person, DryRun: KernelDryRun()})
	})
}
