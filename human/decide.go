package human

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/callscript"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// How much of each part of a request a prompt shows at first; "v" shows
// it all.
const (
	maxMessageLines = 40
	maxCallLines    = 40
	maxViewLines    = 80
	maxResultLines  = 80
	maxCommands     = 40 // simple commands listed
	maxCommandLines = 6  // lines of one simple command
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
	{key: "a", label: "Approve", words: []string{"a", "approve"}, value: string(approval.Approve), gated: true},
	{key: "r", label: "Reject", words: []string{"r", "reject"}, value: string(approval.Reject)},
	{key: "t", label: "Terminate", words: []string{"t", "terminate"}, value: string(approval.Terminate)},
	{key: "e", label: "Escalate", words: []string{"e", "escalate"}, value: string(approval.Escalate)},
}

// Every review option, in menu order. Continue is labelled Approve (SPEC
// H2) and answers to both names.
var reviewOptions = []option{
	{key: "a", label: "Approve", words: []string{"a", "approve", "c", "continue"}, value: string(review.Continue), gated: true},
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
	return &consoleApprover{consoleAsker{c: c, opts: opts, timeout: timeout, err: err}}
}

type consoleApprover struct{ consoleAsker }

// Approve shows the request and returns the person's decision.
func (a *consoleApprover) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	d, expl, md, err := a.decide(ctx, func(columns int) prompt { return approvalPrompt(req, columns) }, "rejected", string(approval.Reject), "the call is rejected")
	if err != nil {
		return approval.Approval{}, err
	}
	return approval.Approval{Decision: approval.Decision(d), Explanation: expl, Metadata: md}, nil
}

// consoleAsker is what the console's approver and reviewer share: the
// options offered, the timeout, and the error of invalid choices.
type consoleAsker struct {
	c       *Console
	opts    []option
	timeout time.Duration
	err     error
}

// decide shows a request (draw) and returns the decision the person chose,
// its explanation and the metadata of the answer. A request the input ends
// on, or that nobody answers within the timeout, gets failsafe (SPEC H3):
// failed is what the prompt says then happens, outcome what the
// explanation says.
func (a *consoleAsker) decide(ctx context.Context, draw func(columns int) prompt, failed, failsafe, outcome string) (string, string, map[string]any, error) {
	if a.err != nil {
		return "", "", nil, a.err
	}
	o, how, err := a.c.ask(ctx, draw, a.opts, failed, a.timeout)
	if err != nil {
		return "", "", nil, err
	}
	md := map[string]any{"surface": "console"}
	switch how {
	case dismissed:
		md["dismissed"] = true
		return failsafe, "the request was dismissed: the console's input ended before a person answered, so " + outcome, md, nil
	case timedOut:
		md["timed_out"] = true
		return failsafe, fmt.Sprintf("the request timed out: no person answered within %s, so %s", a.timeout, outcome), md, nil
	}
	return o.value, decidedBy(o.value), md, nil
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
	return &consoleReviewer{consoleAsker{c: c, opts: opts, timeout: timeout, err: err}}
}

type consoleReviewer struct{ consoleAsker }

// Review shows the request and returns the person's decision.
func (r *consoleReviewer) Review(ctx context.Context, req *review.Request) (review.Review, error) {
	d, expl, md, err := r.decide(ctx, func(columns int) prompt { return reviewPrompt(req, columns) }, "the run is terminated", string(review.Terminate), "the run is terminated")
	if err != nil {
		return review.Review{}, err
	}
	return review.Review{Decision: review.Decision(d), Explanation: expl, Metadata: md}, nil
}

// decidedBy explains a decision a person made.
func decidedBy(d string) string {
	switch d {
	case "approve", "continue":
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

// A prompt is a request as the console shows it: first with long parts
// cut, and, when something was cut, whole.
type prompt struct {
	// short is the request as first shown.
	short string
	// full is the request with nothing cut; "" when short shows it all.
	full string
	// hidden says what short cut that the person must see before the gated
	// choices are offered; "" when nothing such was cut.
	hidden string
}

// page renders one form of a request: with the parts cut to their limits,
// or (full) whole.
type page struct {
	b       strings.Builder
	full    bool
	columns int
	// hidden names the first part cut that gates approval.
	hidden string
	// cut reports whether anything at all was cut.
	cut bool
}

// block writes untrusted text as a quoted block, at most maxLines lines
// unless the page is full, or a marker when it is empty. When gate names
// the part and the block was cut, approval waits until it is shown whole.
func (p *page) block(s string, maxLines int, gate string) {
	if p.full {
		maxLines = 0
	}
	q, cut := quote(s, maxLines, p.columns)
	if q == "" {
		q = omitGutter + "(empty)\n"
	}
	p.b.WriteString(q)
	p.note(cut, gate)
}

// note records that a part was cut.
func (p *page) note(cut bool, gate string) {
	if !cut {
		return
	}
	p.cut = true
	if gate != "" && p.hidden == "" {
		p.hidden = gate
	}
}

// line writes a line the console itself says. Escaped untrusted text in it
// is cut to the terminal's width, so the terminal never wraps it to the
// start of a line of its own.
func (p *page) line(s string, untrusted bool) {
	if untrusted {
		s = cutWidth(s, max(p.columns, minColumns))
	}
	p.b.WriteString(s)
	p.b.WriteByte('\n')
}

// render renders a request with draw in both forms.
func render(columns int, draw func(p *page)) prompt {
	short := &page{columns: columns}
	draw(short)
	pr := prompt{short: short.b.String(), hidden: short.hidden}
	if short.cut {
		full := &page{columns: columns, full: true}
		draw(full)
		pr.full = full.b.String()
	}
	return pr
}

// approvalPrompt renders an approval request (SPEC A1): the tool, the
// assistant message, the simple commands of a shell call, and the call.
// Everything from the model is quoted.
func approvalPrompt(req *approval.Request, columns int) prompt {
	return render(columns, func(p *page) {
		p.b.WriteByte('\n')
		p.line("── approval requested: "+escapeLine(req.Call.Function)+" ──", true)
		writeMessage(p, req.Message)
		if b := req.Boundary; b != nil && b.String() != req.View.Content {
			p.b.WriteString("boundary request:\n")
			p.block(b.String(), maxViewLines, "the boundary request")
		}
		if script, ok := shellScript(req.Call, req.View, req.Boundary); ok {
			writeCommands(p, script)
		}
		writeCall(p, req.Call, req.Order, req.View, "the call")
	})
}

// reviewPrompt renders a review request (SPEC R1): the tool, the assistant
// message, the call as executed and the result the model will receive.
func reviewPrompt(req *review.Request, columns int) prompt {
	return render(columns, func(p *page) {
		p.b.WriteByte('\n')
		p.line("── review requested: "+escapeLine(req.Call.Function)+" ──", true)
		writeMessage(p, req.Message)
		writeCall(p, req.Call, req.Order, req.View, "")
		res := req.Result
		switch {
		case res.Error != nil:
			p.line("the model will receive an error ("+escapeLine(string(res.Error.Type))+"):", true)
			p.block(res.Error.Message, maxResultLines, "the result")
			if req.Output != "" {
				p.line(fmt.Sprintf("note: the tool also produced %d bytes of output, not shown", len(req.Output)), false)
			}
		default:
			p.b.WriteString("the model will receive:\n")
			p.block(res.Content, maxResultLines, "the result")
			if req.Output != res.Content {
				if len(req.Output) > len(res.Content) {
					p.line(fmt.Sprintf("note: the result was truncated: the tool's output is %d bytes, the model receives %d", len(req.Output), len(res.Content)), false)
				} else {
					p.line(fmt.Sprintf("note: the tool's raw output (%d bytes) differs from the result shown (%d bytes)", len(req.Output), len(res.Content)), false)
				}
			}
		}
	})
}

// writeMessage writes the assistant message, if any.
func writeMessage(p *page, msg string) {
	if strings.TrimSpace(msg) == "" {
		return
	}
	p.b.WriteString("assistant message:\n")
	p.block(msg, maxMessageLines, "")
}

// writeCall writes the call's text and, when it says something the text
// does not, its view, so a person sees both exactly what will run and a
// readable form. gate names the call for approval ("" when a cut does not
// gate it).
func writeCall(p *page, call tool.Call, order tool.Order, view tool.View, gate string) {
	text := call.TextIn(order)
	p.b.WriteString("call:\n")
	p.block(text, maxCallLines, gate)
	if view.Content == "" || strings.Contains(text, view.Content) {
		return
	}
	head := "view"
	if view.Title != "" {
		head += " — " + escapeLine(view.Title)
	}
	if view.Format != "" && view.Format != "text" {
		head += " (" + escapeLine(cutWidth(view.Format, 20)) + ")"
	}
	p.line(head+":", true)
	if gate != "" {
		gate = "the view of the call"
	}
	p.block(view.Content, maxViewLines, gate)
}

// shellScript returns the shell script a request runs, if it runs one: the
// command of a boundary request, else the script of the call
// (callscript.Script).
func shellScript(call tool.Call, view tool.View, b *boundary.Request) (string, bool) {
	if b != nil {
		return b.Command, b.Command != ""
	}
	return callscript.Script(call, view)
}

// writeCommands lists the simple commands of a shell script (callscript.Split):
// each in full, numbered. A command or a list too long to show gates
// approval.
func writeCommands(p *page, script string) {
	c, err := callscript.Split(script)
	if err != nil {
		p.line("commands: the script does not parse as bash ("+escapeLine(err.Error())+"); read the call", true)
		return
	}
	cmds := c.List
	p.line(fmt.Sprintf("commands (%d, as the shell splits them):", len(cmds)), false)
	if c.Opaque != "" {
		p.line("  ! not every command can be seen: "+escapeLine(c.Opaque), true)
	}
	shown := cmds
	if !p.full && len(cmds) > maxCommands {
		shown = cmds[:maxCommands]
	}
	numWidth := len(fmt.Sprint(len(cmds)))
	for i, c := range shown {
		num := fmt.Sprintf("  %*d │ ", numWidth, i+1)
		pad := strings.Repeat(" ", 3+numWidth)
		lines := quoteLines(c, p.columns, max(textWidth(num), textWidth(pad+"┆ ")))
		limit := len(lines)
		if !p.full && limit > maxCommandLines {
			limit = maxCommandLines
		}
		for j, l := range lines[:limit] {
			switch {
			case j == 0:
				p.b.WriteString(num)
			case l.cont:
				p.b.WriteString(pad + "┆ ")
			default:
				p.b.WriteString(pad + "│ ")
			}
			p.b.WriteString(l.text)
			p.b.WriteByte('\n')
		}
		if limit < len(lines) {
			p.b.WriteString(pad + "⋮ … " + count(len(lines)-limit, "more line") + " of this command (v shows all) …\n")
			p.note(true, "a command")
		}
	}
	if len(shown) < len(cmds) {
		p.line("  ⋮ … "+count(len(cmds)-len(shown), "more command")+" (v shows all) …", false)
		p.note(true, "the commands")
	}
}
