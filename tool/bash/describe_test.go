package bash_test

import (
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

// script returns the whole script an action carries beside the command.
func script(a action.Action) string {
	var s string
	_ = json.Unmarshal(a.Extra["script"], &s)
	return s
}

// TestDescribeAction: the bash tool describes a call from the arguments
// it runs with, and declines what it would not run.
func TestDescribeAction(t *testing.T) {
	b := bash.New(bash.Options{}).(action.Describer)
	a, ok := b.DescribeAction(tool.NewCall("c1", "bash", `{"cmd":"make && make install","sandbox_permissions":"require_escalated","justification":"j"}`),
		&boundary.Request{Permission: boundary.Write, Command: "make install", Paths: []string{"/usr/local/bin/x"}})
	if !ok || a.Kind != action.Shell || a.Command[2] != "make install" || script(a) != "make && make install" ||
		!a.Escalated() || a.Justification != "j" || len(a.Paths) != 1 {
		t.Errorf("write: %v %+v", ok, a)
	}
	a, ok = b.DescribeAction(tool.NewCall("c1", "bash", `{"cmd":"curl https://example.com"}`), &boundary.Request{Permission: boundary.Network})
	if !ok || a.Kind != action.Network || a.Command[2] != "curl https://example.com" {
		t.Errorf("network: %v %+v", ok, a)
	}
	for _, args := range []string{`{"cmd":"ls","cwd":"/"}`, `{"cmd":""}`, `{"cmd":"ls","sandbox_permissions":"root"}`, `{"cmd":`} {
		if a, ok := b.DescribeAction(tool.NewCall("c1", "bash", args), nil); ok {
			t.Errorf("%s described: %+v", args, a)
		}
	}
	if _, ok := b.DescribeAction(tool.NewCall("c1", "bash", `{"cmd":"ls"}`), &boundary.Request{Permission: boundary.MCP}); ok {
		t.Error("an MCP request described as a command")
	}
}
