package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/model/scripted"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// A scripted model calls a tool twice; the approval policy lets one call run
// and rejects the other, whose error the model receives instead of a result.
func ExampleRun_Execute() {
	shell := tool.Func{
		Spec: tool.Info{
			Name:        "shell",
			Description: "Runs a command (here, pretends to).",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`),
		},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Cmd string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			return "ran " + a.Cmd, nil
		},
	}
	model := scripted.New(
		chat.Message{Content: "Let me look, then clean up.", ToolCalls: []tool.Call{
			tool.NewCall("", "shell", `{"cmd": "ls"}`),
			tool.NewCall("", "shell", `{"cmd": "rm -rf /"}`),
		}},
		chat.Message{Content: "I listed the files; deleting them was refused."},
	)
	rules, err := approval.Compile([]policy.Entry{
		{Name: "auto", Tools: []string{"shell(cmd='rm"}, Params: map[string]any{"decision": "reject", "explanation": "no deleting"}},
		{Name: "auto", Tools: []string{"shell"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Collect the events; a sink must be safe for concurrent use.
	var (
		mu     sync.Mutex
		events []event.Event
	)
	sink := event.SinkFunc(func(e event.Event) error {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
		return nil
	})

	run := &agent.Run{Model: model, Events: event.NewRecorder("example", sink), Approval: rules}
	res := run.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{shell}},
		[]chat.Message{{Role: chat.User, Content: "Tidy up."}})

	for _, e := range events {
		switch d := e.Data.(type) {
		case event.Model:
			fmt.Printf("%-9s %q, %d tool calls\n", e.Kind(), d.Output.Content, len(d.Output.ToolCalls))
		case event.Approval:
			fmt.Printf("%-9s %s %s: %s by %s\n", e.Kind(), d.CallID, d.Call.Text(), d.Decision, d.Approver)
		case event.Tool:
			fmt.Printf("%-9s %s failed=%t: %s\n", e.Kind(), d.CallID, d.Failed, d.Result)
		case event.RunEnd:
			fmt.Printf("%-9s %s\n", e.Kind(), d.Status)
		default:
			fmt.Println(e.Kind())
		}
	}
	fmt.Println("status:", res.Status)
	fmt.Println("answer:", chat.Text(res.Messages, chat.Assistant))
	// Output:
	// run_start
	// turn_start
	// model     "Let me look, then clean up.", 2 tool calls
	// approval  call_1_1 shell(cmd='ls'): approve by auto
	// tool      call_1_1 failed=false: ran ls
	// approval  call_1_2 shell(cmd='rm -rf /'): reject by auto
	// tool      call_1_2 failed=true: approval: no deleting
	// model     "I listed the files; deleting them was refused.", 0 tool calls
	// run_end   completed
	// status: completed
	// answer: I listed the files; deleting them was refused.
}
