package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/human"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/request"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/tool"
)

// Config is how `warden hook` decides, resolved from its flags and
// configuration file: a governed session's configuration, and what only
// hosts (the sandbox) or the gateway (Crossing) add to it.
type Config struct {
	govern.Config
	// Sandbox, when set (read-only, workspace-write), confines the shell
	// calls a policy lets run where the host takes changed input (Claude
	// Code, Gemini CLI, Cursor's preToolUse): each runs as `Exe exec
	// --sandbox MODE -- bash -c COMMAND` (SPEC X4). Exe is warden's
	// absolute path.
	Sandbox, Exe string
	// Crossing, when set, returns the boundary request a call makes by
	// what its tool is (warden mcp: the tool's declared annotations in the
	// server's mode, SPEC G2), or nil: asked after the approval policy lets
	// the call run, as exec rules' prompts are. approved says an approver
	// of the policy approved it (an allow rule), rather than no policy
	// deciding.
	Crossing func(call tool.Call, approved bool) *boundary.Request
}

// Handle answers one hook event of host h, read from input: it never
// fails open — input that does not parse, a state that cannot be read or
// written, or any error or panic of the decision is answered with the
// host's deny (Host.Fail).
func (c *Config) Handle(ctx context.Context, h *Host, input []byte) (ans Answer) {
	defer func() {
		if r := recover(); r != nil {
			ans = h.Fail(fmt.Sprintf("internal error: %v\n%s", r, debug.Stack()))
		}
	}()
	e, err := h.Parse(input)
	if err != nil {
		return h.Fail(err.Error())
	}
	s, err := govern.OpenSession(c.Paths, h.Name, e.SessionID, c.Sink)
	if err != nil {
		return h.Fail(err.Error())
	}
	v, err := c.decide(ctx, h, e, s)
	if cerr := s.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("recording the decision: %w", cerr)
	}
	if err != nil {
		return h.Fail(err.Error())
	}
	return h.Answer(e, v)
}

// decision is one event's decision, with its session.
type decision struct {
	c    *Config
	h    *Host
	e    *Event
	s    *govern.Session
	gate *gate.Gate
	// asked says a person was to decide and nobody was reachable here: the
	// host's own ask decides, where it has one.
	asked bool
	// away counts the waits under way with the session's lock let go.
	away int
	mu   sync.Mutex
}

// Start records the start of session s's run (its policies, workdir) when
// it has none yet; Decide starts it too. A gateway starts its run when a
// client session opens, before anything else is recorded.
func (c *Config) Start(h *Host, s *govern.Session, workdir string) {
	c.start(&decision{c: c, h: h, s: s}, workdir)
}

func (c *Config) start(d *decision, workdir string) {
	if !d.s.New {
		return
	}
	task := d.h.task
	if task == "" {
		task = "hook:" + d.h.Name
	}
	rs := &event.RunStart{Task: task, Model: d.h.Name, Approval: c.ApprovalEntries, Review: c.ReviewEntries, Workdir: workdir}
	d.gateFor().StartRun(rs)
	d.s.Events.Emit(*rs)
	d.s.New = false
}

// Decide decides event e of host h in session s, which the caller opened
// and holds (warden mcp holds a client session's run for its whole life):
// Handle without the reading and the answer. Events of one session are
// decided one at a time.
func (c *Config) Decide(ctx context.Context, h *Host, e *Event, s *govern.Session) (Verdict, error) {
	return c.decide(ctx, h, e, s)
}

func (c *Config) decide(ctx context.Context, h *Host, e *Event, s *govern.Session) (Verdict, error) {
	d := &decision{c: c, h: h, e: e, s: s}
	c.start(d, e.Cwd)
	switch e.Phase {
	case Prompt:
		return d.prompt()
	case PreTool:
		return d.preTool(ctx)
	case PostTool:
		return d.postTool(ctx)
	case Permission:
		return d.permission(ctx)
	}
	return Verdict{}, fmt.Errorf("event %s: no phase", e.Name)
}

// prompt starts a turn: the breaker's count clears, and the notes of the
// overrides a person granted reach the agent (SPEC G11, G12).
func (d *decision) prompt() (Verdict, error) {
	ts := &event.TurnStart{Input: d.e.Prompt, Workdir: d.e.Cwd}
	notes := d.s.Notes
	d.gateFor().StartTurn(ts, nil)
	d.s.Events.Emit(*ts)
	var b strings.Builder
	for _, n := range notes {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(n.Content)
	}
	return Verdict{Decision: Pass, Context: b.String()}, nil
}

// call is the event's call as policies see it.
func (d *decision) call() (tool.Call, tool.Tool, error) {
	t := d.h.Tool(d.e.Tool, d.e.Cwd)
	call := tool.Call{ID: d.e.ToolUseID, Function: d.e.Tool}
	if call.ID == "" {
		call.ID = "call"
	}
	if err := call.SetArguments(d.e.Input); err != nil {
		return call, t, fmt.Errorf("tool_input: %w", err)
	}
	if ht, ok := t.(*hostTool); ok {
		if _, err := ht.fields(d.e.Input); err != nil {
			return call, t, err
		}
	}
	return call, t, nil
}

// withPerson returns ctx with where a person is asked: the queue, else
// nobody here (the host's ask, where it has one).
func (d *decision) withPerson(ctx context.Context) context.Context {
	if d.c.Queue != nil {
		return human.WithSurface(ctx, queueSurface{waiting{d.c.Queue, d}, d.s.RunID, d.c.Timeout})
	}
	return human.WithSurface(ctx, surface{d})
}

// preTool decides a call before it runs: the approval policy, then, for a
// shell command, the exec rules.
func (d *decision) preTool(ctx context.Context) (Verdict, error) {
	call, t, err := d.call()
	if err != nil {
		return Verdict{}, err
	}
	req := &approval.Request{Call: call, Tool: t, Agent: "main"}
	v := Verdict{Decision: Pass}
	if d.c.Approval.Len() > 0 {
		out, err := d.c.Approval.Decide(d.withPerson(ctx), req, d.recordApproval(call, nil))
		if err != nil {
			return Verdict{}, fmt.Errorf("approval policy: %w", err)
		}
		switch out.Decision {
		case approval.Approve:
			v = Verdict{Decision: Allow, Reason: out.Explanation}
		case approval.Modify:
			if out.Modified == nil {
				return Verdict{}, fmt.Errorf("approver %s modified the call without the modified call", out.Approver)
			}
			v = Verdict{Decision: Modify, Input: out.Modified.Arguments, Reason: out.Explanation}
			call = *out.Modified
		case approval.Terminate:
			return d.terminate(out.Explanation), nil
		case approval.Escalate:
			return d.escalate(ctx, call, t, "the approval policy escalates this call")
		default:
			if out.Approver == approval.PolicyName && d.wasAsked() {
				return d.escalate(ctx, call, t, "a person is to decide this call")
			}
			return Verdict{Decision: Deny, Reason: out.Explanation}, nil
		}
	}
	if d.s.Tripped {
		return Verdict{Decision: Stop, Reason: interrupted}, nil
	}
	if d.c.Crossing != nil {
		if breq := d.c.Crossing(call, v.Decision != Pass); breq != nil {
			bv, err := d.boundary(ctx, call, t, breq)
			if err != nil || bv.Decision != Allow {
				return bv, err
			}
			if v.Decision != Modify {
				v = bv
			}
		}
	}
	cmd, isShell := d.h.shellCommand(t, call.Arguments)
	if !isShell {
		return v, nil
	}
	var esc *escalation
	if d.confines() {
		if esc, err = d.escalationOf(call, t, cmd); err != nil {
			return Verdict{}, err
		}
	}
	if d.c.Rules != nil {
		judged := rules.Evaluate(d.c.Rules, cmd)
		switch {
		case judged.Decision == rules.Forbidden:
			return Verdict{Decision: Deny, Reason: "forbidden by the exec rules: " + judged.Report()}, nil
		case judged.Decision == rules.Prompt && esc != nil && esc.full:
			// One request: to run outside the sandbox what the rules
			// send for approval.
			esc.requests[0].Reason += "; exec rules: " + judged.Report()
		case judged.Decision == rules.Prompt:
			bv, err := d.boundary(ctx, call, t, &boundary.Request{Permission: boundary.Exec, Command: cmd, Reason: "exec rules: " + judged.Report()})
			if err != nil || bv.Decision != Allow {
				return bv, err
			}
			if v.Decision != Modify {
				v = bv
			}
		}
	}
	if esc == nil {
		return d.confine(v, call, cmd)
	}
	return d.crossSandbox(ctx, v, call, t, cmd, esc)
}

// crossSandbox puts what a shell call asks beyond warden's sandbox to the
// boundary decider, one request at a time (SPEC X4): a request it does not
// approve is the answer, so the call never runs with more than the
// sandbox allows unless every request was approved. Approved, the call
// runs outside the sandbox (esc.full) or confined with exactly the
// permissions asked.
func (d *decision) crossSandbox(ctx context.Context, v Verdict, call tool.Call, t tool.Tool, cmd string, esc *escalation) (Verdict, error) {
	var why []string
	for _, req := range esc.requests {
		bv, err := d.boundary(ctx, call, t, req)
		if err != nil {
			return Verdict{}, err
		}
		switch bv.Decision {
		case Allow:
			if bv.Reason != "" {
				why = append(why, bv.Reason)
			}
			continue
		case Modify:
			return Verdict{Decision: Deny, Reason: "the request to cross warden's sandbox was not approved as asked (" + bv.Reason + "); call again without it to run under the sandbox"}, nil
		case Deny:
			bv.Reason += "; call again without it to run under warden's sandbox"
		}
		return bv, nil
	}
	if !esc.full {
		return d.confine(v, call, cmd, esc.flags...)
	}
	reason := "approved to run outside warden's sandbox"
	if len(why) > 0 {
		reason += ": " + strings.Join(why, "; ")
	}
	if v.Decision == Modify {
		v.Reason = reason
		return v, nil
	}
	return Verdict{Decision: Allow, Reason: reason, Context: v.Context}, nil
}

// confines says shell calls of this event are rewritten to run under
// warden's sandbox: one is configured and the host takes changed input.
func (d *decision) confines() bool {
	return d.c.Sandbox != "" && !d.e.NoModify && d.h.Modifies
}

// confine rewrites a shell call a policy lets run to run under warden's
// sandbox (Config.Sandbox), where the host takes changed input: the
// command becomes `warden exec --sandbox MODE [FLAGS] [--hint-host HOST] -- bash -c COMMAND`,
// quoted by the shell library, the call's other arguments kept (flags:
// the permissions a boundary decision granted). Elsewhere, and
// for calls denied, v is returned as it is.
func (d *decision) confine(v Verdict, call tool.Call, cmd string, flags ...string) (Verdict, error) {
	if !d.confines() {
		return v, nil
	}
	switch v.Decision {
	case Pass, Allow, Modify:
	default:
		return v, nil
	}
	args := map[string]json.RawMessage{}
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return Verdict{}, fmt.Errorf("confining the call: %w", err)
	}
	key := d.h.Tools[call.Function].Command
	cacheFlags, env := goCache(d.c.Sandbox)
	argv := append([]string{d.c.Exe, "exec", "--sandbox", d.c.Sandbox}, flags...)
	argv = append(argv, cacheFlags...)
	if _, _, ok := d.h.escalatingShell(); ok {
		// A blocked action's hint names the host's own way to ask
		// (AskHint), not `warden exec` flags.
		argv = append(argv, "--hint-host", d.h.Name)
	}
	argv = append(append(append(argv, "--"), env...), "bash", "-c", cmd)
	wrapped := shell.Join(argv)
	raw, err := json.Marshal(wrapped)
	if err != nil {
		return Verdict{}, err
	}
	args[key] = raw
	input, err := json.Marshal(args)
	if err != nil {
		return Verdict{}, err
	}
	reason := v.Reason
	if reason == "" {
		reason = "runs under warden's sandbox (" + d.c.Sandbox + ")"
	}
	return Verdict{Decision: Modify, Input: input, Reason: reason, Context: v.Context}, nil
}

// escalate puts a call a policy escalated to the host's person where the
// host has an ask and warden has no queue, else to the boundary decision:
// the first pass, auto-review, the queue.
func (d *decision) escalate(ctx context.Context, call tool.Call, t tool.Tool, why string) (Verdict, error) {
	if d.h.Ask && d.c.Queue == nil {
		return Verdict{Decision: Ask, Reason: why}, nil
	}
	return d.boundary(ctx, call, t, d.requestOf(call, t, why))
}

// requestOf is the boundary request a whole call makes.
func (d *decision) requestOf(call tool.Call, t tool.Tool, why string) *boundary.Request {
	req := &boundary.Request{Permission: boundary.MCP, Tool: call.Function, Reason: why}
	if ht, ok := t.(*hostTool); ok {
		f, _ := ht.fields(call.Arguments)
		switch ht.spec.Kind {
		case Shell:
			req = &boundary.Request{Permission: boundary.Exec, Command: f.command, Reason: why}
		case Write, Edit:
			req = &boundary.Request{Permission: boundary.Write, Paths: []string{ht.abs(f.path)}, Reason: why}
		case Fetch:
			req = &boundary.Request{Permission: boundary.Network, Reason: why}
		case MCP:
			server, name, _ := d.h.mcpName(call.Function)
			req = &boundary.Request{Permission: boundary.MCP, Server: server, Tool: name, Reason: why}
		}
	}
	return req
}

// permission decides the host's own request to cross its boundary.
func (d *decision) permission(ctx context.Context) (Verdict, error) {
	call, t, err := d.call()
	if err != nil {
		return Verdict{}, err
	}
	if d.s.Tripped {
		return Verdict{Decision: Stop, Reason: interrupted}, nil
	}
	return d.boundary(ctx, call, t, d.requestOf(call, t, d.h.Name+" asks permission for this call"))
}

// withEffects returns reason followed by what a dry run of b's command
// observed, when the first pass dry-ran it (SPEC G17): the reason the
// host shows the person it asks.
func withEffects(reason string, b *boundary.Request) string {
	if b == nil || b.Effects.Note() == "" {
		return reason
	}
	return reason + "; " + b.Effects.Note()
}

// boundary puts a boundary request to the run's gate: the boundary decision
// with the denial log, the overrides and the breaker.
func (d *decision) boundary(ctx context.Context, call tool.Call, t tool.Tool, breq *boundary.Request) (Verdict, error) {
	if d.c.Boundary == nil {
		return Verdict{Decision: Deny, Reason: "nobody is configured to decide this request (" + breq.Reason + ")"}, nil
	}
	var person approval.Approver = nobody{d}
	if d.c.Queue != nil {
		person = queue.Approver(waiting{d.c.Queue, d}, d.s.RunID, nil, d.c.Timeout)
	}
	p, err := d.c.Boundary(d.e.Cwd, person)
	if err != nil {
		return Verdict{}, fmt.Errorf("the boundary decider: %w", err)
	}
	g := d.gateFor()
	g.Next = agent.BoundaryFunc(func(ctx context.Context, req *agent.BoundaryRequest) (out agent.BoundaryOutcome, err error) {
		// The first pass, the reviewer agent, a person: the session's
		// other hooks go on meanwhile.
		err = d.letGo(func() error {
			out, err = agent.BoundaryPolicy(p).ApproveBoundary(ctx, req)
			return err
		})
		return out, err
	})
	req := &approval.Request{Call: call, Tool: t, Agent: "main", Boundary: breq,
		History: []chat.Message{{Role: chat.User, Content: d.e.Prompt}}}
	out, err := g.ApproveBoundary(d.withPerson(ctx), &agent.BoundaryRequest{Request: req, Events: d.s.Events, Record: d.recordApproval(call, breq)})
	if err != nil {
		return Verdict{}, err
	}
	if out.Interrupt != nil {
		d.s.Events.Emit(event.Limit{Type: event.LimitInterrupt, Message: out.Interrupt.Message})
		return Verdict{Decision: Stop, Reason: "warden interrupted this turn: " + out.Interrupt.Message}, nil
	}
	switch out.Decision {
	case approval.Approve:
		return Verdict{Decision: Allow, Reason: out.Explanation}, nil
	case approval.Modify:
		if out.Modified != nil {
			return Verdict{Decision: Modify, Input: out.Modified.Arguments, Reason: out.Explanation}, nil
		}
	case approval.Terminate:
		return d.terminate(out.Explanation), nil
	}
	if out.Approver == approval.PolicyName && d.wasAsked() {
		if d.h.Ask {
			return Verdict{Decision: Ask, Reason: withEffects(breq.Reason, req.Boundary)}, nil
		}
		return Verdict{Decision: Deny, Reason: "a person must decide this (" + breq.Reason + "), and none is reachable: give " + d.h.commandName() + " --server (the panel) or --db, or let auto-review decide (--approvals-reviewer auto_review)"}, nil
	}
	return Verdict{Decision: Deny, Reason: out.Explanation}, nil
}

// gateFor returns the session's gate, restored from its transcript.
func (d *decision) gateFor() *gate.Gate {
	if d.gate == nil {
		d.gate = d.s.Gate()
	}
	return d.gate
}

// postTool reviews a result after the call ran.
func (d *decision) postTool(ctx context.Context) (Verdict, error) {
	call, t, err := d.call()
	if err != nil {
		return Verdict{}, err
	}
	res := tool.Result{Content: d.e.Output}
	if d.e.Failed {
		res = tool.Result{Error: &tool.Error{Type: tool.ErrUnknown, Message: d.e.Output}}
	}
	d.s.Events.Emit(event.Tool{CallID: call.ID, Function: call.Function, Arguments: call.Arguments, Result: d.e.Output, Failed: d.e.Failed})
	if d.c.Review == nil {
		return Verdict{Decision: Pass}, nil
	}
	req := &review.Request{Call: call, Result: res, Output: d.e.Output, Order: tool.OrderOf(t), Agent: "main"}
	out, err := d.c.Review.Decide(d.withPerson(ctx), req, func(r review.Record) {
		d.s.Events.Emit(event.Review{CallID: call.ID, Function: call.Function, Reviewer: r.Reviewer, Decision: string(r.Review.Decision), Explanation: r.Review.Explanation, Chain: r.Chain})
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("review policy: %w", err)
	}
	switch {
	case out.Decision == review.Terminate:
		return Verdict{Decision: Block, Reason: out.Explanation}, nil
	case d.wasAsked():
		return Verdict{Decision: Block, Withheld: true, Reason: "a person must review this result, and none is reachable: give " + d.h.commandName() + " --server (the panel) or --db"}, nil
	}
	return Verdict{Decision: Pass}, nil
}

// recordApproval records each approver's answer as an approval event.
func (d *decision) recordApproval(call tool.Call, breq *boundary.Request) func(approval.Record) {
	return func(r approval.Record) {
		d.s.Events.Emit(event.Approval{CallID: call.ID, Call: call, Approver: r.Approver, Decision: string(r.Approval.Decision),
			Modified: r.Approval.Modified, Explanation: r.Approval.Explanation, Chain: r.Chain, Boundary: breq})
	}
}

func (d *decision) setAsked() {
	d.mu.Lock()
	d.asked = true
	d.mu.Unlock()
}

func (d *decision) wasAsked() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asked
}

// nobody is the person of a hook with no queue: the person is at the
// host, not here. It escalates, and notes that a person was to decide,
// so that the host's ask decides where it has one and a denial that says
// so is answered where it has none.
type nobody struct{ d *decision }

// Approve implements approval.Approver.
func (n nobody) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	n.d.setAsked()
	return approval.Approval{Decision: approval.Escalate, Explanation: "a person decides this at " + n.d.h.Name}, nil
}

// surface is nobody as the human.Surface of the "human" approvers and
// reviewers of policies.
type surface struct{ d *decision }

// Approve implements human.Surface.
func (s surface) Approve(ctx context.Context, req *approval.Request, _ []approval.Decision, _ time.Duration, _ human.Here) (approval.Approval, error) {
	return nobody(s).Approve(ctx, req)
}

// Review implements human.Surface.
func (s surface) Review(context.Context, *review.Request, []review.Decision, time.Duration, human.Here) (review.Review, error) {
	s.d.setAsked()
	return review.Review{Decision: review.Escalate, Explanation: "a person reviews this at " + s.d.h.Name}, nil
}

// letGo runs wait with the session's lock let go, so that the session's
// other hooks decide and record meanwhile (Codex runs hooks concurrently),
// and takes it back after: the session then holds what they recorded, and
// the gate their denials, overrides used and the breaker's count of the
// turn, before this hook records its outcome. Waits may nest or overlap;
// the lock is let go once.
func (d *decision) letGo(wait func() error) error {
	d.mu.Lock()
	d.away++
	first := d.away == 1
	d.mu.Unlock()
	var errs []error
	if first {
		errs = append(errs, d.s.Unlock())
	}
	errs = append(errs, wait())
	d.mu.Lock()
	d.away--
	last := d.away == 0
	d.mu.Unlock()
	if last {
		if err := d.s.Lock(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		if d.gate != nil {
			d.s.Restore(d.gate)
		}
	}
	return errors.Join(errs...)
}

// waiting is a queue whose waits let the session's lock go (letGo).
type waiting struct {
	queue.Queue
	d *decision
}

// Wait implements queue.Queue.
func (w waiting) Wait(ctx context.Context, id string) (r request.Request, err error) {
	err = w.d.letGo(func() error {
		r, err = w.Queue.Wait(ctx, id)
		return err
	})
	return r, err
}

// interrupted is the answer to a call of a turn warden interrupted.
const interrupted = "warden interrupted this turn (a policy terminated it, or the circuit breaker tripped: auto-review kept denying its requests); ask the person"

// terminate ends the turn: the host's terminate, and, since some hosts go
// on all the same (Codex has no stop; Claude Code 2.1.197 in -p mode goes
// on after a PreToolUse's continue: false), a record that interrupts the
// turn, so that every further call of it is answered the same until the
// next prompt.
func (d *decision) terminate(reason string) Verdict {
	d.s.Events.Emit(event.Limit{Type: event.LimitInterrupt, Message: "terminated: " + reason})
	return Verdict{Decision: Stop, Reason: reason}
}

// queueSurface is the queue as the surface of the "human" approvers and
// reviewers of a hook's policies: each request waits on the queue for at
// most the approver's own timeout, else the hook's (Config.Timeout), so
// that an escalation always ends, in a denial that says it timed out.
// A hook has no console to ask as well.
type queueSurface struct {
	q       queue.Queue
	run     string
	timeout time.Duration
}

func (s queueSurface) within(timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	return s.timeout
}

// Approve implements human.Surface.
func (s queueSurface) Approve(ctx context.Context, req *approval.Request, choices []approval.Decision, timeout time.Duration, _ human.Here) (approval.Approval, error) {
	return queue.Approver(s.q, s.run, choices, s.within(timeout)).Approve(ctx, req)
}

// Review implements human.Surface.
func (s queueSurface) Review(ctx context.Context, req *review.Request, choices []review.Decision, timeout time.Duration, _ human.Here) (review.Review, error) {
	return queue.Reviewer(s.q, s.run, choices, s.within(timeout)).Review(ctx, req)
}
