package agent

import (
	"context"
	"sync"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

// TestG4_ApproversSeeTheToolsOwnDescription: the approval request of a
// boundary crossing carries the tool called, so an approver describes the
// request as that tool does (action.Describer) — the bash tool's escalated
// command is a shell action, whatever the function is called.
func TestG4_ApproversSeeTheToolsOwnDescription(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	judge := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		b, err := action.JSON(req.Tool, req.Call, req.Boundary)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		seen = append(seen, string(b))
		mu.Unlock()
		return approval.Approval{Decision: approval.Reject, Explanation: "no"}, nil
	})
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("", tc("c1", "bash", `{"cmd":"touch x","sandbox_permissions":"require_escalated","justification":"needs it"}`)),
	}})
	r.Boundary = BoundaryPolicy(approval.New(arule(t, "judge", judge, "*")))
	// The call itself, before it runs, is described the same way.
	r.Approval = approval.New(arule(t, "spy", approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		b, err := action.JSON(req.Tool, req.Call, nil)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		seen = append(seen, string(b))
		mu.Unlock()
		return approval.Approval{Decision: approval.Approve}, nil
	}), "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{bash.New(bash.Options{Dir: t.TempDir()})}}, user("go")), event.StatusCompleted)
	want := []string{
		`{"command":["bash","-c","touch x"],"justification":"needs it","sandbox_permissions":"require_escalated","tool":"shell"}`,
		`{"command":["bash","-c","touch x"],"justification":"needs it","reason":"the command asks to run outside the sandbox","sandbox_permissions":"require_escalated","tool":"shell"}`,
	}
	if len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("approvers saw %q\nwant %q", seen, want)
	}
}
