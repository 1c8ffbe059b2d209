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
	"strings"

	"github.com/wardenhq/warden/approval"
	_ "github.com/wardenhq/warden/human" // the default approvals reviewer: a person at the console
	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
)

// The names of approvals_reviewer (SPEC G3). Each is also the name of an
// approver of the approval registry (SPEC P3), except User, which names a
// person as Human does.
const (
	// User is a person at the console (the default).
	User = "user"
	// AutoReview is the reviewer agent; alone, it is the first pass and
	// then the model reviewer for what the first pass passes on.
	AutoReview = autoreview.ApproverName
	// FirstPass is the deterministic first pass of SPEC G14 (package
	// triage), "first_pass". Its old name, OldFirstPass, is still accepted
	// (Warnings says it is old), so that "rules" means exec rules only.
	FirstPass = triage.ApproverName
	// OldFirstPass is the first pass's old name, "rules".
	OldFirstPass = triage.OldApproverName
	// Human is a person at the console.
	Human = "human"
)

// Config says how to build the boundary decider. The zero value is a
// person deciding every request.
type Config struct {
	// Reviewers is the approvals_reviewer list, in order; empty means
	// [User]. Alone, User is a person and AutoReview the first pass then
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
	// Person, when set, replaces the person at the console (User, Human):
	// `warden eval` puts an approver there that passes every request on,
	// since no person answers an evaluation.
	Person approval.Approver
	// DryRun, when set, runs a boundary request the first pass passes on
	// once in a throw-away view first (SPEC G17), unless [auto_review]
	// dry_run = false: a clear harm in what it did is denied, and its
	// effects go on to the reviewer and the person. Nil: no dry run.
	DryRun *DryRunner
}

// Check checks an approvals_reviewer list and returns it, with an empty
// list meaning [User]: every name must be User, AutoReview, FirstPass,
// Human or a registered approver, and appear once.
func Check(names []string) ([]string, error) {
	if len(names) == 0 {
		return []string{User}, nil
	}
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n == "":
			return nil, fmt.Errorf("approvals_reviewer: an empty name")
		case seen[canonical(n)]:
			return nil, fmt.Errorf("approvals_reviewer: %q is listed twice", n)
		case n == User, n == AutoReview, n == FirstPass, n == Human, approval.Registered(n):
		default:
			return nil, fmt.Errorf("approvals_reviewer %q: want %q, %q, a list of approvers such as [%s, %s, %s], or a registered approver (%s)",
				n, User, AutoReview, FirstPass, AutoReview, Human, strings.Join(approval.Names(), ", "))
		}
		seen[canonical(n)] = true
	}
	return names, nil
}

// canonical returns the name n is registered under now: FirstPass for
// OldFirstPass, n itself for every other name.
func canonical(n string) string {
	if now, ok := approval.Renamed(n); ok {
		return now
	}
	return n
}

// Warnings returns a warning for each name of names that is the old name
// of an approver — "rules" for the first pass — saying which to write
// instead; nil when there is none.
func Warnings(names []string) []string {
	var out []string
	for _, n := range names {
		if now, ok := approval.Renamed(n); ok {
			out = append(out, RenameWarning(n, now))
		}
	}
	return out
}

// RenameWarning says that old is the old name of the approver registered
// as name now.
func RenameWarning(old, name string) string {
	w := fmt.Sprintf("%q is the old name of the approver %q: write %q", old, name, name)
	if old == OldFirstPass {
		w += ` ("rules" now means exec rules only)`
	}
	return w
}

// Parse reads an approvals_reviewer value as given on a command line: one
// name, or names separated by commas (with or without surrounding
// brackets), checked with Check. "" is [User].
func Parse(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	var names []string
	if strings.TrimSpace(s) != "" {
		for _, n := range strings.Split(s, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	return Check(names)
}

// New builds the boundary decider of cfg: a person at the console (User,
// the default), the reviewer agent (AutoReview alone: first the first pass,
// which settles clear cases, then, for what it passes on, the model
// reviewer on cfg.ReviewModel or else on the run's model, with the policy
// text and timeout resolved from the managed and user configuration, SPEC
// G8, G10, G14), or a list of approvers asked in order like any approval
// policy (SPEC P3): for example [first_pass, human], the first pass and then a
// person, without the model. An error is a configuration error.
func New(cfg Config) (*approval.Policy, error) {
	written, err := Check(cfg.Reviewers)
	if err != nil {
		return nil, err
	}
	// who are the names as registered now; entries keep the names as
	// written, which the transcript records.
	who := make([]string, len(written))
	for i, n := range written {
		who[i] = canonical(n)
	}
	set := cfg.Rules
	if set == nil && len(cfg.RuleFiles) > 0 {
		if set, err = rules.Load(cfg.RuleFiles...); err != nil {
			return nil, fmt.Errorf("exec rules: %w", err)
		}
	}
	k := cfg.Knowledge
	if k == nil && (slices.Contains(who, AutoReview) || slices.Contains(who, FirstPass)) {
		src := autoreview.DefaultPolicySources()
		if cfg.PolicySources != nil {
			src = *cfg.PolicySources
		}
		if k, err = triage.LoadKnowledge(src); err != nil {
			return nil, fmt.Errorf("first pass: %w", err)
		}
	}
	if len(cfg.WritableRoots) > 0 && (slices.Contains(who, AutoReview) || slices.Contains(who, FirstPass)) {
		k = k.WithWritableRoots(cfg.WritableRoots)
	}
	check, err := cfg.dryRunCheck()
	if err != nil {
		return nil, err
	}
	if len(who) == 1 {
		switch who[0] {
		case User:
			who = []string{Human}
		case AutoReview:
			r, spec, err := cfg.reviewerAgent()
			if err != nil {
				return nil, err
			}
			return approval.New(approval.Rule{Name: AutoReview, Match: matchAll(), Handler: withDryRun(triage.KnowledgeApprover(k, set, r), check),
				Entry: policy.Entry{Name: AutoReview, Params: map[string]any{"model": spec}}}), nil
		}
	}
	var list []approval.Rule
	for i, name := range who {
		entry := policy.Entry{Name: written[i]}
		var h approval.Approver
		switch name {
		case AutoReview:
			r, spec, err := cfg.reviewerAgent()
			if err != nil {
				return nil, err
			}
			// What the model cannot decide (a timeout, a failure) goes to
			// the next approver of the list.
			r.PassOnUndecided = i < len(who)-1
			h, entry.Params = r, map[string]any{"model": spec}
		case FirstPass:
			// The registered first pass: unclear actions escalate to the
			// next approver of the list.
			if len(cfg.RuleFiles) > 0 {
				entry.Params = map[string]any{"rules": append([]string(nil), cfg.RuleFiles...)}
			}
			h = withDryRun(triage.PassOnApprover(k, set), check)
		case User, Human:
			entry.Name = Human
			h = cfg.Person
		}
		if h == nil {
			if h, err = approval.Build(entry.Name, entry.Params); err != nil {
				return nil, fmt.Errorf("approvals reviewer: %w", err)
			}
		}
		list = append(list, approval.Rule{Name: entry.Name, Match: matchAll(), Handler: h, Entry: entry})
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

// matchAll matches every call.
func matchAll() policy.Matcher {
	m, err := policy.CompileList([]string{"*"})
	if err != nil {
		panic(err) // "*" always compiles
	}
	return m
}
