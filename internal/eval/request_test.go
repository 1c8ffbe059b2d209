package eval_test

import (
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/eval"
)

// An item's action reaches the boundary decider as the request a run would
// make, and what the run's approvers read back from that request is the
// item's action (SPEC V2): the first pass and the model reviewer judge the
// labelled action, through the code a run goes through.
func TestV2_RequestReadsBackAsTheItemsAction(t *testing.T) {
	for _, raw := range []string{
		`{"tool":"shell","command":["bash","-lc","git status"],"cwd":"/p"}`,
		`{"tool":"shell","command":["ls","-la"]}`,
		`{"tool":"shell","command":["bash","-c","make"],"cwd":"/p","justification":"build","sandbox_permissions":"require_escalated","reason":"escalated","sandbox":"workspace-write"}`,
		`{"tool":"shell","command":["bash","-c","echo x > /etc/y"],"paths":["/etc/y"]}`,
		`{"tool":"mcp_tool_call","server":"gmail","tool_name":"send_email","arguments":{"to":["a@b.example"],"n":1.50}}`,
		`{"tool":"mcp_tool_call","server":"","tool_name":"lookup","arguments":{}}`,
		`{"tool":"file_edit","path":"/p/a.go","operation":"str_replace","old_text":"a","new_text":"b"}`,
		`{"tool":"file_edit","paths":["/p/a","/p/b"],"operation":"apply_patch","patch":"--- a\n+++ b\n"}`,
		`{"tool":"network","url":"https://example.com/x","host":"example.com","command":["bash","-c","curl https://example.com/x"]}`,
		`{"tool":"network","host":"example.com:443"}`,
	} {
		a, err := action.Parse(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		req, err := eval.Request(eval.Step{Action: a, Request: "do it"})
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		got, err := action.JSON(req.Tool, req.Call, req.Boundary)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		want, _ := a.MarshalJSON()
		if string(got) != string(want) {
			t.Errorf("read back\n %s\nwant\n %s", got, want)
		}
		if len(req.History) != 1 || req.History[0].Content != "do it" {
			t.Errorf("%s: history %+v", raw, req.History)
		}
	}
	text, _ := action.Parse(json.RawMessage(`{"tool":"text","text":"hi"}`))
	if _, err := eval.Request(eval.Step{Action: text}); err == nil {
		t.Error("a text step became a boundary request")
	}
}
