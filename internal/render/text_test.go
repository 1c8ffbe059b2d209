package render

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// sampleRun records a run with a sub-agent, a modification, a rejection, an
// error, a truncation, reviews and an operator limit.
func sampleRun(t *testing.T) []event.Event {
	t.Helper()
	var c eventtest.Sink
	rec := event.NewRecorder("run-1", &c)
	ls := tool.NewCall("call_1", "bash", `{"cmd":"ls"}`)
	lsla := tool.NewCall("call_1", "bash", `{"cmd":"ls -la"}`)
	rm := tool.NewCall("call_2", "bash", `{"cmd":"rm -rf /"}`)
	cat := tool.NewCall("call_3", "bash", `{"cmd":"cat big.log"}`)
	limit := event.LimitOperator

	rec.Emit(event.RunStart{
		Task:  "list files",
		Model: "gpt-test",
		Approval: []policy.Entry{
			{Name: "human", Tools: []string{"bash", "editor"}, Params: map[string]any{"timeout": 30}},
			{Name: "auto", Chain: "safety"},
		},
		Review: []policy.Entry{{Name: "human", Tool: "bash", Args: map[string]string{"cmd": "rm*"}}},
	})
	rec.Emit(event.Model{InputTokens: 12, OutputTokens: 34, Output: chat.Message{
		Role: chat.Assistant, Content: "I'll list the files.", ToolCalls: []tool.Call{ls, rm, cat},
	}})
	rec.Emit(event.Approval{CallID: "call_1", Call: ls, Approver: "human", Decision: "modify", Modified: &lsla, Explanation: "show hidden files too"})
	rec.Emit(event.Approval{CallID: "call_2", Call: rm, Approver: "auto", Chain: "safety", Decision: "reject", Explanation: "never"})
	rec.Emit(event.Approval{CallID: "call_3", Call: cat, Approver: "human", Decision: "escalate"})
	rec.Emit(event.Approval{CallID: "call_3", Call: cat, Approver: "policy", Decision: "approve"})
	rec.Emit(event.Tool{CallID: "call_1", Function: "bash", Arguments: ls.Arguments, Executed: &lsla, Result: "a\nb\nc\n"})
	rec.Emit(event.Tool{CallID: "call_2", Function: "bash", Arguments: rm.Arguments, Error: &tool.Error{Type: tool.ErrApproval, Message: "never"}, Failed: true})
	rec.Emit(event.Tool{CallID: "call_3", Function: "bash", Arguments: cat.Arguments, Result: strings.Repeat("x", 16384), Truncated: &[2]int{40000, 16384}})
	rec.Emit(event.Review{CallID: "call_1", Function: "bash", Reviewer: "human", Decision: "continue", Explanation: "approved by a person at the console"})
	helper := rec.For("helper", "call_9")
	helper.Emit(event.Model{InputTokens: 10, OutputTokens: 10, Output: chat.Message{Role: chat.Assistant, Content: "done"}})
	helper.Emit(event.Info{Message: "sub-agent finished"})
	rec.Emit(event.Review{CallID: "call_3", Function: "bash", Reviewer: "human", Decision: "terminate", Explanation: "too much output"})
	rec.Emit(event.Limit{Type: event.LimitOperator, Message: "terminated by reviewer human"})
	rec.Emit(event.Error{Message: "transcript disk full"})
	rec.Emit(event.RunEnd{Status: event.StatusLimited, Limit: &limit})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	return c.All()
}

func render(t *testing.T, events []event.Event) string {
	t.Helper()
	var b bytes.Buffer
	w := NewTextWriter(&b)
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestTextWriterRendersRun(t *testing.T) {
	out := render(t, sampleRun(t))
	for _, want := range []string{
		"▶ run run-1  task \"list files\"  model gpt-test\n",
		"  approval: human(bash,editor), auto(*)@safety  review: human(bash cmd=rm*)\n",
		"model     12→34 tokens  \"I'll list the files.\"\n",
		indent + "bash(cmd='ls')\n",
		indent + "bash(cmd='rm -rf /')\n",
		"approval  bash(cmd='ls')  human → modify (show hidden files too)\n",
		indent + "modified: bash(cmd='ls -la')\n",
		"approval  bash(cmd='rm -rf /')  auto@safety → reject (never)\n",
		"approval  bash(cmd='cat big.log')  human → escalate\n",
		"approval  bash(cmd='cat big.log')  policy → approve\n",
		"tool      bash(cmd='ls')  ok 6 bytes\n",
		indent + "ran modified: bash(cmd='ls -la')\n",
		"tool      bash(cmd='rm -rf /')  error approval: never\n",
		"tool      bash(cmd='cat big.log')  ok 16384 bytes  truncated 40000→16384\n",
		"review    bash  human → continue (approved by a person at the console)\n",
		"helper › model     10→10 tokens  \"done\"\n",
		"helper › info      sub-agent finished\n",
		"review    bash  human → terminate (too much output)\n",
		"limit     operator: terminated by reviewer human\n",
		"error     transcript disk full\n",
		"■ run_end limited (operator limit)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
	// Only sub-agent lines carry an agent name.
	if n := strings.Count(out, "›"); n != 2 {
		t.Errorf("%d lines name an agent, want 2:\n%s", n, out)
	}
}

func TestTextWriterNoPolicy(t *testing.T) {
	out := Format(event.Event{RunID: "r", Agent: "main", Data: event.RunStart{Task: "t", Model: "m"}})
	if !strings.Contains(out, "approval: none  review: none") {
		t.Errorf("run without policies: %q", out)
	}
	out = Format(event.Event{Agent: "main", Data: event.RunEnd{Status: event.StatusCompleted}})
	if out != "■ run_end completed\n" {
		t.Errorf("run_end: %q", out)
	}
}

func TestTextWriterRoundTrip(t *testing.T) {
	events := sampleRun(t)
	var jsonl bytes.Buffer
	jw := event.NewWriter(&jsonl)
	for _, e := range events {
		if err := jw.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	jsonl.WriteString(`{"event":"future_kind","id":"x","time":"2025-01-01T00:00:00Z","run_id":"run-1","agent":"main","extra":1}` + "\n")

	var b bytes.Buffer
	tw := NewTextWriter(&b)
	var stats Stats
	n := 0
	if err := event.Read(&jsonl, func(e event.Event) error {
		n++
		stats.Add(e)
		return tw.Write(e)
	}); err != nil {
		t.Fatal(err)
	}
	if n != len(events)+1 {
		t.Fatalf("read %d events, wrote %d", n, len(events)+1)
	}
	want := render(t, events) + "?         future_kind event\n"
	if got := b.String(); got != want {
		t.Errorf("rendering after a round trip differs:\n%s\nwant:\n%s", got, want)
	}
	if stats.Events[eventkind.Approval] != 4 || stats.Status != event.StatusLimited {
		t.Errorf("stats after a round trip: %+v", stats.Events)
	}
}

func TestTextWriterEscapes(t *testing.T) {
	hostile := "\x1b[2J\x1b[Hcleared\rover\nnext line\t\u202etxt.exe\u200b\u009b31m\xff"
	call := tool.NewCall("c", "bash", `{"cmd":"echo \u001b[31mred\nApprove? [a/r/t]"}`)
	events := []event.Event{
		{RunID: "r\x1b]0;title\x07", Agent: "main", Data: event.RunStart{Task: hostile, Model: "m\x1b"}},
		{Agent: "main", Data: event.Model{Output: chat.Message{Content: hostile, ToolCalls: []tool.Call{call}}}},
		{Agent: "evil\x1b[2K\n", Data: event.Approval{Call: call, Approver: "human", Decision: "reject", Explanation: hostile}},
		{Agent: "main", Data: event.Tool{Function: "bash", Error: &tool.Error{Type: "unknown", Message: hostile}}},
		{Agent: "main", Data: event.Review{Function: "bash", Reviewer: "r", Decision: "continue", Explanation: hostile}},
		{Agent: "main", Data: event.Info{Message: hostile}},
		{Agent: "main", Data: event.Limit{Type: "operator", Message: hostile}},
		{Agent: "main", Data: event.Error{Message: hostile}},
	}
	out := render(t, events)
	for i := 0; i < len(out); i++ {
		if c := out[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			t.Fatalf("raw control byte %#x at %d:\n%q", c, i, out)
		}
	}
	for _, bad := range []string{"\u202e", "\u200b", "\u009b", "\xff"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendering holds %q", bad)
		}
	}
	for _, want := range []string{`\x1b[2J\x1b[Hcleared\x0dover\nnext line\t\u202etxt.exe\u200b\u009b31m\xff`, `echo \x1b[31mred\nApprove? [a/r/t]`, `evil\x1b[2K\n › `} {
		if !strings.Contains(out, want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
	// Newlines in the text never start a line: RunStart and Model take two
	// lines each, the rest one.
	if n := strings.Count(out, "\n"); n != 2+2+6 {
		t.Errorf("%d lines, want 10:\n%s", n, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Approve?") || strings.HasPrefix(line, "next line") {
			t.Errorf("untrusted text starts a line: %q", line)
		}
	}
}

func TestTextWriterCutsLongText(t *testing.T) {
	long := strings.Repeat("é", 10000)
	call := tool.NewCall("c", "bash", fmt.Sprintf(`{"cmd":%q}`, long))
	out := render(t, []event.Event{
		{Agent: "main", Data: event.Model{Output: chat.Message{Content: long, ToolCalls: []tool.Call{call}}}},
		{Agent: "main", Data: event.Info{Message: long}},
		{Agent: "main", Data: event.Approval{Call: call, Approver: "a", Decision: "approve", Explanation: long}},
	})
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 220 {
			t.Errorf("line of %d runes: %.80s…", n, line)
		}
		if !strings.HasSuffix(line, "…") && !strings.HasSuffix(line, "…\"") && !strings.HasSuffix(line, "…)") {
			t.Errorf("long text not marked as cut: %.40s…%s", line, line[max(0, len(line)-20):])
		}
	}
	if got := clean("abcdef", 3); got != "abc…" {
		t.Errorf("clean cut = %q", got)
	}
	if got := clean("abc", 3); got != "abc" {
		t.Errorf("clean of short text = %q", got)
	}
}

func TestTextWriterManyCalls(t *testing.T) {
	var calls []tool.Call
	for i := range 8 {
		calls = append(calls, tool.NewCall(fmt.Sprint(i), "bash", fmt.Sprintf(`{"cmd":"echo %d"}`, i)))
	}
	out := Format(event.Event{Agent: "main", Data: event.Model{Output: chat.Message{ToolCalls: calls}}})
	if !strings.Contains(out, indent+"bash(cmd='echo 4')\n"+indent+"… and 3 more calls\n") || strings.Contains(out, "echo 5") {
		t.Errorf("many calls:\n%s", out)
	}
}

func TestTextWriterConcurrent(t *testing.T) {
	var b bytes.Buffer
	w := NewTextWriter(&b)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			for j := range 50 {
				_ = w.Write(event.Event{Agent: "main", Data: event.Info{Message: fmt.Sprintf("note %d-%d", i, j)}})
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d lines, want 1000", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "info      note ") {
			t.Fatalf("interleaved line %q", l)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestTextWriterReportsWriteErrors(t *testing.T) {
	err := NewTextWriter(failWriter{}).Write(event.Event{Data: event.Info{Message: "x"}})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error %v", err)
	}
}

func TestStats(t *testing.T) {
	var s Stats
	rec := event.NewRecorder("run-1", &s)
	for _, e := range sampleRun(t) {
		rec.For(e.Agent, e.Span).Emit(e.Data)
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	if s.Runs != 1 || s.Events[eventkind.Model] != 2 || s.Events[eventkind.Tool] != 3 || s.InputTokens != 22 || s.OutputTokens != 44 {
		t.Errorf("counts: %+v", s.Events)
	}
	if s.Approvals["modify"] != 1 || s.Approvals["reject"] != 1 || s.Approvals["escalate"] != 1 || s.Approvals["approve"] != 1 {
		t.Errorf("approvals: %v", s.Approvals)
	}
	if s.Reviews["continue"] != 1 || s.Reviews["terminate"] != 1 || s.ToolsFailed != 1 || s.ToolsTruncated != 1 {
		t.Errorf("reviews %v, failed %d, truncated %d", s.Reviews, s.ToolsFailed, s.ToolsTruncated)
	}
	want := "Run limited (operator limit). 2 model calls, 22→44 tokens. 3 tool calls (1 failed, 1 truncated). " +
		"Approvals: 1 approve, 1 modify, 1 reject, 1 escalate. Reviews: 1 continue, 1 terminate. " +
		"Limits: 1 operator. 1 error."
	if got := s.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

func TestStatsSeveralRuns(t *testing.T) {
	var s Stats
	for i, status := range []string{event.StatusCompleted, event.StatusError, event.StatusCompleted} {
		s.Add(event.Event{RunID: fmt.Sprint(i), Data: event.RunStart{}})
		s.Add(event.Event{RunID: fmt.Sprint(i), Data: event.Model{InputTokens: 1, OutputTokens: 1}})
		s.Add(event.Event{RunID: fmt.Sprint(i), Data: event.RunEnd{Status: status}})
	}
	s.Add(event.Event{RunID: "4", Data: event.RunStart{}})
	want := "4 runs: 2 completed, 1 error (1 not ended). 3 model calls, 3→3 tokens. 0 tool calls."
	if got := s.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}

	var empty Stats
	if got := empty.String(); got != "0 model calls, 0→0 tokens. 0 tool calls." {
		t.Errorf("empty summary: %q", got)
	}
	var one Stats
	one.Add(event.Event{Data: event.RunStart{}})
	one.Add(event.Event{Data: event.Tool{Function: "bash", Result: "ok"}})
	if got := one.String(); got != "Run not ended. 0 model calls, 0→0 tokens. 1 tool call." {
		t.Errorf("unended summary: %q", got)
	}
}

func TestStatsIsASink(t *testing.T) {
	var s Stats
	var sink event.Sink = &s
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				_ = sink.Write(event.Event{Data: event.Approval{Decision: "approve"}})
			}
		})
	}
	wg.Wait()
	if s.Approvals["approve"] != 1000 {
		t.Errorf("approvals %v", s.Approvals)
	}
}

// The withheld and handoff events, and the agents of run_start, are
// rendered, escaped (SPEC R2; the JSON round trip is tested in event).
func TestR2_WithheldAndHandoffEventsRendered(t *testing.T) {
	te := &tool.Error{Type: tool.ErrLimit, Message: "the run was stopped at this call"}
	entries := []policy.Entry{{Name: "auto", Tools: []string{"*"}}}
	rs := event.Event{RunID: "run-1", Agent: "main", Data: event.RunStart{Task: "t", Agents: []event.AgentPolicies{{Agent: "main", ApprovalFrom: eventkind.FromRun, ReviewFrom: eventkind.FromRun},
		{Agent: "helper", Parent: "main", Approval: []policy.Entry{}, ApprovalFrom: "agent:helper", ReviewFrom: eventkind.FromRun}}, PinPolicy: true}}
	h := event.Event{RunID: "run-1", Agent: "helper", Span: "h1", Data: event.Handoff{CallID: "h1", From: "main", Approval: entries, ApprovalFrom: eventkind.FromRun, ReviewFrom: eventkind.FromRun, PinPolicy: true}}
	w := event.Event{RunID: "run-1", Agent: "main", Data: event.Withheld{CallID: "c1", Function: "bash", Reason: eventkind.WithheldTerminated, Result: te.Error(), Error: te}}
	text := Format(rs) + Format(h) + Format(w)
	for _, want := range []string{"agent helper: approval: none (agent:helper)", "handoff", "withheld", "review_terminated"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	esc := Format(event.Event{Data: event.Withheld{CallID: "c\x1b[2J", Reason: "x", Result: "\x1b]0;pwn\x07"}})
	if strings.ContainsRune(esc, 0x1b) {
		t.Errorf("unescaped: %q", esc)
	}
}

// One run's turns — continued in the same process or resumed — are one
// run: its status is the last turn's, its turns are counted (issue 10).
func TestStatsTurnsOfOneRun(t *testing.T) {
	var s Stats
	s.Add(event.Event{RunID: "r", Data: event.RunStart{}})
	for _, status := range []string{event.StatusCompleted, event.StatusError} {
		s.Add(event.Event{RunID: "r", Data: event.TurnStart{Input: "x"}})
		s.Add(event.Event{RunID: "r", Data: event.Model{InputTokens: 2, OutputTokens: 1}})
		s.Add(event.Event{RunID: "r", Data: event.RunEnd{Status: status}})
	}
	want := "Run error. 2 turns, 2 model calls, 4→2 tokens. 0 tool calls."
	if got := s.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if s.Runs != 1 || s.Turns != 2 || s.Statuses[event.StatusError] != 1 || s.Statuses[event.StatusCompleted] != 0 {
		t.Errorf("runs %d, turns %d, statuses %v", s.Runs, s.Turns, s.Statuses)
	}
}
