package render

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// callIn finds the rendered call of function in a line: from the name to
// the closing parenthesis before two spaces or the end of the line, or to
// the "…" of a line cut short (what a person copies is then what precedes
// it, which the implied trailing '*' completes).
func callIn(line, function string) string {
	m := regexp.MustCompile(regexp.QuoteMeta(function) + `\(.*?(?:\)|…)(?:  |$)`).FindString(line)
	m = strings.TrimSuffix(m, "  ")
	return strings.TrimSuffix(m, "…")
}

// Issue 18 item 9 (SPEC P2): a pattern copied from a line of `warden run`
// or `warden transcript show` matches the call that runs — the line shows
// the arguments in the tool's schema order, then sorted, as policy
// patterns see them, never in the model's order nor simply sorted. The
// control shows the old rendering (sorted) would give a pattern that does
// not match.
func TestP2_PatternCopiedFromTheLineMatches(t *testing.T) {
	ed, err := editor.New(editor.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	order := tool.OrderOf(ed)
	orders := OrdersOf(ed)
	for _, args := range []string{
		`{"path":"a.txt","file_text":"x","command":"create"}`,
		`{"file_text":"x","command":"create","path":"a.txt"}`,
		`{"command":"create","path":"a.txt","file_text":"x","zz_extra":1,"aa_extra":true}`,
	} {
		call := tool.NewCall("c1", editor.Name, args)
		events := []event.Event{
			{RunID: "r", Data: event.Model{Output: chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{call}}}},
			{RunID: "r", Data: event.Approval{CallID: "c1", Call: call, Approver: "auto", Decision: "approve"}},
			{RunID: "r", Data: event.Tool{CallID: "c1", Function: editor.Name, Arguments: json.RawMessage(args), Result: "ok"}},
		}
		var out bytes.Buffer
		tw := NewTextWriter(&out)
		tw.SetOrders(orders)
		for _, e := range events {
			if err := tw.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		lines = lines[1:] // the model's line, then its calls
		if len(lines) != 3 {
			t.Fatalf("%s: %d lines:\n%s", args, len(lines), out.String())
		}
		for _, line := range lines {
			copied := callIn(line, editor.Name)
			if copied == "" {
				t.Fatalf("%s: no call in %q", args, line)
			}
			for _, cut := range []string{copied, copied[:strings.LastIndex(copied, ",")]} {
				p, err := policy.Compile(cut)
				if err != nil {
					t.Fatalf("pattern %q: %v", cut, err)
				}
				if !p.Match(policy.NewTarget(&call, order)) {
					t.Errorf("%s: pattern %q copied from %q does not match the call (policy sees %s)", args, cut, line, call.TextIn(order))
				}
			}
		}
		// Control: the sorted rendering gives a pattern that misses.
		sorted := call.Text()
		p, _ := policy.Compile(sorted[:strings.Index(sorted, "path=")])
		if p.Match(policy.NewTarget(&call, order)) {
			t.Errorf("%s: control: pattern %q from the sorted text matches; the test could not fail", args, sorted)
		}
	}
	// Without orders (a tool the writer does not know), arguments are
	// sorted: never the model's order.
	call := tool.NewCall("c1", "f", `{"z":1,"a":2}`)
	if got := FormatIn(event.Event{Data: event.Approval{Call: call, Approver: "auto", Decision: "approve"}}, nil); !strings.Contains(got, "f(a=2, z=1)") {
		t.Errorf("unknown tool: %q, want f(a=2, z=1)", got)
	}
}
