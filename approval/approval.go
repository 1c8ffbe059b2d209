// Package approval decides, before a tool call runs, whether it may run
// (SPEC §2). An Approver decides one call; a Policy asks the approvers whose
// patterns match, in order, until one does not escalate.
package approval

import (
	"context"
	"errors"
	"fmt"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/policyset"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Decision is an approver's answer (SPEC A2).
type Decision string

// The decisions of SPEC A2 (their words are internal/vocab's, which the
// store and the transcript share).
const (
	Approve   Decision = vocab.WordApprove
	Modify    Decision = vocab.WordModify
	Reject    Decision = vocab.WordReject
	Terminate Decision = vocab.WordTerminate
	Escalate  Decision = vocab.WordEscalate
)

// valid reports whether d is one of the five decisions.
func (d Decision) valid() bool {
	switch d {
	case Approve, Modify, Reject, Terminate, Escalate:
		return true
	}
	return false
}

// severity ranks decisions across chains (SPEC P7).
func (d Decision) severity() int {
	switch d {
	case Terminate:
		return 4
	case Reject:
		return 3
	case Modify:
		return 2
	case Approve:
		return 1
	}
	return 0
}

// Request is what an approver sees (SPEC A1).
type Request struct {
	// Message is the text of the assistant message that made the call.
	Message string
	// Call is the call as the model proposed it.
	Call tool.Call
	// View is a human-readable rendering of the call.
	View tool.View
	// Tool is the tool called, when known; it describes the call (and the
	// boundary request) for reviewers when it is an action.Describer.
	Tool tool.Tool
	// Order is the order the call's arguments are rendered in, for
	// patterns and for people: the called tool's (tool.OrderOf). Nil
	// renders them sorted by name (SPEC P2).
	Order tool.Order
	// History is the conversation so far, up to and including the
	// assistant message that made the call.
	History []chat.Message
	// Agent names the agent that made the call ("main" or a sub-agent).
	Agent string
	// Boundary, when set, is a request to cross the sandbox boundary made
	// while the call ran (SPEC G2): the approver decides that request, not
	// the call as a whole.
	Boundary *boundary.Request
}

// Approval is an approver's answer.
type Approval struct {
	Decision Decision
	// Modified is the call to run instead, for Modify.
	Modified *tool.Call
	// Explanation says why; a rejected call's explanation reaches the model.
	Explanation string
	Metadata    map[string]any
	// AutoReview is the record of the review an approver of boundary
	// requests made (the first pass, the reviewer agent), for the
	// transcript (SPEC G13): a typed value rather than metadata under a
	// string key, so the recording side needs neither. Nil when the
	// approver did not review the action (a person, an escalation). Its
	// CallID and DenialID are left for the run's boundary approver, which
	// records it as an auto_review event of the call.
	AutoReview *event.AutoReview
}

// An Approver decides whether a call may run. An error ends the run with an
// error (SPEC A7); it never counts as an approval.
type Approver interface {
	Approve(ctx context.Context, req *Request) (Approval, error)
}

// Func adapts a function to the Approver interface.
type Func func(ctx context.Context, req *Request) (Approval, error)

// Approve calls f.
func (f Func) Approve(ctx context.Context, req *Request) (Approval, error) { return f(ctx, req) }

// Rule is one compiled entry of a policy.
type Rule = policy.Rule[Approver]

// Policy is a compiled approval policy: a policyset.Policy of approvers. A
// nil or empty Policy has no approvers: every call runs (SPEC A4, P6).
type Policy policyset.Policy[Approver]

// New returns a policy of rules in order.
func New(rules ...Rule) *Policy { return (*Policy)(policyset.NewPolicy(rules)) }

// Compile builds a policy from entries, creating each approver from the
// registry. An unknown name is an error at the entry's position that lists
// the registered names.
func Compile(entries []policy.Entry) (*Policy, error) {
	p, err := policyset.CompilePolicy(registry, entries)
	return (*Policy)(p), err
}

// Len returns the number of entries; 0 means no approvers.
func (p *Policy) Len() int { return p.generic().Len() }

// Entries returns the entries the policy was built from.
func (p *Policy) Entries() []policy.Entry { return p.generic().Entries() }

func (p *Policy) generic() *policyset.Policy[Approver] { return (*policyset.Policy[Approver])(p) }

// Record is one approver's answer, for the transcript (SPEC A3).
type Record struct {
	Approver string
	Chain    string
	Approval Approval
}

// Outcome is a policy's decision on a call.
type Outcome struct {
	Approval
	// Approver names the approver that decided; "policy" when none did.
	Approver string
	Chain    string
}

// PolicyName is the approver name recorded when no approver decided.
const PolicyName = "policy"

// judge is how the approval policy asks approvers and reads their answers:
// the worst decision across chains is the most severe, and a termination
// ends the other chains (SPEC P7).
var judge = policyset.Judge[Approver, *Request, Approval, Record]{
	What:      "approver",
	Ask:       func(ctx context.Context, a Approver, req *Request) (Approval, error) { return a.Approve(ctx, req) },
	Check:     check,
	Escalates: func(a Approval) bool { return a.Decision == Escalate },
	Worse:     func(a, b Approval) bool { return a.Decision.severity() > b.Decision.severity() },
	Final:     func(a Approval) bool { return a.Decision == Terminate },
	Record: func(name, chain string, a Approval) Record {
		return Record{Approver: name, Chain: chain, Approval: a}
	},
}

// Decide asks the policy about req.Call (SPEC A3, A4, P7). Each approver
// asked is passed to record, escalations included; record may be nil. When
// approvers are in force but none decides, the call is rejected and record
// receives a rejection by "policy". With no approvers the call is approved
// and nothing is recorded. An approver's error or panic is returned.
func (p *Policy) Decide(ctx context.Context, req *Request, record func(Record)) (Outcome, error) {
	if p.Len() == 0 {
		return Outcome{Approval: Approval{Decision: Approve}}, nil
	}
	v, err := judge.Decide(ctx, p.generic(), &req.Call, req.Order, req, record)
	if err != nil {
		return Outcome{}, err
	}
	if !v.Decided {
		out := Outcome{
			Approval: Approval{Decision: Reject, Explanation: "no approver approved this call (approval is deny by default)"},
			Approver: PolicyName,
		}
		if record != nil {
			record(Record{Approver: PolicyName, Approval: out.Approval})
		}
		return out, nil
	}
	return Outcome{Approval: v.Result, Approver: v.Rule, Chain: v.Chain}, nil
}

// check refuses an answer that is not one of the decisions, or a Modify
// without the call to run instead.
func check(a Approval) error {
	if !a.Decision.valid() {
		return fmt.Errorf("invalid decision %q", a.Decision)
	}
	if a.Decision == Modify && a.Modified == nil {
		return errors.New("decision modify without a modified call")
	}
	return nil
}
