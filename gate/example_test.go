package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/action"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/model/scripted"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// A gate around a reviewer that denies writes outside the sandbox: the
// denial is logged for a person, who grants one retry of exactly that
// action; the agent is told in its next turn.
func ExampleGate() {
	write := tool.Func{
		Spec: tool.Info{Name: "write", Description: "Writes outside the sandbox (asks first).",
			Parameters: json.RawMessage(`{"type":"object"}`)},
		Fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
			dec, err := boundary.Ask(ctx, &boundary.Request{Permission: boundary.Write, Paths: []string{"/etc/motd"}, Reason: "outside the writable roots"})
			if err != nil || !dec.Approved {
				return "", tool.Errorf(tool.ErrApproval, "%s", dec.Explanation)
			}
			return "written", nil
		},
	}
	// A stand-in for the reviewer agent: it denies, and leaves the record
	// of its review on the approval.
	reviewer := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		return approval.Approval{Decision: approval.Reject, Explanation: "not asked for",
			AutoReview: &event.AutoReview{Action: json.RawMessage(`{"path":"/etc/motd"}`), Status: action.StatusDenied, Source: event.SourceModel}}, nil
	})
	all, _ := policy.CompileList([]string{"*"})

	dir, _ := os.MkdirTemp("", "gate-example-")
	defer os.RemoveAll(dir)
	key, err := gate.FileSealer(filepath.Join(dir, "override.key"))
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := event.NewRecorder("example", event.SinkFunc(func(event.Event) error { return nil }))
	g := &gate.Gate{
		Next:   agent.BoundaryPolicy(approval.New(approval.Rule{Name: "auto_review", Match: all, Handler: reviewer})),
		Events: rec, Sealer: key,
	}
	m := scripted.New(
		chat.Message{ToolCalls: []tool.Call{tool.NewCall("", "write", `{}`)}},
		chat.Message{Content: "The write was denied."},
		chat.Message{Content: "Noted."},
	)
	run := &agent.Run{Model: m, Events: rec, Boundary: g}
	a := &agent.Agent{Tools: []tool.Tool{write}}
	res := run.Execute(context.Background(), a, []chat.Message{{Role: chat.User, Content: "Set the message of the day."}})
	for _, d := range g.Denials() {
		fmt.Println("denied:", d.ID, string(d.Action))
	}
	if err := g.Override(g.Denials()[0].ID, "dana", "fine, once"); err != nil {
		fmt.Println(err)
		return
	}
	run.Resumed = true
	next := append(res.Messages, chat.Message{Role: chat.User, Content: "Try again."})
	res = run.Execute(context.Background(), a, next)
	for _, msg := range res.Messages {
		switch {
		case strings.HasPrefix(msg.Content, gate.PersonNotePrefix):
			fmt.Println("(warden's " + string(msg.Role) + " note: the person approved one retry of example-d1)")
		case msg.Role != chat.User:
		default:
			fmt.Println(msg.Content)
		}
	}
	// Output:
	// denied: example-d1 {"path":"/etc/motd"}
	// Set the message of the day.
	// (warden's system note: the person approved one retry of example-d1)
	// Try again.
}
