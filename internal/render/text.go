package render

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"

	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// How much of each untrusted text a rendered line keeps, in runes.
const (
	textTask        = 60
	textMessage     = 72
	textCall        = 72
	textToolCall    = 48
	textExplanation = 72
	textName        = 32
	maxCallsShown   = 5
)

// indent begins the extra lines of an event, under its text.
const indent = "          ↳ "

// TextWriter renders events as short, readable lines for people: a run's
// start and the policies in force, each model generation with the calls it
// requested, each approval, tool result and review with who decided what,
// notes, limits, errors and the run's end. Lines of a sub-agent begin with
// its name. Text from models and tools is escaped, so it cannot move the
// cursor, clear the screen or break a line. TextWriter implements Sink and is
// safe for concurrent use; each event is written with one write call.
type TextWriter struct {
	mu     sync.Mutex
	w      io.Writer
	orders Orders
}

// NewTextWriter returns a TextWriter on w.
func NewTextWriter(w io.Writer) *TextWriter { return &TextWriter{w: w} }

// SetOrders sets the orders calls are rendered in, by tool name: each
// call's arguments in its tool's schema order, then sorted, exactly as
// policy patterns see them (SPEC P2), so a pattern copied from a line
// matches the call. Until set, and for tools o does not list, arguments
// are sorted by name.
func (t *TextWriter) SetOrders(o Orders) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.orders = o
}

// Write renders e on the writer.
func (t *TextWriter) Write(e event.Event) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := FormatIn(e, t.orders)
	if _, err := io.WriteString(t.w, s); err != nil {
		return fmt.Errorf("text transcript: %w", err)
	}
	return nil
}

// Format renders e as a TextWriter without orders does: one or a few
// lines, each ending in a newline, calls with their arguments sorted by
// name.
func Format(e event.Event) string { return FormatIn(e, nil) }

// FormatIn renders e as a TextWriter with orders o does: each call as
// policy patterns see it, its arguments in its tool's order (SPEC P2).
func FormatIn(e event.Event, o Orders) string {
	callText := func(c tool.Call) string { return callText(c, o) }
	var b strings.Builder
	prefix := ""
	if e.Agent != "" && e.Agent != "main" {
		prefix = clean(e.Agent, textName) + " › "
	}
	line := func(label, format string, args ...any) {
		b.WriteString(prefix)
		if label != "" {
			fmt.Fprintf(&b, "%-9s ", label)
		}
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	sub := func(format string, args ...any) {
		b.WriteString(prefix)
		b.WriteString(indent)
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}

	switch d := e.Data.(type) {
	case event.RunStart:
		line("", "▶ run %s  task \"%s\"  model %s", clean(e.RunID, 48), clean(d.Task, textTask), clean(d.Model, textName))
		line("", "  approval: %s  review: %s", policies(d.Approval), policies(d.Review))
		for _, a := range d.Agents {
			if a.Parent == "" && a.ApprovalFrom == eventkind.FromRun && a.ReviewFrom == eventkind.FromRun {
				continue // the run's policies, shown above
			}
			line("", "  agent %s: approval: %s (%s)  review: %s (%s)", clean(a.Agent, textName),
				policies(a.Approval), clean(a.ApprovalFrom, textName), policies(a.Review), clean(a.ReviewFrom, textName))
		}
	case event.Model:
		text := ""
		if c := strings.TrimSpace(d.Output.Content); c != "" {
			text = "  \"" + clean(c, textMessage) + "\""
		}
		line("model", "%d→%d tokens%s", d.InputTokens, d.OutputTokens, text)
		for i, c := range d.Output.ToolCalls {
			if i == maxCallsShown {
				sub("… and %d more calls", len(d.Output.ToolCalls)-maxCallsShown)
				break
			}
			sub("%s", callText(c))
		}
	case event.Approval:
		line("approval", "%s  %s → %s%s", callText(d.Call), decider(d.Approver, d.Chain), clean(d.Decision, textName), explained(d.Explanation))
		if d.Modified != nil {
			sub("modified: %s", callText(*d.Modified))
		}
	case event.Tool:
		var status string
		switch {
		case d.Error != nil:
			status = fmt.Sprintf("error %s: %s", clean(string(d.Error.Type), textName), clean(d.Error.Message, textMessage))
		case d.Failed:
			status = "failed"
		default:
			status = fmt.Sprintf("ok %d bytes", len(d.Result))
		}
		if d.Truncated != nil {
			status += fmt.Sprintf("  truncated %d→%d", d.Truncated[0], d.Truncated[1])
		}
		call := tool.Call{Function: d.Function, Arguments: d.Arguments}
		if !json.Valid(d.Arguments) {
			call.Arguments = json.RawMessage("{}")
		}
		line("tool", "%s  %s", clean(call.TextIn(o.Of(call.Function)), textToolCall), status)
		if d.Executed != nil {
			sub("ran modified: %s", callText(*d.Executed))
		}
	case event.Review:
		line("review", "%s  %s → %s%s", clean(d.Function, textName), decider(d.Reviewer, d.Chain), clean(d.Decision, textName), explained(d.Explanation))
	case event.Info:
		line("info", "%s", clean(d.Message, 2*textMessage))
	case event.Limit:
		line("limit", "%s: %s", clean(d.Type, textName), clean(d.Message, 2*textMessage))
	case event.Error:
		line("error", "%s", clean(d.Message, 2*textMessage))
	case event.RunEnd:
		limit := ""
		if d.Limit != nil && *d.Limit != "" {
			limit = " (" + clean(*d.Limit, textName) + " limit)"
		}
		line("", "■ run_end %s%s", clean(d.Status, textName), limit)
	case event.AutoReview:
		risk := ""
		if d.RiskLevel != "" {
			risk = "  risk " + clean(string(d.RiskLevel), textName)
		}
		line("review*", "%s %s by %s%s  %dms%s", clean(d.CallID, textName), clean(string(d.Status), textName), clean(d.Source, textName), risk, d.LatencyMS, explained(d.Rationale))
	case event.AutoReviewTool:
		status := fmt.Sprintf("%d bytes", d.ResultBytes)
		if d.Error != nil {
			status = fmt.Sprintf("error %s: %s", clean(string(d.Error.Type), textName), clean(d.Error.Message, textMessage))
		}
		line("review*", "%s tool %s %s  %s", clean(d.CallID, textName), clean(d.Function, textName), clean(string(d.Arguments), textMessage), status)
	case event.Warning:
		line("warning", "%s", clean(d.Message, 2*textMessage))
	case event.Withheld:
		line("withheld", "%s %s: the model receives %s", clean(d.CallID, textName), clean(d.Reason, textName), clean(d.Result, textMessage))
	case event.Handoff:
		line("handoff", "from %s  approval: %s (%s)  review: %s (%s)", clean(d.From, textName),
			policies(d.Approval), clean(d.ApprovalFrom, textName), policies(d.Review), clean(d.ReviewFrom, textName))
	case event.TurnStart:
		line("turn", "\"%s\"", clean(d.Input, textMessage))
		for _, a := range d.Agents {
			sub("agent %s: approval: %s (%s)  review: %s (%s)", clean(a.Agent, textName),
				policies(a.Approval), clean(a.ApprovalFrom, textName), policies(a.Review), clean(a.ReviewFrom, textName))
		}
	case event.Override:
		by := ""
		if d.By != "" {
			by = " by " + clean(d.By, textName)
		}
		line("override", "one retry of denial %s approved%s%s", clean(d.DenialID, textName), by, explained(d.Note))
	case event.OverrideUsed:
		line("override", "the retry approved on denial %s was taken", clean(d.DenialID, textName))
	case event.Unknown:
		line("?", "%s event", clean(d.Type, textName))
	case nil:
		line("?", "empty event")
	default:
		line("?", "%s event", clean(e.Kind(), textName))
	}
	return b.String()
}

// policies summarises the entries of a policy: each approver or reviewer
// with the tools it applies to.
func policies(entries []policy.Entry) string {
	if len(entries) == 0 {
		return "none"
	}
	parts := make([]string, len(entries))
	for i, e := range entries {
		var tools string
		if e.Structured() {
			tools = e.Tool
			if tools == "" {
				tools = "*"
			}
			keys := make([]string, 0, len(e.Args))
			for k := range e.Args {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				tools += " " + k + "=" + e.Args[k]
			}
			keys = keys[:0]
			for k := range e.Commands {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				tools += " " + k + " runs only [" + strings.Join(e.Commands[k], ", ") + "]"
			}
		} else {
			tools = strings.Join(e.Tools, ",")
			if tools == "" {
				tools = "*"
			}
		}
		parts[i] = clean(e.Name, textName) + "(" + clean(tools, 40) + ")"
		if e.Chain != "" {
			parts[i] += "@" + clean(e.Chain, textName)
		}
	}
	return strings.Join(parts, ", ")
}

// callText renders a call on one line as policy patterns see it, its
// arguments in its tool's order, cut short.
func callText(c tool.Call, o Orders) string {
	return clean(c.TextIn(o.Of(c.Function)), textCall)
}

// decider names an approver or reviewer and its chain.
func decider(name, chain string) string {
	if chain == "" {
		return clean(name, textName)
	}
	return clean(name, textName) + "@" + clean(chain, textName)
}

// explained renders an explanation in parentheses, or nothing.
func explained(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return " (" + clean(s, textExplanation) + ")"
}

// clean makes untrusted text safe for one line of a terminal and cuts it to
// at most n runes, ending it with "…" when cut. Newlines and tabs become \n
// and \t; other control characters, invalid UTF-8 and invisible format
// characters (bidirectional overrides, zero-width characters, line
// separators) are rendered visibly as \xNN or \uNNNN, so escape sequences
// lose their ESC.
func clean(s string, n int) string {
	var b strings.Builder
	count := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, s[i])
		case r == '\n':
			piece = `\n`
		case r == '\t':
			piece = `\t`
		case r < 0x20 || r == 0x7f:
			piece = fmt.Sprintf(`\x%02x`, r)
		case r >= 0x80 && r < 0xa0, unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			piece = fmt.Sprintf(`\u%04x`, r)
		default:
			piece = s[i : i+size]
		}
		pr := utf8.RuneCountInString(piece)
		if count+pr > n {
			b.WriteString("…")
			return b.String()
		}
		b.WriteString(piece)
		count += pr
		i += size
	}
	return b.String()
}

// Stats counts the events of one or more runs, for a summary at the end of
// a run or of a transcript. Its zero value is ready to use. Stats implements
// Sink; Add and Write are safe for concurrent use, and the fields may be read
// once no more events are added. A Stats must not be copied after first use.
type Stats struct {
	mu sync.Mutex

	// Events counts the events by kind.
	Events map[string]int
	// Runs counts the runs seen: distinct run ids, so that the turns of a
	// run continued in the same process or resumed count as one run.
	Runs int
	// Turns counts turn_start events: the person's requests.
	Turns int
	// InputTokens and OutputTokens add up the model events' tokens.
	InputTokens, OutputTokens int
	// Approvals and Reviews count approval and review events by decision,
	// escalations included.
	Approvals map[string]int
	Reviews   map[string]int
	// ToolsFailed counts tool events that failed; ToolsTruncated those
	// whose result was truncated.
	ToolsFailed, ToolsTruncated int
	// Limits counts limit events by type.
	Limits map[string]int
	// Statuses counts the ended runs by the status of each one's last
	// run_end (a run ends once per turn); Status and Limit are the last
	// run_end's status and limit type.
	Statuses map[string]int
	Status   string
	Limit    string

	// ended is the last run_end status of each run seen, "" until it ends.
	ended map[string]string
}

// Add counts e.
func (s *Stats) Add(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inc := func(m *map[string]int, k string) {
		if *m == nil {
			*m = map[string]int{}
		}
		(*m)[k]++
	}
	if s.Events == nil {
		s.Events = map[string]int{}
	}
	s.Events[e.Kind()]++
	if s.ended == nil {
		s.ended = map[string]string{}
	}
	if _, seen := s.ended[e.RunID]; !seen {
		s.ended[e.RunID] = ""
		s.Runs++
	}
	switch d := e.Data.(type) {
	case event.TurnStart:
		s.Turns++
	case event.Model:
		s.InputTokens += d.InputTokens
		s.OutputTokens += d.OutputTokens
	case event.Approval:
		inc(&s.Approvals, d.Decision)
	case event.Review:
		inc(&s.Reviews, d.Decision)
	case event.Tool:
		if d.Failed || d.Error != nil {
			s.ToolsFailed++
		}
		if d.Truncated != nil {
			s.ToolsTruncated++
		}
	case event.Limit:
		inc(&s.Limits, d.Type)
	case event.RunEnd:
		if prev := s.ended[e.RunID]; prev != "" {
			if s.Statuses[prev]--; s.Statuses[prev] == 0 {
				delete(s.Statuses, prev)
			}
		}
		s.ended[e.RunID] = d.Status
		inc(&s.Statuses, d.Status)
		s.Status, s.Limit = d.Status, ""
		if d.Limit != nil {
			s.Limit = *d.Limit
		}
	}
}

// Write counts e; it makes Stats a Sink.
func (s *Stats) Write(e event.Event) error {
	s.Add(e)
	return nil
}

// String summarises the counts in one paragraph, each counted once: how
// the run ended (or how many runs ended how), the turns, the model calls
// and tokens, the tool calls and how many failed or were truncated, the
// approvals and reviews by decision, and the limits and errors.
func (s *Stats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	ended := 0
	for _, n := range s.Statuses {
		ended += n
	}
	switch {
	case s.Runs > 1 || ended > 1:
		p := plural(max(s.Runs, ended), "run")
		if ended > 0 {
			p += ": " + counts(s.Statuses, nil)
		}
		if ended < s.Runs {
			p += fmt.Sprintf(" (%d not ended)", s.Runs-ended)
		}
		parts = append(parts, p+".")
	case ended == 1:
		p := "Run " + clean(s.Status, textName)
		if s.Limit != "" {
			p += " (" + clean(s.Limit, textName) + " limit)"
		}
		parts = append(parts, p+".")
	case s.Runs == 1:
		parts = append(parts, "Run not ended.")
	}
	model := fmt.Sprintf("%s, %d→%d tokens.", plural(s.Events[eventkind.Model], "model call"), s.InputTokens, s.OutputTokens)
	if s.Turns > 0 {
		model = plural(s.Turns, "turn") + ", " + model
	}
	parts = append(parts, model)
	tools := plural(s.Events[eventkind.Tool], "tool call")
	var notes []string
	if s.ToolsFailed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", s.ToolsFailed))
	}
	if s.ToolsTruncated > 0 {
		notes = append(notes, fmt.Sprintf("%d truncated", s.ToolsTruncated))
	}
	if len(notes) > 0 {
		tools += " (" + strings.Join(notes, ", ") + ")"
	}
	parts = append(parts, tools+".")
	if len(s.Approvals) > 0 {
		parts = append(parts, "Approvals: "+counts(s.Approvals, decisionOrder)+".")
	}
	if len(s.Reviews) > 0 {
		parts = append(parts, "Reviews: "+counts(s.Reviews, decisionOrder)+".")
	}
	if len(s.Limits) > 0 {
		parts = append(parts, "Limits: "+counts(s.Limits, nil)+".")
	}
	if n := s.Events[eventkind.Error]; n > 0 {
		parts = append(parts, plural(n, "error")+".")
	}
	return strings.Join(parts, " ")
}

// decisionOrder is the order decisions are listed in.
var decisionOrder = []string{"approve", "modify", "continue", "reject", "terminate", "escalate"}

// counts renders a count map as "2 approve, 1 reject": keys in order first,
// then the rest sorted.
func counts(m map[string]int, order []string) string {
	keys := make([]string, 0, len(m))
	seen := map[string]bool{}
	for _, k := range order {
		if m[k] > 0 {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	keys = append(keys, rest...)
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := clean(k, textName)
		if name == "" {
			name = "(none)"
		}
		parts[i] = fmt.Sprintf("%d %s", m[k], name)
	}
	return strings.Join(parts, ", ")
}

// plural renders n things, adding an s unless n is 1.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
