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

// TestG4_PermissionsMapToKinds holds the one mapping between the
// permission a boundary request asks (its "kind") and the kind of action a
// reviewer judges: every permission maps, both ways, and a write maps to a
// shell action only when a command makes it.
func TestG4_PermissionsMapToKinds(t *testing.T) {
	for _, tc := range []struct {
		perm      boundary.Permission
		byCommand bool
		kind      action.Kind
		paths     []string
	}{
		{boundary.Exec, false, action.Shell, nil},
		{boundary.Exec, true, action.Shell, nil},
		{boundary.Write, true, action.Shell, []string{"/etc/x"}},
		{boundary.Write, false, action.FileEdit, nil},
		{boundary.Network, true, action.Network, nil},
		{boundary.MCP, false, action.MCP, nil},
	} {
		if got := action.KindOf(tc.perm, tc.byCommand); got != tc.kind {
			t.Errorf("KindOf(%s, %v) = %q, want %q", tc.perm, tc.byCommand, got, tc.kind)
		}
		a := action.Action{Kind: tc.kind, Paths: tc.paths}
		if got := a.Permission(); got != tc.perm {
			t.Errorf("%s action (paths %v): Permission() = %q, want %q", tc.kind, tc.paths, got, tc.perm)
		}
	}
	for _, k := range []action.Kind{action.Sequence, action.Text, "unknown"} {
		if p := (&action.Action{Kind: k}).Permission(); p != "" {
			t.Errorf("a %s action asks %q", k, p)
		}
	}
	if k := action.KindOf("sudo", true); k != "" {
		t.Errorf("unknown permission maps to %q", k)
	}
	// Describe refuses a request whose permission maps to no kind.
	if _, err := action.Describe(tool.Func{}, tool.Call{Function: "x"}, &boundary.Request{Permission: "sudo"}); err == nil {
		t.Error("Describe accepted an unknown permission")
	}
}
