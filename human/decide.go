package human

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// How many lines of each part of a request a prompt shows at most.
const (
	maxMessageLines = 40
	maxCallLines    = 10
	maxViewLines    = 80
	maxResultLines  = 80
)

// defaultApprovalChoices are the choices an approval prompt offers when none
// are given (SPEC H2).
var defaultApprovalChoices = []approval.Decision{approval.Approve, approval.Reject, approval.Terminate}

// defaultReviewChoices are the choices a review prompt offers when none are
// given (SPEC H2).
var defaultReviewChoices = []review.Decision{review.Continue, review.Terminate}

// Every approval option the console can offer, in menu order. Modify is not
// among them: it needs the arguments edited, which a one-line answer cannot
// do.
var approvalOptions = []option{
	{key: "a", label: "Approve", words: []string{"a", "approve"}, value: string(approval.Approve)},
	{key: "r", label: "Reject", words: []string{"r", "reject"}, value: string(approval.Reject)},
	{key: "t", label: "Terminate", words: []string{"t", "terminate"}, value: string(approval.Terminate)},
	{key: "e", label: "Escalate", words: []string{"e", "escalate"}, value: string(approval.Escalate)},
}

// Every review option, in menu order. Continue is labelled Approve (SPEC
// H2) and answers to both names.
var reviewOptions = []option{
	{key: "a", label: "Approve", words: []string{"a", "approve", "c", "continue"}, value: string(review.Continue)},
	{key: "t", label: "Terminate", words: []string{"t", "terminate"}, value: string(review.Terminate)},
	{key: "e", label: "Escalate", words: []string{"e", "escalate"}, value: string(review.Escalate)},
}

// selectOptions returns the options of all whose values are among choices,
// in menu order, or an error naming the first choice none offers.
func selectOptions(all []option, choices []string) ([]option, error) {
	want := map[string]bool{}
	for _, c := range choices {
		want[c] = true
	}
	var opts []option
	for _, o := range all {
		if want[o.value] {
			opts = append(opts, o)
			delete(want, o.value)
		}
	}
	for _, c := range choices {
		if want[c] {
			return nil, fmt.Errorf("unknown choice %q (choices: %s)", c, values(all))
		}
	}
	return opts, nil
}

// values lists the decisions of opts.
func values(opts []option) string {
	v := make([]string, len(opts))
	for i, o := range opts {
		v[i] = o.value
	}
	return strings.Join(v, ", ")
}

// approvalMenu validates approval choices and returns their options.
func approvalMenu(choices []approval.Decision) ([]option, error) {
	if len(choices) == 0 {
		choices = defaultApprovalChoices
	}
	names := make([]string, len(choices))
	for i, d := range choices {
		if d == approval.Modify {
			return nil, fmt.Errorf("choice modify is not offered on the console: it needs the arguments edited; use the terminal or web panel, or leave modify out (console choices: %s)", values(approvalOptions))
		}
		names[i] = string(d)
	}
	return selectOptions(approvalOptions, names)
}

// reviewMenu validates review choices and returns their options.
func reviewMenu(choices []review.Decision) ([]option, error) {
	if len(choices) == 0 {
		choices = defaultReviewChoices
	}
	names := make([]string, len(choices))
	for i, d := range choices {
		names[i] = string(d)
	}
	return selectOptions(reviewOptions, names)
}

// Approver returns an approver that asks a person at the console (SPEC H1).
// choices are the decisions offered, by default approve, reject and
// terminate; escalate may be added, modify may not (it needs editing). When
// choices are invalid, every call to the approver returns an error saying
// why, which ends the run with an error (SPEC A7); the "human" factory
// reports the same error when the policy is compiled.
//
// A request the input ends on is dismissed and rejected; with timeout > 0,
// a request nobody answers within timeout of being shown is rejected too
// (SPEC H3). Neither is ever approved. When ctx ends first, Approve returns
// ctx.Err().
func (c *Console) Approver(choices []approval.Decision, timeout time.Duration) approval.Approver {
	opts, err := approvalMenu(choices)
	if err != nil {
		err = fmt.Errorf("human approver: %w", err)
	}
	return &consoleApprover{c: c, opts: opts, timeout: timeout, err: err}
}

type consoleApprover struct {
	c       *Console
	opts    []option
	timeout time.Duration
	err     error
}

// Approve shows the request and returns the person's decision.
func (a *consoleApprover) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	if a.err != nil {
		return approval.Approval{}, a.err
	}
	o, how, err := a.c.ask(ctx, approvalPrompt(req), a.opts, "rejected", a.timeout)
	if err != nil {
		return approval.Approval{}, err
	}
	md := map[string]any{"surface": "console"}
	switch how {
	case dismissed:
		md["dismissed"] = true
		return approval.Approval{
			Decision:    approval.Reject,
			Explanation: "the request was dismissed: the console's input ended before a person answered, so the call is rejected",
			Metadata:    md,
		}, nil
	case timedOut:
		md["timed_out"] = true
		return approval.Approval{
			Decision:    approval.Reject,
			Explanation: fmt.Sprintf("the request timed out: no person answered within %s, so the call is rejected", a.timeout),
			Metadata:    md,
		}, nil
	}
	d := approval.Decision(o.value)
	return approval.Approval{Decision: d, Explanation: decidedBy(string(d)), Metadata: md}, nil
}

// Reviewer returns a reviewer that asks a person at the console (SPEC H1).
// choices are the decisions offered, by default continue and terminate;
// escalate may be added. Continue is offered as Approve (SPEC H2) and
// answers to a, approve, c and continue. When choices are invalid, every
// call to the reviewer returns an error saying why (SPEC R7); the "human"
// factory reports the same error when the policy is compiled.
//
// A request the input ends on is dismissed and terminates the run; with
// timeout > 0, so does a request nobody answers within timeout of being
// shown (SPEC H3). Neither ever continues. When ctx ends first, Review
// returns ctx.Err().
func (c *Console) Reviewer(choices []review.Decision, timeout time.Duration) review.Reviewer {
	opts, err := reviewMenu(choices)
	if err != nil {
		err = fmt.Errorf("human reviewer: %w", err)
	}
	return &consoleReviewer{c: c, opts: opts, timeout: timeout, err: err}
}

type consoleReviewer struct {
	c       *Console
	opts    []option
	timeout time.Duration
	err     error
}

// Review shows the request and returns the person's decision.
func (r *consoleReviewer) Review(ctx context.Context, req *review.Request) (review.Review, error) {
	if r.err != nil {
		return review.Review{}, r.err
	}
	o, how, err := r.c.ask(ctx, reviewPrompt(req), r.opts, "the run is terminated", r.timeout)
	if err != nil {
		return review.Review{}, err
	}
	md := map[string]any{"surface": "console"}
	switch how {
	case dismissed:
		md["dismissed"] = true
		return review.Review{
			Decision:    review.Terminate,
			Explanation: "the request was dismissed: the console's input ended before a person answered, so the run is terminated",
			Metadata:    md,
		}, nil
	case timedOut:
		md["timed_out"] = true
		return review.Review{
			Decision:    review.Terminate,
			Explanation: fmt.Sprintf("the request timed out: no person answered within %s, so the run is terminated", r.timeout),
			Metadata:    md,
		}, nil
	}
	d := review.Decision(o.value)
	expl := decidedBy(string(d))
	if d == review.Continue {
		expl = "approved by a person at the console"
	}
	return review.Review{Decision: d, Explanation: expl, Metadata: md}, nil
}

// decidedBy explains a decision a person made.
func decidedBy(d string) string {
	switch d {
	case "approve":
		return "approved by a person at the console"
	case "reject":
		return "rejected by a person at the console"
	case "terminate":
		return "terminated by a person at the console"
	case "escalate":
		return "escalated by a person at the console"
	}
	return d + " by a person at the console"
}

// approvalPrompt renders an approval request (SPEC A1): the tool, the
// assistant message and the call. Everything from the model is quoted.
func approvalPrompt(req *approval.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n── approval requested: %s ──\n", escapeLine(cut(req.Call.Function, 40)))
	writeMessage(&b, req.Message)
	writeCall(&b, req.Call, req.View)
	return b.String()
}

// reviewPrompt renders a review request (SPEC R1): the tool, the assistant
// message, the call as executed and the result the model will receive.
func reviewPrompt(req *review.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n── review requested: %s ──\n", escapeLine(cut(req.Call.Function, 40)))
	writeMessage(&b, req.Message)
	writeCall(&b, req.Call, req.View)
	res := req.Result
	switch {
	case res.Error != nil:
		fmt.Fprintf(&b, "the model will receive an error (%s):\n", escapeLine(cut(string(res.Error.Type), 20)))
		writeBlock(&b, res.Error.Message, maxResultLines)
		if req.Output != "" {
			fmt.Fprintf(&b, "note: the tool also produced %d bytes of output, not shown\n", len(req.Output))
		}
	default:
		b.WriteString("the model will receive:\n")
		writeBlock(&b, res.Content, maxResultLines)
		if req.Output != res.Content {
			if len(req.Output) > len(res.Content) {
				fmt.Fprintf(&b, "note: the result was truncated: the tool's output is %d bytes, the model receives %d\n", len(req.Output), len(res.Content))
			} else {
				fmt.Fprintf(&b, "note: the tool's raw output (%d bytes) differs from the result shown (%d bytes)\n", len(req.Output), len(res.Content))
			}
		}
	}
	return b.String()
}

// writeMessage writes the assistant message, if any.
func writeMessage(b *strings.Builder, msg string) {
	if strings.TrimSpace(msg) == "" {
		return
	}
	b.WriteString("assistant message:\n")
	writeBlock(b, msg, maxMessageLines)
}

// writeCall writes the call's text and, when it says something else, its
// view, so a person sees both exactly what will run and a readable form.
func writeCall(b *strings.Builder, call tool.Call, view tool.View) {
	text := call.Text()
	b.WriteString("call:\n")
	writeBlock(b, text, maxCallLines)
	if view.Content == "" || view.Content == text {
		return
	}
	b.WriteString("view")
	if view.Title != "" {
		fmt.Fprintf(b, " — %s", escapeLine(cut(view.Title, 60)))
	}
	if view.Format != "" && view.Format != "text" {
		fmt.Fprintf(b, " (%s)", escapeLine(cut(view.Format, 20)))
	}
	b.WriteString(":\n")
	writeBlock(b, view.Content, maxViewLines)
}

// writeBlock writes untrusted text as a quoted block, or a marker when it is
// empty.
func writeBlock(b *strings.Builder, s string, maxLines int) {
	q := Quote(s, maxLines)
	if q == "" {
		q = omitGutter + "(empty)\n"
	}
	b.WriteString(q)
}
