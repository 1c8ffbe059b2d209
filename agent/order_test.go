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
	"github.com/wardenhq/warden/model/scripted"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

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
			m := scripted.New(
				chat.Message{ToolCalls: []tool.Call{tool.NewCall("c1", "bash", args)}},
				chat.Message{Content: "done"},
			)
			run := &agent.Run{Model: m, Events: event.NewRecorder("p2", sink), Approval: gate}
			run.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{bash.New(bash.Options{Dir: dir})}},
				[]chat.Message{{Role: chat.User, Content: "clean up"}})

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
	m := scripted.New(
		chat.Message{ToolCalls: []tool.Call{tool.NewCall("c1", "bash", `{"justification":"x","cmd":"cat /etc/hostname"}`)}},
		chat.Message{Content: "done"},
	)
	run := &agent.Run{Model: m, Events: event.NewRecorder("p2", event.SinkFunc(func(event.Event) error { return nil })), Review: stop}
	res := run.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{bash.New(bash.Options{Dir: dir})}},
		[]chat.Message{{Role: chat.User, Content: "look"}})
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
	m := scripted.New(
		chat.Message{ToolCalls: []tool.Call{tool.NewCall("c1", "write", `{"content":"x","path":"/etc/passwd"}`)}},
		chat.Message{Content: "done"},
	)
	run := &agent.Run{Model: m, Events: event.NewRecorder("p2", event.SinkFunc(func(event.Event) error { return nil })), Approval: gate}
	run.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{write}}, []chat.Message{{Role: chat.User, Content: "go"}})
	if len(ran) != 0 {
		t.Errorf("the write ran: %v", ran)
	}
}
