// Package review decides, after a tool call has run and before its result
// reaches the model, whether the run may go on (SPEC §3). A Reviewer decides
// one result; a Policy asks the reviewers whose patterns match, in order,
// until one does not escalate. What no reviewer decides continues.
package review

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/policyset"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Decision is a reviewer's answer (SPEC R2). There is no reject and no
// modify: the call already ran.
type Decision string

// The decisions of SPEC R2 (their words are internal/vocab's, which the
// store and the transcript share).
const (
	Continue  Decision = vocab.WordContinue
	Terminate Decision = vocab.WordTerminate
	Escalate  Decision = vocab.WordEscalate
)

// valid reports whether d is one of the three decisions.
func (d Decision) valid() bool {
	return d == Continue || d == Terminate || d == Escalate
}

// Request is what a reviewer sees (SPEC R1).
type Request struct {
	// Message is the text of the assistant message that made the call.
	Message string
	// Call is the call as executed, after any approver modification.
	Call tool.Call
	// Result is what the model will receive: content truncated to the
	// run's max_output, or an error.
	Result tool.Result
	// Output is the tool's untruncated output.
	Output string
	// View is a human-readable rendering of the call.
	View tool.View
	// Order is the order the call's arguments are rendered in, for
	// patterns and for people: the called tool's (tool.OrderOf). Nil
	// renders them sorted by name (SPEC P2).
	Order tool.Order
	// History is the conversation up to and including the assistant
	// message that made the call.
	History []chat.Message
	// Agent names the agent that made the call ("main" or a sub-agent).
	Agent string
}

// Review is a reviewer's answer.
type Review struct {
	Decision    Decision
	Explanation string
	Metadata    map[string]any
}

// A Reviewer decides whether a run may go on after a call. An error ends the
// run with an error (SPEC R7).
type Reviewer interface {
	Review(ctx context.Context, req *Request) (Review, error)
}

// Func adapts a function to the Reviewer interface.
type Func func(ctx context.Context, req *Request) (Review, error)

// Review calls f.
func (f Func) Review(ctx context.Context, req *Request) (Review, error) { return f(ctx, req) }

// Rule is one compiled entry of a policy.
type Rule = policy.Rule[Reviewer]

// Policy is a compiled review policy: a policyset.Policy of reviewers. A
// nil or empty Policy has no reviewers: every result continues (SPEC R3, P6).
type Policy policyset.Policy[Reviewer]

// New returns a policy of rules in order.
func New(rules ...Rule) *Policy { return (*Policy)(policyset.NewPolicy(rules)) }

// Compile builds a policy from entries, creating each reviewer from the
// registry. An unknown name is an error at the entry's position that lists
// the registered names.
func Compile(entries []policy.Entry) (*Policy, error) {
	p, err := policyset.CompilePolicy(registry, entries)
	return (*Policy)(p), err
}

// Len returns the number of entries; 0 means no reviewers.
func (p *Policy) Len() int { return p.generic().Len() }

// Entries returns the entries the policy was built from.
func (p *Policy) Entries() []policy.Entry { return p.generic().Entries() }

func (p *Policy) generic() *policyset.Policy[Reviewer] { return (*policyset.Policy[Reviewer])(p) }

// Record is one reviewer's answer, for the transcript.
type Record struct {
	Reviewer string
	Chain    string
	Review   Review
}

// Outcome is a policy's decision on a result.
type Outcome struct {
	Review
	// Reviewer names the reviewer that decided; "policy" when none did.
	Reviewer string
	Chain    string
}

// policyName is the reviewer name recorded when no reviewer decided.
const policyName = "policy"

// judge is how the review policy asks reviewers and reads their answers: a
// termination is the worst verdict and ends the other chains, and an
// answer given after the review was cancelled does not count (SPEC R9).
var judge = policyset.Judge[Reviewer, *Request, Review, Record]{
	What:      "reviewer",
	Ask:       func(ctx context.Context, r Reviewer, req *Request) (Review, error) { return r.Review(ctx, req) },
	Check:     check,
	Escalates: func(rv Review) bool { return rv.Decision == Escalate },
	Worse:     func(a, b Review) bool { return a.Decision == Terminate && b.Decision != Terminate },
	Final:     func(rv Review) bool { return rv.Decision == Terminate },
	Record: func(name, chain string, rv Review) Record {
		return Record{Reviewer: name, Chain: chain, Review: rv}
	},
	Cancellable: true,
}

// Decide asks the policy about req (SPEC R3, P7). Each reviewer asked is
// passed to record, escalations included. When reviewers matched but all
// escalated, the result continues and record receives a continue by
// "policy"; when none matched, it continues and nothing more is recorded.
// A reviewer's error or panic is returned, as is the context's error when
// the review is cancelled before it decides (SPEC R9).
func (p *Policy) Decide(ctx context.Context, req *Request, record func(Record)) (Outcome, error) {
	cont := Outcome{Review: Review{Decision: Continue}, Reviewer: policyName}
	if p.Len() == 0 {
		return cont, nil
	}
	var asked atomic.Bool
	v, err := judge.Decide(ctx, p.generic(), &req.Call, req.Order, req, func(r Record) {
		asked.Store(true)
		if record != nil {
			record(r)
		}
	})
	if err != nil {
		return Outcome{}, err
	}
	if !v.Decided {
		if asked.Load() {
			cont.Explanation = "every matching reviewer escalated; review continues by default"
			if record != nil {
				record(Record{Reviewer: policyName, Review: cont.Review})
			}
		}
		return cont, nil
	}
	return Outcome{Review: v.Result, Reviewer: v.Rule, Chain: v.Chain}, nil
}

// check refuses an answer that is not one of the decisions.
func check(rv Review) error {
	if !rv.Decision.valid() {
		return fmt.Errorf("invalid decision %q", rv.Decision)
	}
	return nil
}
