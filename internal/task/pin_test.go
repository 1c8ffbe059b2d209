package task_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/tool"
)

func TestL1_TaskKeysAndOptionsReachTheRun(t *testing.T) {
	dir := t.TempDir()
	tk := mustLoad(t, dir, "task.yaml", "input: go\nmodel: scripted:x.yaml\nmax_concurrent_calls: 3\nmax_calls_per_message: 10\npin_policy: true\n")
	if tk.MaxConcurrentCalls != 3 || tk.MaxCallsPerMessage != 10 || !tk.PinPolicy {
		t.Fatalf("task = %+v", tk)
	}
	for _, bad := range []string{"max_concurrent_calls: 0", "max_calls_per_message: -1", "max_concurrent_calls: many", "pin_policy: yes please"} {
		if _, err := load(t, dir, "bad.yaml", "input: go\n"+bad+"\n"); err == nil || !strings.Contains(err.Error(), "bad.yaml:2:") {
			t.Errorf("%s: err = %v, want one at bad.yaml:2", bad, err)
		}
	}
	p := mustPrepare(t, t.TempDir(), "input: go\nmax_concurrent_calls: 3\nmax_calls_per_message: 10\n", task.Options{})
	if p.Run.MaxConcurrentCalls != 3 || p.Run.MaxCallsPerMessage != 10 || p.Run.PinPolicy {
		t.Errorf("run = %d %d %v", p.Run.MaxConcurrentCalls, p.Run.MaxCallsPerMessage, p.Run.PinPolicy)
	}
	p.Close()
	p = mustPrepare(t, t.TempDir(), "input: go\nmax_concurrent_calls: 3\n", task.Options{MaxConcurrentCalls: 5, MaxCallsPerMessage: 7, PinPolicy: true})
	if p.Run.MaxConcurrentCalls != 5 || p.Run.MaxCallsPerMessage != 7 || !p.Run.PinPolicy {
		t.Errorf("run = %d %d %v", p.Run.MaxConcurrentCalls, p.Run.MaxCallsPerMessage, p.Run.PinPolicy)
	}
	p.Close()
	p = mustPrepare(t, t.TempDir(), "input: go\n", task.Options{})
	if p.Run.MaxConcurrentCalls != 0 || p.Run.MaxCallsPerMessage != 0 {
		t.Errorf("unset keys: run = %d %d (0 means the defaults %d and %d)", p.Run.MaxConcurrentCalls, p.Run.MaxCallsPerMessage,
			agent.DefaultMaxConcurrentCalls, agent.DefaultMaxCallsPerMessage)
	}
	p.Close()
}

// pinTask is a task whose sub-agent sets an empty approval policy of its
// own, so that it runs unapproved unless the run's policy is pinned.
const pinTask = `name: pin
input: go
workdir: work
tools: [bash, transfer_to_open]
agents:
  open:
    tools: [bash]
    approval: []
`

func runPinned(t *testing.T, src string, opts task.Options) (marker string, events []event.Event) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker = filepath.Join(dir, "work", "ran")
	_, spec := newRec(t,
		chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{tool.NewCall("h1", "transfer_to_open", `{}`)}},
		chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{tool.NewCall("o1", "bash", `{"cmd":"touch ran"}`)}},
		chat.Message{Role: chat.Assistant, Content: "open done"},
		chat.Message{Role: chat.Assistant, Content: "done"},
	)
	tk := mustLoad(t, dir, "task.yaml", src)
	var c eventtest.Sink
	opts.Model, opts.Sink, opts.Transcript = spec, &c, filepath.Join(dir, "t.jsonl")
	p, err := tk.Prepare(opts)
	if err != nil {
		t.Fatal(err)
	}
	res := p.Execute(context.Background())
	p.Close()
	if res.Status == event.StatusError {
		t.Fatalf("run error: %v", res.Err)
	}
	return marker, c.All()
}

func TestP4_PinPolicyAppliesToSubAgents(t *testing.T) {
	strict := write(t, t.TempDir(), "strict.yaml", "approvers:\n  - name: auto\n    tools: \"bash(cmd='touch\"\n    decision: reject\n  - name: auto\n")
	t.Run("unpinned: the sub-agent's own empty policy", func(t *testing.T) {
		marker, _ := runPinned(t, pinTask, task.Options{Approval: strict})
		if _, err := os.Stat(marker); err != nil {
			t.Fatal("P4: the sub-agent's own policy should replace the run's without a pin")
		}
	})
	t.Run("--pin-policy", func(t *testing.T) {
		marker, events := runPinned(t, pinTask, task.Options{Approval: strict, PinPolicy: true})
		if _, err := os.Stat(marker); err == nil {
			t.Error("the pinned policy did not apply to the sub-agent: its touch ran")
		}
		var rs event.RunStart
		var hs []event.Handoff
		for _, e := range events {
			switch d := e.Data.(type) {
			case event.RunStart:
				rs = d
			case event.Handoff:
				hs = append(hs, d)
			}
		}
		if !rs.PinPolicy || len(rs.Agents) != 2 || rs.Agents[1].Agent != "open" || rs.Agents[1].ApprovalFrom != eventkind.FromRun || len(rs.Agents[1].Approval) != 2 {
			t.Errorf("run_start = %+v", rs)
		}
		if len(hs) != 1 || hs[0].ApprovalFrom != eventkind.FromRun || !hs[0].PinPolicy {
			t.Errorf("handoff events = %+v", hs)
		}
	})
	t.Run("pin_policy: true pins the task's policy", func(t *testing.T) {
		src := pinTask + "pin_policy: true\napproval: " + strict + "\n"
		marker, _ := runPinned(t, src, task.Options{})
		if _, err := os.Stat(marker); err == nil {
			t.Error("pin_policy: true did not apply the task's policy to the sub-agent")
		}
	})
}

// run_start records every agent's effective policy, without a pin too.
func TestP5_RunStartRecordsSubAgentPolicies(t *testing.T) {
	_, events := runPinned(t, pinTask, task.Options{Approval: "auto"})
	rs := events[0].Data.(event.RunStart)
	if len(rs.Agents) != 2 {
		t.Fatalf("agents = %+v", rs.Agents)
	}
	main, open := rs.Agents[0], rs.Agents[1]
	if main.Agent != "main" || main.ApprovalFrom != eventkind.FromRun || len(main.Approval) != 1 {
		t.Errorf("main = %+v", main)
	}
	if open.Agent != "open" || open.Parent != "main" || open.ApprovalFrom != "agent:open" || open.Approval == nil || len(open.Approval) != 0 {
		t.Errorf("open = %+v", open)
	}
}
