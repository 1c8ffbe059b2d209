package action_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// selfDescribing is a tool that describes its calls as shell actions of
// its "q" argument.
type selfDescribing struct{ tool.Func }

func (selfDescribing) DescribeAction(call tool.Call, req *boundary.Request) (action.Action, bool) {
	var args struct{ Q string }
	if json.Unmarshal(call.Arguments, &args) != nil || args.Q == "" {
		return action.Action{}, false
	}
	return action.Action{Kind: action.Shell, Command: []string{"query", args.Q}, Reason: "ignored"}, true
}

func TestDescribe_ToolDescribesItself(t *testing.T) {
	tl := selfDescribing{tool.Func{Spec: tool.Info{Name: "q"}, Fn: func(context.Context, json.RawMessage) (string, error) { return "", nil }}}
	req := &boundary.Request{Permission: boundary.Exec, Escalated: true, Justification: "j", Reason: "r", Sandbox: "read-only"}
	got, err := action.JSON(tl, tool.NewCall("c1", "q", `{"q":"x"}`), req)
	if err != nil {
		t.Fatal(err)
	}
	// The request's own fields are warden's, whatever the tool said.
	want := `{"command":["query","x"],"justification":"j","reason":"r","sandbox":"read-only","sandbox_permissions":"require_escalated","tool":"shell"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// What the tool cannot describe gets the generic description.
	got, err = action.JSON(tl, tool.NewCall("c1", "q", `{"other":1}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"arguments":{"other":1},"server":"","tool":"mcp_tool_call","tool_name":"q"}`; string(got) != want {
		t.Errorf("fallback got %s\nwant %s", got, want)
	}
}

// TestDescribe_NoNameSwitch: the description comes from the tool, not from
// the name of the function called: a call named "bash" of a tool that does
// not describe itself is a function call, and warden's bash tool is a
// shell action whatever it is called.
func TestDescribe_NoNameSwitch(t *testing.T) {
	call := tool.NewCall("c1", "bash", `{"cmd":"ls"}`)
	a, err := action.Describe(nil, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != action.MCP || a.ToolName != "bash" {
		t.Errorf("no tool: %+v", a)
	}
	renamed := tool.NewCall("c1", "shell_of_the_task", `{"cmd":"ls","sandbox_permissions":"require_escalated"}`)
	a, err = action.Describe(toolOf(t, "bash"), renamed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != action.Shell || len(a.Command) != 3 || a.Command[2] != "ls" || !a.Escalated() {
		t.Errorf("bash tool: %+v", a)
	}
}

// TestDescribe_Editor: the text editor describes its commands from the
// arguments it runs with, the line of an insert included.
func TestDescribe_Editor(t *testing.T) {
	call := tool.NewCall("c1", "text_editor", `{"command":"insert","path":"a.txt","insert_line":3,"new_str":"x"}`)
	got, err := action.JSON(toolOf(t, "text_editor"), call, &boundary.Request{Permission: boundary.Write, Paths: []string{"/w/a.txt"}, Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"insert_line":3,"new_text":"x","operation":"insert","path":"/w/a.txt","reason":"r","tool":"file_edit"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestVocabulary(t *testing.T) {
	for i, r := range []action.Risk{action.RiskLow, action.RiskMedium, action.RiskHigh, action.RiskCritical} {
		if r.Level() != i || action.RiskAt(i) != r {
			t.Errorf("%s: level %d, RiskAt(%d) %s", r, r.Level(), i, action.RiskAt(i))
		}
	}
	if action.RiskAt(-1) != action.RiskLow || action.RiskAt(9) != action.RiskCritical {
		t.Error("RiskAt does not clamp")
	}
	if action.Risk("severe").Level() != -1 || action.Authorization("total").Level() != -1 {
		t.Error("unknown level accepted")
	}
	if action.AuthHigh.Level() <= action.AuthMedium.Level() || action.AuthUnknown.Level() != 0 {
		t.Error("authorization order")
	}
}
