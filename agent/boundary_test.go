package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/tool"
)

// crossing is a tool that asks to write outside the sandbox and reports
// what it was told.
func crossing() *echo {
	return &echo{name: "write", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		dec, err := boundary.Ask(ctx, &boundary.Request{Kind: boundary.Write, Paths: []string{"/etc/x"}, Reason: "outside the writable roots"})
		if err != nil || !dec.Approved {
			return "", tool.Errorf(tool.ErrApproval, "%s", dec.Explanation)
		}
		return "written", nil
	}}
}

func TestG2_BoundaryRequestsGoToTheBoundaryPolicy(t *testing.T) {
	var seen *approval.Request
	spy := func(d approval.Decision) approval.Approver {
		return approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
			seen = req
			return approval.Approval{Decision: d, Explanation: "because"}, nil
		})
	}
	tests := []struct {
		name       string
		boundary   *approval.Policy
		wantResult string
		wantStatus string
	}{
		{"approved", approval.New(arule(t, "person", spy(approval.Approve), "*")), "written", event.StatusCompleted},
		{"rejected", approval.New(arule(t, "person", spy(approval.Reject), "*")), "approval: because", event.StatusCompleted},
		{"nobody decides", approval.New(arule(t, "person", spy(approval.Escalate), "*")), "approval: no approver approved this call (approval is deny by default)", event.StatusCompleted},
		{"no boundary policy", nil, "approval: no approver for boundary requests is configured: denied", event.StatusCompleted},
		{"terminated", approval.New(arule(t, "person", spy(approval.Terminate), "*")), "approval: terminated: because", event.StatusLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("writing", tc("c1", "write", `{}`))}})
			r.Boundary = BoundaryPolicy(tt.boundary)
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{crossing()}}, user("go"))
			must(t, res, tt.wantStatus)
			te := s.Tools()
			if len(te) != 1 || te[0].Result != tt.wantResult {
				t.Fatalf("tool events = %+v", te)
			}
			if tt.boundary == nil {
				return
			}
			if seen == nil || seen.Boundary == nil || seen.Boundary.Kind != boundary.Write || seen.Call.ID != "c1" || seen.Message != "writing" {
				t.Errorf("approver saw %+v", seen)
			}
			ap := s.Approvals()
			if len(ap) == 0 || ap[0].Boundary == nil || ap[0].CallID != "c1" || ap[0].Approver != "person" {
				t.Errorf("approval events = %+v", ap)
			}
		})
	}
}

func TestG2_BoundaryApproverFailureEndsTheRun(t *testing.T) {
	failing := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{}, errors.New("reviewer unreachable")
	})
	// A tool that ignores the error it was given must still not run past it.
	careless := &echo{name: "write", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		_, _ = boundary.Ask(ctx, &boundary.Request{Kind: boundary.Network, Reason: "blocked"})
		return "went ahead", nil
	}}
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "write", `{}`)), modeltest.Turn("never")}})
	r.Boundary = BoundaryPolicy(approval.New(arule(t, "flaky", failing, "*")))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{careless}}, user("go"))
	must(t, res, event.StatusError)
	if !strings.Contains(res.Err.Error(), "reviewer unreachable") {
		t.Errorf("err = %v", res.Err)
	}
}
