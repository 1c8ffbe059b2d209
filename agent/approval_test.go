package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

func TestA1_ApproverSeesMessageCallViewHistory(t *testing.T) {
	var got *approval.Request
	spy := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		got = req
		return approval.Approval{Decision: approval.Approve}, nil
	})
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("I will echo", tc("c1", "echo", `{"text":"hi"}`))}}
	r, _ := newRun(m)
	r.Approval = approval.New(arule(t, "spy", spy, "*"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("please echo"))
	must(t, res, event.StatusCompleted)
	if got == nil {
		t.Fatal("approver not asked")
	}
	if got.Message != "I will echo" || got.Call.Function != "echo" || got.Call.ID != "c1" {
		t.Errorf("request = %+v", got)
	}
	if got.View.Content != "echo(text='hi')" {
		t.Errorf("view = %+v", got.View)
	}
	if n := len(got.History); n != 2 || got.History[0].Content != "please echo" || got.History[1].Role != chat.Assistant {
		t.Errorf("history = %+v", got.History)
	}
}

func TestA2_Decisions(t *testing.T) {
	tests := []struct {
		decision   approval.Decision
		wantRuns   int
		wantStatus string
		wantResult string
		wantErr    tool.ErrorType
	}{
		{approval.Approve, 1, event.StatusCompleted, "hi", ""},
		{approval.Modify, 1, event.StatusCompleted, "changed", ""},
		{approval.Reject, 0, event.StatusCompleted, "approval: not today", tool.ErrApproval},
		{approval.Terminate, 0, event.StatusLimited, "", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.decision), func(t *testing.T) {
			a := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
				out := approval.Approval{Decision: tt.decision, Explanation: "not today"}
				if tt.decision == approval.Modify {
					c := req.Call
					if err := c.SetArguments([]byte(`{"text":"changed"}`)); err != nil {
						t.Fatal(err)
					}
					out.Modified = &c
				}
				return out, nil
			})
			ec := &echo{name: "echo"}
			m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"hi"}`))}}
			r, s := newRun(m)
			r.Approval = approval.New(arule(t, "a", a, "echo"))
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{ec}}, user("go"))
			must(t, res, tt.wantStatus)
			if ec.count() != tt.wantRuns {
				t.Errorf("tool ran %d times, want %d", ec.count(), tt.wantRuns)
			}
			if tt.decision == approval.Terminate {
				if res.Limit.Type != event.LimitOperator || len(s.Tools()) != 0 {
					t.Errorf("limit %+v, tool events %d", res.Limit, len(s.Tools()))
				}
				return
			}
			te := s.Tools()
			if len(te) != 1 || te[0].Result != tt.wantResult {
				t.Fatalf("tool events = %+v", te)
			}
			if tt.wantErr != "" && (te[0].Error == nil || te[0].Error.Type != tt.wantErr || !te[0].Failed) {
				t.Errorf("tool error = %+v", te[0].Error)
			}
			// The model receives what the transcript says it receives.
			last := m.Requests()[len(m.Requests())-1].Messages
			if got := last[len(last)-1]; got.Role != chat.Tool || got.Content != tt.wantResult {
				t.Errorf("model received %+v", got)
			}
		})
	}
}

func TestA3_FirstNonEscalateWinsAndEveryAskIsRecorded(t *testing.T) {
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"hi"}`))}}
	r, s := newRun(m)
	r.Approval = approval.New(
		arule(t, "first", decide(approval.Escalate), "*"),
		arule(t, "other-tool", decide(approval.Reject), "bash"),
		arule(t, "second", decide(approval.Escalate), "echo(text='h"),
		arule(t, "third", decide(approval.Approve), "*"),
		arule(t, "never", decide(approval.Reject), "*"),
	)
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
	must(t, res, event.StatusCompleted)
	var names []string
	for _, a := range s.Approvals() {
		names = append(names, a.Approver+":"+a.Decision)
	}
	if got := strings.Join(names, ","); got != "first:escalate,second:escalate,third:approve" {
		t.Errorf("approval events = %s", got)
	}
	// Approval events come before the tool event of their call (SPEC L7).
	kinds := s.Kinds()
	if strings.Join(kindStrings(kinds), ",") != "run_start,turn_start,model,approval,approval,approval,tool,model,run_end" {
		t.Errorf("event order = %v", kinds)
	}
}

func kindStrings(k []string) []string {
	out := make([]string, len(k))
	for i := range k {
		out[i] = string(k[i])
	}
	return out
}

func TestA4_DenyByDefault(t *testing.T) {
	tests := []struct {
		name     string
		rules    []approval.Rule
		wantRuns int
		wantBy   string
	}{
		{"no approver matches", []approval.Rule{arule(t, "a", decide(approval.Approve), "bash")}, 0, "policy"},
		{"every match escalates", []approval.Rule{arule(t, "a", decide(approval.Escalate), "*")}, 0, "policy"},
		{"no policy at all", nil, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec := &echo{name: "echo"}
			r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"x"}`))}})
			if tt.rules != nil {
				r.Approval = approval.New(tt.rules...)
			}
			must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{ec}}, user("go")), event.StatusCompleted)
			if ec.count() != tt.wantRuns {
				t.Fatalf("runs = %d, want %d", ec.count(), tt.wantRuns)
			}
			if tt.wantBy == "" {
				if len(s.Approvals()) != 0 {
					t.Errorf("approval events without a policy: %+v", s.Approvals())
				}
				return
			}
			ap := s.Approvals()
			if last := ap[len(ap)-1]; last.Approver != tt.wantBy || last.Decision != "reject" {
				t.Errorf("last approval = %+v", last)
			}
			if te := s.Tools(); te[0].Error == nil || te[0].Error.Type != tool.ErrApproval {
				t.Errorf("tool event = %+v", te[0])
			}
		})
	}
}

func TestA5_ModifyLogsProposedAndExecuted(t *testing.T) {
	mod := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		c := tool.NewCall("ignored", "echo", `{"text":"safe"}`)
		return approval.Approval{Decision: approval.Modify, Modified: &c, Explanation: "made safe"}, nil
	})
	ec := &echo{name: "echo"}
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"danger"}`))}})
	r.Approval = approval.New(arule(t, "mod", mod, "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{ec}}, user("go")), event.StatusCompleted)
	te := s.Tools()[0]
	if string(te.Arguments) != `{"text":"danger"}` {
		t.Errorf("proposed arguments = %s", te.Arguments)
	}
	if te.Executed == nil || string(te.Executed.Arguments) != `{"text":"safe"}` || te.Executed.ID != "c1" {
		t.Errorf("executed = %+v", te.Executed)
	}
	if te.Result != "safe" || ec.runs[0] != `{"text":"safe"}` {
		t.Errorf("result %q, ran with %v", te.Result, ec.runs)
	}
	if ap := s.Approvals()[0]; ap.Modified == nil || ap.Decision != "modify" {
		t.Errorf("approval event = %+v", ap)
	}
}

func TestA6_UnparseableAndUnknownNeverReachApprovers(t *testing.T) {
	asked := 0
	a := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		asked++
		return approval.Approval{Decision: approval.Approve}, nil
	})
	bad := tool.NewCall("c1", "echo", `{"text": "unterminated`)
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("", bad, tc("c2", "nosuch", `{}`), tc("c3", "echo", `{}`)),
	}})
	r.Approval = approval.New(arule(t, "a", a, "*"))
	strict := &echo{name: "echo"}
	strictInfo := strict.Info()
	strictInfo.Parameters = []byte(`{"type":"object","required":["text"]}`)
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{tool.Func{Spec: strictInfo, Fn: strict.Run}}}, user("go")), event.StatusCompleted)
	if asked != 0 || len(s.Approvals()) != 0 {
		t.Errorf("approver asked %d times, %d approval events", asked, len(s.Approvals()))
	}
	for _, te := range s.Tools() {
		if te.Error == nil || te.Error.Type != tool.ErrParsing {
			t.Errorf("call %s: error = %+v, want parsing", te.CallID, te.Error)
		}
	}
	if n := len(s.Tools()); n != 3 {
		t.Errorf("%d tool events, want 3", n)
	}
	if strict.count() != 0 {
		t.Error("a call that failed parsing ran")
	}
}

func TestA7_ApproverFailureEndsRunWithError(t *testing.T) {
	tests := map[string]approval.Approver{
		"error": approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
			return approval.Approval{}, errors.New("backend down")
		}),
		"panic": approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
			panic("boom")
		}),
		"invalid decision": approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
			return approval.Approval{Decision: "maybe"}, nil
		}),
	}
	for name, a := range tests {
		t.Run(name, func(t *testing.T) {
			ec := &echo{name: "echo"}
			r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"x"}`))}})
			r.Approval = approval.New(arule(t, "flaky", a, "*"))
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{ec}}, user("go"))
			must(t, res, event.StatusError)
			if ec.count() != 0 {
				t.Error("the call ran although its approver failed")
			}
			if len(s.Find(eventkind.Error)) != 1 || !strings.Contains(res.Err.Error(), "flaky") {
				t.Errorf("error = %v, events %v", res.Err, s.Kinds())
			}
		})
	}
}

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

// The call is refused with a parsing error, as the model is told (the
// names themselves are checked in internal/argjson).
func TestA8_SchemaCaseVariantsAreParsingErrors(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"},"opts":{"type":"object","properties":{"path":{}}},"list":{"type":"array","items":{"type":"object","properties":{"file_text":{}}}}},"additionalProperties":false}`)
	for _, s := range []string{`{"CMD":"touch x"}`, `{"cmd":"ls","opts":{"Path":"/"}}`, `{"list":[{"file_text":""},{"File_Text":"x"}]}`} {
		if e := checkSchema(tool.Info{Name: "bash", Parameters: schema}, tool.Call{Function: "bash", Arguments: json.RawMessage(s)}); e == nil || e.Type != tool.ErrParsing {
			t.Errorf("%s: %v", s, e)
		}
	}
}
