package agent

import (
	"context"
	"fmt"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// MainAgent is the name of the root agent in events.
const MainAgent = "main"

// Agent is a ReAct agent: a system prompt, tools, sub-agents it can hand off
// to, and optionally its own policies (SPEC L5).
type Agent struct {
	// Name identifies the agent in events and names its hand-off tool
	// (transfer_to_<Name>). Empty means "main".
	Name string
	// Description tells a parent's model what the agent is for.
	Description string
	// System is the system prompt.
	System string
	// Model overrides the run's model for this agent.
	Model model.Model
	// Tools are the tools the agent may call.
	Tools []tool.Tool
	// Handoffs are sub-agents the agent may hand off to.
	Handoffs []*Agent
	// Approval and Review, when set, replace the policies in force for the
	// agent's duration (SPEC P4); nil inherits them (SPEC P5). A policy with
	// no entries means none.
	Approval *approval.Policy
	Review   *review.Policy
}

func (a *Agent) name() string {
	if a.Name == "" {
		return MainAgent
	}
	return a.Name
}

// Policies, when set, replace the approval and review policies in force.
// A nil field inherits the one in force.
type Policies struct {
	Approval *approval.Policy
	Review   *review.Policy
}

// scope is what is in force where tools run: the policies and where they
// come from, the agent and its recorder. It is passed down by value, so
// whatever an agent replaces is restored when it returns (SPEC P4).
type scope struct {
	approval     *approval.Policy
	review       *review.Policy
	approvalFrom string
	reviewFrom   string
	agent        string
	rec          *event.Recorder
}

// with returns s with the policies p sets, which come from level from
// (eventkind.FromCall, or eventkind.FromAgentPrefix and an agent's name). When the
// run pins its policies, a policy the run sets is never replaced.
func (r *Run) with(s scope, p Policies, from string) scope {
	if p.Approval != nil && !(r.PinPolicy && r.Approval != nil) {
		s.approval, s.approvalFrom = p.Approval, from
	}
	if p.Review != nil && !(r.PinPolicy && r.Review != nil) {
		s.review, s.reviewFrom = p.Review, from
	}
	return s
}

// policies describes the policies in force in s for the transcript.
func (s scope) policies(agent, parent string) event.AgentPolicies {
	return event.AgentPolicies{
		Agent: agent, Parent: parent,
		Approval: s.approval.Entries(), Review: s.review.Entries(),
		ApprovalFrom: s.approvalFrom, ReviewFrom: s.reviewFrom,
	}
}

type frameKey struct{}

// frame is stored in a tool's context so hand-offs find the run, the scope
// and the conversation.
type frame struct {
	run     *Run
	scope   scope
	history []chat.Message
	call    tool.Call
}

// current returns the scope of ctx, or the run's top-level scope.
func (r *Run) current(ctx context.Context) scope {
	if f, ok := ctx.Value(frameKey{}).(*frame); ok && f.run == r {
		return f.scope
	}
	return scope{approval: r.Approval, review: r.Review, approvalFrom: eventkind.FromRun, reviewFrom: eventkind.FromRun, agent: MainAgent, rec: r.Events}
}

// React runs agent a on the conversation msgs: model, then tools, then
// model, until the model answers without calling a tool, a limit is hit, or
// the run is terminated. It returns the conversation, including what the
// agent added. A *LimitError ends the loop with a limit; any other error is
// a run error.
func (r *Run) React(ctx context.Context, a *Agent, msgs []chat.Message) ([]chat.Message, error) {
	outer := r.current(ctx)
	sc := r.with(outer, Policies{Approval: a.Approval, Review: a.Review}, eventkind.FromAgentPrefix+a.name())
	span := ""
	f, handedOff := ctx.Value(frameKey{}).(*frame)
	if handedOff && f.run == r {
		span = f.call.ID
	}
	sc.agent = a.name()
	sc.rec = r.Events.For(a.name(), span)
	if handedOff && f.run == r {
		// A hand-off: the record says which policies the sub-agent runs
		// under, its own or inherited (SPEC P4, P5).
		ap := sc.policies(a.name(), outer.agent)
		sc.rec.Emit(event.Handoff{CallID: f.call.ID, From: outer.agent,
			Approval: ap.Approval, Review: ap.Review, ApprovalFrom: ap.ApprovalFrom, ReviewFrom: ap.ReviewFrom,
			PinPolicy: r.PinPolicy})
	}
	return r.react(ctx, a, sc, msgs)
}

func (r *Run) react(ctx context.Context, a *Agent, sc scope, msgs []chat.Message) ([]chat.Message, error) {
	m := a.Model
	if m == nil {
		m = r.Model
	}
	if m == nil {
		return msgs, fmt.Errorf("agent %s: no model", a.name())
	}
	if a.System != "" && (len(msgs) == 0 || msgs[0].Role != chat.System) {
		msgs = append([]chat.Message{{Role: chat.System, Content: a.System}}, msgs...)
	}
	tools := a.tools()
	infos := make([]tool.Info, len(tools))
	for i, t := range tools {
		infos[i] = t.Info()
	}
	for {
		if err := ctx.Err(); err != nil {
			return msgs, err
		}
		if err := sc.rec.Err(); err != nil {
			return msgs, err
		}
		if n := r.Limits.Turns; n > 0 && r.turns.Load() >= int64(n) {
			return msgs, &LimitError{Type: event.LimitTurn, Message: fmt.Sprintf("turn limit of %d reached", n)}
		}
		r.turns.Add(1)
		resp, err := m.Generate(ctx, model.Request{Messages: msgs, Tools: infos})
		if err != nil {
			return msgs, fmt.Errorf("agent %s: model: %w", a.name(), err)
		}
		out := r.uniqueCallIDs(resp.Message)
		out.Role = chat.Assistant
		used := r.tokens.Add(int64(resp.Usage.Total()))
		sc.rec.Emit(event.Model{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, Output: out})
		msgs = append(msgs, out)
		if n := r.Limits.Tokens; n > 0 && used > int64(n) {
			return msgs, &LimitError{Type: event.LimitToken, Message: fmt.Sprintf("token limit of %d exceeded (%d used)", n, used)}
		}
		if len(out.ToolCalls) == 0 {
			return msgs, nil
		}
		results, err := r.execute(ctx, sc, msgs, tools)
		msgs = append(msgs, results...)
		if err != nil {
			// Calls that never ran are answered, so that a further turn
			// sends a conversation model APIs accept.
			return CloseCalls(msgs), err
		}
	}
}

// tools returns the agent's tools followed by its hand-off tools.
func (a *Agent) tools() []tool.Tool {
	if len(a.Handoffs) == 0 {
		return a.Tools
	}
	out := make([]tool.Tool, 0, len(a.Tools)+len(a.Handoffs))
	out = append(out, a.Tools...)
	for _, h := range a.Handoffs {
		out = append(out, handoff(h))
	}
	return out
}

// CloseCalls returns msgs where every call of an assistant message that no
// following tool message answers (the run stopped before it ran) is
// answered with a cancelled error, so that the conversation is valid for
// model APIs. The answers follow the tool messages of their assistant
// message.
func CloseCalls(msgs []chat.Message) []chat.Message {
	var out []chat.Message
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != chat.Assistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for i+1 < len(msgs) && msgs[i+1].Role == chat.Tool {
			i++
			answered[msgs[i].ToolCallID] = true
			out = append(out, msgs[i])
		}
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				e := &tool.Error{Type: tool.ErrCancelled, Message: "the run stopped before this call ran"}
				out = append(out, chat.Message{Role: chat.Tool, Content: e.Error(), ToolCallID: c.ID, Function: c.Function, Error: e})
				answered[c.ID] = true
			}
		}
	}
	return out
}
