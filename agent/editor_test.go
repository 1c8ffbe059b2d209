package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// A text_editor call that cannot succeed — an edit of a file that does not
// exist, an undo with nothing to undo, an argument of the wrong JSON type —
// is a parsing error before any approver is asked (SPEC A6, tool.Precheck),
// not a diff against nothing shown for approval.
func TestA6_EditorCallsThatCannotSucceedAreParsingErrorsBeforeApproval(t *testing.T) {
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "present.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := map[string]struct{ args, part string }{
		"missing-replace": {`{"command":"str_replace","path":"missing.txt","old_str":"a","new_str":"b"}`, "missing.txt does not exist"},
		"missing-insert":  {`{"command":"insert","path":"missing.txt","insert_line":0,"new_str":"b"}`, "missing.txt does not exist"},
		"missing-nested":  {`{"command":"str_replace","path":"no/such/dir.txt","old_str":"a"}`, "does not exist"},
		"dir-replace":     {`{"command":"str_replace","path":".","old_str":"a"}`, "is a directory"},
		"undo-nothing":    {`{"command":"undo_edit","path":"present.txt"}`, "no edit of present.txt to undo"},
		"type-line":       {`{"command":"insert","path":"present.txt","insert_line":"3","new_str":"x"}`, "insert_line"},
		"type-path":       {`{"command":"view","path":3}`, "path"},
	}
	var calls []tool.Call
	for id, c := range bad {
		calls = append(calls, tool.NewCall(id, editor.Name, c.args))
	}
	// A call that can succeed is asked about, so the approver is in force.
	calls = append(calls, tool.NewCall("good", editor.Name, `{"command":"str_replace","path":"present.txt","old_str":"a","new_str":"A"}`))
	turns := []chat.Message{{Role: chat.Assistant, ToolCalls: calls}}
	ed, err := editor.New(editor.Options{Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := policy.CompileList([]string{"*"})
	rec := &eventtest.Sink{}
	r := &agent.Run{ID: "r", Model: &modeltest.Replay{Turns: append(turns, modeltest.Turn("done"))}, Events: event.NewRecorder("r", rec),
		Approval: approval.New(approval.Rule{Name: "all", Match: all, Handler: approval.Auto(approval.Approve, "ok")}),
	}
	res := r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{ed}}, []chat.Message{{Role: chat.User, Content: "go"}})
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s: %v %v", res.Status, res.Err, res.Limit)
	}
	seen := map[string]bool{}
	approved := false
	for _, e := range rec.All() {
		switch d := e.Data.(type) {
		case event.Approval:
			if d.CallID != "good" {
				t.Errorf("an approver saw %s (SPEC A6)", d.Call.Text())
			}
			approved = true
		case event.Tool:
			seen[d.CallID] = true
			c, ok := bad[d.CallID]
			if !ok {
				if d.Error != nil {
					t.Errorf("%s: %+v", d.CallID, d.Error)
				}
				continue
			}
			if d.Error == nil || d.Error.Type != tool.ErrParsing || !strings.Contains(d.Error.Message, c.part) {
				t.Errorf("%s: %+v, want a parsing error containing %q", d.CallID, d.Error, c.part)
			}
		}
	}
	if !approved {
		t.Error("the valid call was not approved")
	}
	if len(seen) != len(bad)+1 {
		t.Errorf("tool events for %v", seen)
	}
	if _, err := os.Stat(filepath.Join(work, "missing.txt")); err == nil {
		t.Error("missing.txt was created")
	}
	if data, _ := os.ReadFile(filepath.Join(work, "present.txt")); string(data) != "A\nb\n" {
		t.Errorf("present.txt = %q", data)
	}
}

// The check before approval sees the effects of earlier calls of the same
// message: text_editor calls are barriers, so a file created by one call
// can be edited, and the edit undone, by the next.
func TestA6_EditorPrecheckSeesEarlierCallsOfTheMessage(t *testing.T) {
	work := t.TempDir()
	calls := []tool.Call{
		tool.NewCall("c", editor.Name, `{"command":"create","path":"n.txt","file_text":"a\n"}`),
		tool.NewCall("s", editor.Name, `{"command":"str_replace","path":"n.txt","old_str":"a","new_str":"b"}`),
		tool.NewCall("u", editor.Name, `{"command":"undo_edit","path":"n.txt"}`),
	}
	ed, err := editor.New(editor.Options{Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := policy.CompileList([]string{"*"})
	rec := &eventtest.Sink{}
	r := &agent.Run{ID: "r", Model: &modeltest.Replay{Turns: []chat.Message{{Role: chat.Assistant, ToolCalls: calls}, modeltest.Turn("done")}}, Events: event.NewRecorder("r", rec),
		Approval: approval.New(approval.Rule{Name: "all", Match: all, Handler: approval.Auto(approval.Approve, "ok")}),
	}
	res := r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{ed}}, []chat.Message{{Role: chat.User, Content: "go"}})
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s: %v %v", res.Status, res.Err, res.Limit)
	}
	approvals := 0
	for _, e := range rec.All() {
		switch d := e.Data.(type) {
		case event.Approval:
			approvals++
		case event.Tool:
			if d.Error != nil {
				t.Errorf("%s: %+v", d.CallID, d.Error)
			}
		}
	}
	if approvals != len(calls) {
		t.Errorf("%d approvals, want %d", approvals, len(calls))
	}
	if data, _ := os.ReadFile(filepath.Join(work, "n.txt")); string(data) != "a\n" {
		t.Errorf("n.txt = %q", data)
	}
}
