package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/model/scripted"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
	"github.com/wardenhq/warden/tool/editor"
)

// An argument spelled twice, or by another case than the tool's schema,
// is a parsing error before any approver sees the call (SPEC A6, A8): the
// approver matched `bash(cmd='ls` must not let the other spelling run.
func TestA8_DuplicateAndCaseVariantArgumentsAreParsingErrors(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(work, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "x")
	calls := []string{
		`{"cmd":"ls","CMD":"touch ` + target + `"}`,
		`{"cmd":"ls","cmd":"touch ` + target + `"}`,
		`{"cmd":"ls","Cmd":"touch ` + target + `"}`,
		`{"CMD":"touch ` + target + `"}`,
		`{"cmd":"ls","\u0063md":"touch ` + target + `"}`,
		`{"cmd":"ls","sandbox_permissions":"use_default","SANDBOX_PERMISSIONS":"require_escalated"}`,
	}
	edits := []string{
		`{"command":"create","path":"inside.txt","file_text":"ok","PATH":"victim.txt","File_Text":"pwned"}`,
		`{"command":"create","path":"inside.txt","file_text":"ok","path":"victim.txt","file_text":"pwned"}`,
		`{"command":"create","path":"inside.txt","file_text":"ok","Path":"victim.txt"}`,
		`{"command":"create","Path":"victim.txt","file_text":"pwned"}`,
	}
	var turns []chat.Message
	for i, a := range calls {
		turns = append(turns, chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{tool.NewCall("b"+string(rune('0'+i)), bash.Name, a)}})
	}
	for i, a := range edits {
		turns = append(turns, chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{tool.NewCall("e"+string(rune('0'+i)), editor.Name, a)}})
	}
	ed, err := editor.New(editor.Options{Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	m, err := policy.CompileList([]string{"bash(cmd='ls", "text_editor(command='create', path='inside.txt'"})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := policy.CompileList([]string{"*"})
	rec := replay(t, &agent.Run{
		Approval: approval.New(approval.Rule{Name: "allow-listed", Match: m, Handler: approval.Auto(approval.Approve, "listed")}),
		Boundary: agent.BoundaryPolicy(approval.New(approval.Rule{Name: "all", Match: all, Handler: approval.Auto(approval.Approve, "")})),
	}, []tool.Tool{bash.New(bash.Options{Dir: work}), ed}, turns)
	if _, err := os.Stat(target); err == nil {
		t.Error("touch ran outside the workspace")
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious" {
		t.Errorf("victim = %q", data)
	}
	if _, err := os.Stat(filepath.Join(work, "inside.txt")); err == nil {
		t.Error("a call with clashing names ran")
	}
	tools := 0
	for _, e := range rec.All() {
		switch d := e.Data.(type) {
		case event.Approval:
			t.Errorf("an approver saw %s (SPEC A6)", d.Call.Text())
		case event.Tool:
			tools++
			if d.Error == nil || d.Error.Type != tool.ErrParsing {
				t.Errorf("%s: %+v, want a parsing error", d.CallID, d.Error)
			}
		}
	}
	if tools != len(calls)+len(edits) {
		t.Errorf("%d tool events, want %d", tools, len(calls)+len(edits))
	}
	// The same arguments spelled once each run.
	_ = strings.TrimSpace
}

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
	rec := replay(t, &agent.Run{Approval: approval.New(approval.Rule{Name: "all", Match: all, Handler: approval.Auto(approval.Approve, "ok")})},
		[]tool.Tool{ed}, turns)
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

// TestP2_ArgumentOrderCannotSkipDenyPattern runs the real bash tool under a
// policy that rejects bash(cmd='rm and approves everything else; the model
// sends the rm command with its keys in every order it likes. No order
// gets the command run, and the review policy matches the same way.
func TestP2_ArgumentOrderCannotSkipDenyPattern(t *testing.T) {
	for _, args := range []string{
		`{"cmd":"rm victim"}`,
		`{"justification":"x","cmd":"rm victim"}`,
		`{"sandbox_permissions":"use_default","cmd":"rm victim"}`,
		`{"justification":"x","sandbox_permissions":"use_default","cmd":"rm victim"}`,
	} {
		t.Run(args, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
				t.Fatal(err)
			}
			gate, err := approval.Compile([]policy.Entry{
				{Name: "auto", Tools: []string{"bash(cmd='rm"}, Params: map[string]any{"decision": "reject"}},
				{Name: "auto", Tools: []string{"*"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var events []event.Event
			sink := event.SinkFunc(func(e event.Event) error {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, e)
				return nil
			})
			oneCall(&agent.Run{Approval: gate}, sink, []tool.Tool{bash.New(bash.Options{Dir: dir})}, "bash", args)

			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("the rm ran: %v", err)
			}
			var rejected bool
			for _, e := range events {
				if a, ok := e.Data.(event.Approval); ok && a.Decision == string(approval.Reject) {
					rejected = true
				}
			}
			if !rejected {
				t.Errorf("no approval event rejected the call; events: %v", events)
			}
		})
	}
}

// TestP2_ReviewMatchesInSchemaOrder: a review pattern on the first
// parameter matches a call whose keys the model reordered.
func TestP2_ReviewMatchesInSchemaOrder(t *testing.T) {
	dir := t.TempDir()
	stop, err := review.Compile([]policy.Entry{
		{Name: "auto", Tools: []string{"bash(cmd='cat"}, Params: map[string]any{"decision": "terminate"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := oneCall(&agent.Run{Review: stop}, nil, []tool.Tool{bash.New(bash.Options{Dir: dir})}, "bash", `{"justification":"x","cmd":"cat /etc/hostname"}`)
	if res.Status != event.StatusLimited || !strings.Contains(res.Limit.Error(), "terminated") {
		t.Errorf("status %s, limit %v: the review pattern did not match", res.Status, res.Limit)
	}
}

// TestP2_SchemaOrderNotJustSorted: the tool's schema lists path before
// content, so a pattern on path matches even though "content" sorts first
// and the model sent it first.
func TestP2_SchemaOrderNotJustSorted(t *testing.T) {
	var ran []string
	write := tool.Func{
		Spec: tool.Info{Name: "write", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) {
			ran = append(ran, string(args))
			return "ok", nil
		},
	}
	gate, err := approval.Compile([]policy.Entry{
		{Name: "auto", Tools: []string{"write(path='/etc/"}, Params: map[string]any{"decision": "reject"}},
		{Name: "auto", Tools: []string{"*"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	oneCall(&agent.Run{Approval: gate}, nil, []tool.Tool{write}, "write", `{"content":"x","path":"/etc/passwd"}`)
	if len(ran) != 0 {
		t.Errorf("the write ran: %v", ran)
	}
}

// oneCall executes run (its policies set) on an agent with tools, the
// scripted model making the one call function(args) and then ending the
// turn; the events go to sink (nil: nowhere).
func oneCall(run *agent.Run, sink event.Sink, tools []tool.Tool, function, args string) *agent.Result {
	if sink == nil {
		sink = event.SinkFunc(func(event.Event) error { return nil })
	}
	run.Model = scripted.New(
		chat.Message{ToolCalls: []tool.Call{tool.NewCall("c1", function, args)}},
		chat.Message{Content: "done"},
	)
	run.Events = event.NewRecorder("p2", sink)
	return run.Execute(context.Background(), &agent.Agent{Tools: tools}, []chat.Message{{Role: chat.User, Content: "go"}})
}

// replay executes run (its policies set) as run "r" on an agent with
// tools, the model replaying turns and then ending the turn; the test fails
// unless the run completes. It returns the run's events.
func replay(t *testing.T, run *agent.Run, tools []tool.Tool, turns []chat.Message) *eventtest.Sink {
	t.Helper()
	rec := &eventtest.Sink{}
	run.ID, run.Events = "r", event.NewRecorder("r", rec)
	run.Model = &modeltest.Replay{Turns: append(turns, modeltest.Turn("done"))}
	res := run.Execute(context.Background(), &agent.Agent{Tools: tools}, []chat.Message{{Role: chat.User, Content: "go"}})
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s: %v %v", res.Status, res.Err, res.Limit)
	}
	return rec
}
