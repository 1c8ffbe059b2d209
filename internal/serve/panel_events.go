package serve

import (
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/render"
	"github.com/wardenhq/warden/internal/safetext"
)

// eventView is one transcript event as the panel shows it: a title line,
// a few facts, and blocks of text. All text is plain; the templates escape
// it.
type eventView struct {
	ID, Kind, RunID, Agent, Span string
	Time                         time.Time
	Title                        string
	// Tone colours the event: ok, bad, warn or "" (neutral).
	Tone   string
	Facts  []fact
	Blocks []block
}

// fact is a short name and value shown on an event's title line.
type fact struct{ Name, Value string }

// block is one part of an event's body. Kind says how it is shown: "text"
// (prose, wrapped), "code" (monospace), "output" (untrusted tool output in
// its bordered box) or "diff".
type block struct {
	Label string
	// Note follows the label, as it is written (an id, say).
	Note string
	Kind string
	Text string
	Diff []diffLine
	// Mark, when set, finds the text to highlight (a search's words).
	Mark *regexp.Regexp
}

// maxMarks bounds the highlights of one block.
const maxMarks = 200

// highlight returns the block's text, escaped, with the matches of Mark
// between <mark> tags. Every piece of the text goes through
// template.HTMLEscapeString; only the tags are added (SPEC H5).
func highlight(b block) template.HTML {
	var out strings.Builder
	last := 0
	if b.Mark != nil {
		for _, m := range b.Mark.FindAllStringIndex(b.Text, maxMarks) {
			if m[0] == m[1] {
				continue
			}
			out.WriteString(template.HTMLEscapeString(b.Text[last:m[0]]))
			out.WriteString("<mark>")
			out.WriteString(template.HTMLEscapeString(b.Text[m[0]:m[1]]))
			out.WriteString("</mark>")
			last = m[1]
		}
	}
	out.WriteString(template.HTMLEscapeString(b.Text[last:]))
	return template.HTML(out.String())
}

// toneOf returns the tone of a decision or status word.
func toneOf(word string) string {
	switch word {
	case "approve", "continue", "allow", "approved", "completed", "ok":
		return "ok"
	case "running", "pending":
		return "run"
	case "reject", "terminate", "deny", "denied", "error", "failed", "expired":
		return "bad"
	case "escalate", "modify", "timed_out", "aborted", "limited", "limit", "withdrawn":
		return "warn"
	}
	return ""
}

// textBlock returns a block of kind k for s, escaped; ok is false when s is
// empty.
func textBlock(label, k, s string) (block, bool) {
	if strings.TrimSpace(s) == "" {
		return block{}, false
	}
	return block{Label: label, Kind: k, Text: safetext.Escape(s)}, true
}

// viewEvent renders one event for the transcript view, each call in its
// tool's order from orders (SPEC P2).
func viewEvent(e event.Event, orders render.Orders) eventView {
	callText := func(function string, raw json.RawMessage) string {
		return callText(function, raw, orders.Of(function))
	}
	v := eventView{ID: e.ID, Kind: e.Kind(), RunID: e.RunID, Agent: safetext.Escape(e.Agent), Span: e.Span, Time: e.Time}
	add := func(label, k, s string) {
		if b, ok := textBlock(label, k, s); ok {
			v.Blocks = append(v.Blocks, b)
		}
	}
	factIf := func(name, value string) {
		if value != "" {
			v.Facts = append(v.Facts, fact{name, safetext.Escape(value)})
		}
	}
	switch d := e.Data.(type) {
	case event.RunStart:
		v.Title = "run started"
		factIf("model", d.Model)
		factIf("workdir", d.Workdir)
		add("task", "text", d.Task)
	case event.TurnStart:
		v.Title = "turn started"
		add("person", "text", d.Input)
	case event.Model:
		v.Title = "model"
		factIf("tokens", fmt.Sprintf("%d in · %d out", d.InputTokens, d.OutputTokens))
		add("assistant", "text", d.Output.Content)
		for _, c := range d.Output.ToolCalls {
			args := c.Arguments
			if args == nil && c.ArgumentsRaw != "" {
				args = json.RawMessage(c.ArgumentsRaw)
			}
			v.Blocks = append(v.Blocks, block{Label: "calls", Note: safetext.Escape(c.ID), Kind: "code", Text: callText(c.Function, args)})
		}
	case event.Approval:
		v.Title = "approval · " + safetext.Escape(d.Approver) + " → " + d.Decision
		v.Tone = toneOf(d.Decision)
		factIf("call", d.CallID)
		add("call", "code", callText(d.Call.Function, d.Call.Arguments))
		if d.Modified != nil {
			add("modified to", "code", callText(d.Modified.Function, d.Modified.Arguments))
		}
		if d.Boundary != nil {
			b, _ := json.MarshalIndent(d.Boundary, "", "  ")
			add("boundary request", "code", string(b))
		}
		add("explanation", "text", d.Explanation)
	case event.Tool:
		v.Title = "tool · " + safetext.Escape(d.Function)
		factIf("call", d.CallID)
		if d.Failed {
			v.Tone = "bad"
		}
		add("call", "code", callText(d.Function, d.Arguments))
		if d.Executed != nil {
			add("executed as", "code", callText(d.Executed.Function, d.Executed.Arguments))
		}
		if d.Truncated != nil {
			factIf("truncated", fmt.Sprintf("%d bytes to %d", d.Truncated[0], d.Truncated[1]))
		}
		if d.Error != nil {
			add("error ("+string(d.Error.Type)+")", "output", d.Error.Message)
		} else {
			v.Blocks = append(v.Blocks, block{Label: "tool output", Kind: "output", Text: safetext.Escape(d.Result)})
		}
	case event.Review:
		v.Title = "review · " + safetext.Escape(d.Reviewer) + " → " + d.Decision
		v.Tone = toneOf(d.Decision)
		factIf("call", d.CallID)
		factIf("function", d.Function)
		add("explanation", "text", d.Explanation)
	case event.Info:
		v.Title = "info"
		add("", "text", d.Message)
	case event.Warning:
		v.Title = "warning"
		v.Tone = "warn"
		add("", "text", d.Message)
	case event.Limit:
		v.Title = "limit · " + d.Type
		v.Tone = "warn"
		add("", "text", d.Message)
	case event.Error:
		v.Title = "error"
		v.Tone = "bad"
		add("", "text", d.Message)
	case event.RunEnd:
		v.Title = "run ended · " + d.Status
		v.Tone = toneOf(d.Status)
		if d.Limit != nil {
			factIf("limit", *d.Limit)
		}
	case event.AutoReview:
		src := d.Source
		if src == "" {
			src = "reviewer"
		}
		v.Title = "auto-review (" + safetext.Escape(src) + ") → " + string(d.Status)
		v.Tone = toneOf(string(d.Status))
		factIf("call", d.CallID)
		factIf("risk", string(d.RiskLevel))
		factIf("authorization", string(d.UserAuthorization))
		factIf("model", d.Model)
		if d.LatencyMS > 0 {
			factIf("latency", fmt.Sprintf("%d ms", d.LatencyMS))
		}
		factIf("denial", d.DenialID)
		if len(d.Action) > 0 {
			add("action", "code", prettyJSON(d.Action))
		}
		add("rationale", "text", d.Rationale)
	case event.Override:
		v.Title = "override · one retry approved"
		v.Tone = "ok"
		factIf("denial", d.DenialID)
		factIf("by", d.By)
		if len(d.Action) > 0 {
			add("action", "code", prettyJSON(d.Action))
		}
		add("note", "text", d.Note)
	case event.OverrideUsed:
		v.Title = "override used"
		factIf("denial", d.DenialID)
	case event.Withheld:
		v.Title = "result withheld · " + safetext.Escape(d.Function)
		v.Tone = "warn"
		factIf("call", d.CallID)
		factIf("reason", d.Reason)
		add("the model received", "output", d.Result)
	case event.Handoff:
		v.Title = "hand-off · " + safetext.Escape(d.From) + " → " + safetext.Escape(e.Agent)
		factIf("call", d.CallID)
	default:
		v.Title = safetext.Escape(e.Kind())
		if b, err := json.Marshal(e.Data); err == nil {
			add("", "code", prettyJSON(b))
		}
	}
	return v
}
