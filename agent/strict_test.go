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
	rec := &eventtest.Sink{}
	r := &agent.Run{ID: "r", Model: &modeltest.Replay{Turns: append(turns, modeltest.Turn("done"))}, Events: event.NewRecorder("r", rec),
		Approval: approval.New(approval.Rule{Name: "allow-listed", Match: m, Handler: approval.Auto(approval.Approve, "listed")}),
		Boundary: agent.BoundaryPolicy(approval.New(approval.Rule{Name: "all", Match: all, Handler: approval.Auto(approval.Approve, "")})),
	}
	res := r.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{bash.New(bash.Options{Dir: work}), ed}}, []chat.Message{{Role: chat.User, Content: "go"}})
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s: %v %v", res.Status, res.Err, res.Limit)
	}
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
