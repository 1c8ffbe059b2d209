package bash

import (
	"encoding/json"
	"path/filepath"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// DescribeAction describes a call, or a boundary request it made, for the
// reviewer (action.Describer), from the arguments exactly as Run reads
// them: the call is the shell action ["bash", "-c", CMD] with its
// justification and sandbox permissions; an exec or write request names
// the command it asks for (with the whole script beside it when that is
// longer) and the paths a write reaches; a network request is a network
// action of the command. Arguments that do not parse, and requests of
// other kinds, are not described here.
func (t *shellTool) DescribeAction(call tool.Call, req *boundary.Request) (action.Action, bool) {
	if call.ParseError != "" {
		return action.Action{}, false
	}
	a, err := parseArgs(call.Arguments)
	if err != nil {
		return action.Action{}, false
	}
	script := *a.Cmd
	sh := action.Action{Kind: action.Shell, Command: action.BashArgv(script),
		Justification: a.Justification, SandboxPermissions: a.SandboxPermissions}
	if req == nil {
		return sh, true
	}
	switch action.KindOf(req.Permission, true) {
	case action.Shell:
		if req.Command != "" && req.Command != script {
			// The request may name one command of a longer script; the
			// reviewer sees the whole script too.
			sh.Command = action.BashArgv(req.Command)
			sh.Extra = map[string]json.RawMessage{"script": action.RawString(script)}
		}
		if req.Permission == boundary.Write {
			sh.Paths = append([]string(nil), req.Paths...)
		}
		return sh, true
	case action.Network:
		line := script
		if req.Command != "" {
			line = req.Command
		}
		return action.Action{Kind: action.Network, Command: action.BashArgv(line)}, true
	}
	return action.Action{}, false
}

var _ action.Describer = (*shellTool)(nil)

// WorkDir returns the absolute directory commands run in, for the first
// pass to judge paths where they really lie.
func (t *shellTool) WorkDir() string {
	dir, err := filepath.Abs(t.dir)
	if err != nil {
		return ""
	}
	return dir
}
