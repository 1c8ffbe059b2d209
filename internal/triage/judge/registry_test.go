package judge

import (
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// TestG14_WithoutItsJudgesTheFirstPassPassesOn checks that the machinery
// alone — the judges of programs, file edits, MCP calls and fetches not
// registered, as when package triage is not linked — fails closed: every
// action is passed on, none allowed. (The registries are emptied for the
// test: this test binary links the judges.)
func TestG14_WithoutItsJudgesTheFirstPassPassesOn(t *testing.T) {
	k := DefaultKnowledge().WithWritableRoots(nil)
	cj, reg, acts := commandJudge, judgeRegistry, actionJudges
	commandJudge, judgeRegistry, actionJudges = nil, map[string]func(*Script, *Command){}, map[action.Kind]func(*Judgement, *action.Action, *rules.Set){}
	t.Cleanup(func() { commandJudge, judgeRegistry, actionJudges = cj, reg, acts })
	for _, a := range []action.Action{
		{Kind: action.Shell, Command: []string{"bash", "-lc", "git status"}, Cwd: "/home/dev/project"},
		{Kind: action.Shell, Command: []string{"bash", "-lc", "find . -name x"}, Cwd: "/home/dev/project"},
		{Kind: action.MCP, Server: "github", ToolName: "get_pull_request_files"},
		{Kind: action.FileEdit, Path: "/home/dev/project/a.go", NewText: "x"},
		{Kind: action.Network, URL: "https://example.com/"},
	} {
		if v := k.Judge(a, nil); v.Decision != vocab.Escalate {
			t.Errorf("%s %v without judges = %s: %s", a.Kind, a.Command, v.Decision, v.Reason)
		}
	}
}
