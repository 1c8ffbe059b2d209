package triage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/triage/effects"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// MetadataKey is the key of the Verdict in the metadata of the approvals
// the first pass's approver returns.
const MetadataKey = "triage"

// NoReviewerMessage starts the explanation of a rejection when an action
// is unclear and no reviewer is configured to decide it.
const NoReviewerMessage = "No reviewer is configured to decide actions that the first pass finds unclear, so this one was not run"

// approver is the first pass as an approver (registered as "first_pass").
type approver struct {
	k    *judge.Knowledge // what the first pass knows about programs (nil: the embedded file)
	set  *rules.Set
	next approval.Approver
	// passOn makes unclear actions approval.Escalate (the policy's next
	// approver decides) instead of going to next.
	passOn bool
	// dry, when set, dry-runs what the first pass passes on (SPEC G17):
	// a clear harm in its report is denied, and its effects go on with the
	// request to the reviewer and the person.
	dry *effects.Check
}

// WithEffects returns a, a first pass of this package, dry-running what
// it passes on with c (SPEC G17): a boundary request with a command that
// the first pass would pass on is run once in a throw-away view first;
// a clear harm in what it did is denied, naming the effect
// (effects.Judge), and otherwise the request goes on as before with the
// effects attached (boundary.Request.Effects), for the reviewer, the
// person and the record. A dry run never allows. Any other approver, or a
// nil c, is returned unchanged.
func WithEffects(a approval.Approver, c *effects.Check) approval.Approver {
	p, ok := a.(*approver)
	if !ok || c == nil || c.Run == nil {
		return a
	}
	q := *p
	q.dry = c
	return &q
}

// Approver returns an approval.Approver that decides with Judge (SPEC
// G14): the boundary request of an approval request (or, without one, the
// call itself) with the conversation as weak evidence. Allow approves,
// Deny rejects with the reason and the instruction not to work around it
// (SPEC G9), Escalate asks next (the model reviewer, or a person). With
// next nil, an unclear action is rejected with a message saying that no
// reviewer is configured to decide it (headless and fail-closed). The
// Verdict is in each approval's metadata under MetadataKey, next to
// next's own metadata; an allow or a deny is recorded as the approval's
// AutoReview (an escalation leaves next's, or none).
func Approver(set *rules.Set, next approval.Approver) approval.Approver {
	return &approver{set: set, next: next}
}

// KnowledgeApprover is the package's Approver judging with what k knows about
// programs (LoadKnowledge): the first pass of a run whose configuration
// names programs files.
func KnowledgeApprover(k *judge.Knowledge, set *rules.Set, next approval.Approver) approval.Approver {
	return &approver{k: k, set: set, next: next}
}

// PassOnApprover is the registered first pass ("first_pass" in an
// approvals_reviewer list) judging with what k knows about programs:
// unclear actions escalate to the next approver of the policy.
func PassOnApprover(k *judge.Knowledge, set *rules.Set) approval.Approver {
	if set == nil {
		set = &rules.Set{}
	}
	return &approver{k: k, set: set, passOn: true}
}

// Approve implements approval.Approver.
func (p *approver) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	var v judge.Verdict
	start := time.Now()
	a, request, turns, err := fromApproval(req)
	if err != nil {
		v = judge.Verdict{Decision: vocab.Escalate, Class: vocab.Routine, Risk: action.RiskMedium, Reason: "the action cannot be described: " + err.Error()}
	} else {
		v = p.k.JudgeIn(a, request, turns, p.set)
	}
	meta := map[string]any{MetadataKey: v}
	record := func(status action.Status) *event.AutoReview {
		actionJSON, _ := action.JSON(req.Tool, req.Call, req.Boundary)
		return &event.AutoReview{
			Action: actionJSON, Status: status, RiskLevel: v.Risk, Rationale: v.Reason,
			Source: event.SourceFirstPass, LatencyMS: time.Since(start).Milliseconds(),
		}
	}
	if v.Decision == vocab.Escalate && p.dry != nil && req.Boundary != nil && effects.Applies(req.Boundary) {
		obs, harm, deny := p.dryRun(ctx, req.Boundary)
		if deny {
			v = judge.Verdict{Decision: vocab.Deny, Class: harm.Class, Risk: harm.Risk, Reason: harm.Reason()}
			meta[MetadataKey] = v
			rec := record(action.StatusDenied)
			rec.Effects, rec.EffectsUnavailable = obs.JSON(), obs.Unavailable
			return approval.Approval{Decision: approval.Reject, Explanation: DenialMessage(v), Metadata: meta, AutoReview: rec}, nil
		}
		// The approvers after this one read the effects from the request:
		// a copy, so that the tool's own request is left as it made it.
		b := *req.Boundary
		b.Effects = obs
		req.Boundary = &b
	}
	switch v.Decision {
	case vocab.Allow:
		return approval.Approval{Decision: approval.Approve, Explanation: "first pass: " + v.Reason, Metadata: meta, AutoReview: record(action.StatusApproved)}, nil
	case vocab.Deny:
		return approval.Approval{Decision: approval.Reject, Explanation: DenialMessage(v), Metadata: meta, AutoReview: record(action.StatusDenied)}, nil
	}
	if p.passOn {
		return approval.Approval{Decision: approval.Escalate, Explanation: "the first pass passes this on: " + v.Reason, Metadata: meta}, nil
	}
	if p.next == nil {
		return approval.Approval{Decision: approval.Reject, Metadata: meta,
			Explanation: NoReviewerMessage + " (" + v.Reason + "). Ask the user to run it, or to configure auto-review or a person to decide such actions."}, nil
	}
	out, err := p.next.Approve(ctx, req)
	if err != nil {
		return out, fmt.Errorf("after the first pass passed the action on: %w", err)
	}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	} else {
		m := make(map[string]any, len(out.Metadata)+1)
		for k, x := range out.Metadata {
			m[k] = x
		}
		out.Metadata = m
	}
	out.Metadata[MetadataKey] = v
	return out, nil
}

// dryRun dry-runs b (p.dry) and judges the report: the harm and true
// when it shows a clear one. What it observed, or why nothing was, is
// returned either way, its summary filled in.
func (p *approver) dryRun(ctx context.Context, b *boundary.Request) (*effect.Observed, effects.Harm, bool) {
	obs := p.dry.Run(ctx, b)
	if obs == nil {
		obs = &effect.Observed{Unavailable: "the dry run returned nothing"}
	}
	if obs.Report == nil {
		if obs.Unavailable == "" {
			obs.Unavailable = "the dry run returned no report"
		}
		return obs, effects.Harm{}, false
	}
	out := effects.Review(*obs.Report, p.dry.Env, 0)
	obs.Summary = out.Summary
	return obs, out.Harm, out.Deny
}

// DenialMessage is what the agent receives when the first pass denies an
// action:
// the class, the reason and the instruction of SPEC G9.
func DenialMessage(v judge.Verdict) string {
	return "warden's first pass denied this action (" + strings.ReplaceAll(string(v.Class), "_", " ") + ", risk " + string(v.Risk) + "): " +
		v.Reason + "\n\n" + vocab.DenialInstruction
}

// ApproverName is the name of the first pass in the approver registry
// (SPEC P3), in approvals_reviewer lists and in `warden eval --reviewer`.
const ApproverName = approvalsreviewer.FirstPass

// OldApproverName is the name the first pass was registered under before
// it was ApproverName. It is still accepted, with a warning (package
// decider, warden check), so that "rules" means exec rules only.
const OldApproverName = approvalsreviewer.OldFirstPass

func init() {
	approval.Register(ApproverName, factory)
	approval.Rename(OldApproverName, ApproverName)
}

// factory builds the first pass as the "first_pass" approver of policy files: parameter rules, a
// rules file or a list of them (Codex .rules or YAML; directories load
// every rules file in them). Unclear actions escalate to the policy's next
// approver.
func factory(params map[string]any) (approval.Approver, error) {
	var files []string
	for k, v := range params {
		switch k {
		case "rules":
			switch x := v.(type) {
			case string:
				files = append(files, x)
			case []string:
				files = append(files, x...)
			case []any:
				for i, e := range x {
					s, ok := e.(string)
					if !ok {
						return nil, fmt.Errorf("parameter rules[%d]: want a file name, got %T", i, e)
					}
					files = append(files, s)
				}
			case nil:
			default:
				return nil, fmt.Errorf("parameter rules: want a file name or a list of them, got %T", v)
			}
		default:
			return nil, fmt.Errorf("unknown parameter %q (parameters: rules)", k)
		}
	}
	set := &rules.Set{}
	if len(files) > 0 {
		var err error
		if set, err = rules.Load(files...); err != nil {
			return nil, fmt.Errorf("parameter rules: %w", err)
		}
	}
	return &approver{set: set, passOn: true}, nil
}
