package eval

import (
	"encoding/json"
	"fmt"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/tool"
)

// Request returns the approval request a run would put to its boundary
// decider for the step's action: a boundary request made by a tool call,
// with the item's request and transcript as the conversation. It is built
// so that what the run's approvers read back from it (action.Describe)
// is the step's action:
//
//   - a shell action is a call of the bash tool with the argv as its
//     command (an exec request, or a write request when it names paths);
//   - a file edit is a call of the text_editor tool and a write request
//     for its path or paths (an edit without an operation reads back as
//     operation text_editor, as such a call does in a run);
//   - a network action is a network request made by the command, or by a
//     call of its tool with its arguments;
//   - an MCP call is an MCP request for the server's tool.
//
// The conversation is the item's request as the first user message, then
// its transcript (vocab.History); the approvers read the
// first user message as the person's request, as in a run.
//
// Keys of the dataset that a run never presents to its approvers (an
// action's Extra keys, but for a file edit's insert_line) are not
// presented. Sequence and text steps are not actions: Steps splits them.
func Request(s Step) (*approval.Request, error) {
	history, err := vocab.History(s.Request, s.Transcript)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	b, call, err := boundaryRequest(s.Action)
	if err != nil {
		return nil, err
	}
	if s.Line != "" && s.Action.Kind == action.Shell {
		b.Command = s.Line
	}
	call.ID = fmt.Sprintf("eval_%d", s.Index)
	return &approval.Request{Call: call, History: history, Boundary: b}, nil
}

// boundaryRequest returns the boundary request of a and the call that made
// it.
func boundaryRequest(a action.Action) (*boundary.Request, tool.Call, error) {
	b := &boundary.Request{
		Permission:    a.Permission(),
		Escalated:     a.SandboxPermissions == action.RequireEscalated,
		Justification: a.Justification,
		Reason:        a.Reason,
		Sandbox:       a.Sandbox,
	}
	args := map[string]any{}
	str := func(key, v string) {
		if v != "" {
			args[key] = v
		}
	}
	var call tool.Call
	switch a.Kind {
	case action.Shell:
		if len(a.Paths) > 0 {
			b.Paths = append([]string(nil), a.Paths...)
		}
		args["command"] = a.Command
		str("cwd", a.Cwd)
		str("justification", a.Justification)
		str("sandbox_permissions", a.SandboxPermissions)
		call.Function = "bash"
	case action.FileEdit:
		b.Paths = append([]string(nil), a.Paths...)
		if len(b.Paths) == 0 {
			b.Paths = []string{a.Path}
		} else {
			str("path", a.Path)
		}
		str("operation", a.Operation)
		str("old_str", a.OldText)
		str("new_str", a.NewText)
		str("patch", a.Patch)
		if raw, ok := a.Extra["insert_line"]; ok {
			args["insert_line"] = raw
		}
		call.Function = "text_editor"
	case action.Network:
		if a.URL == "" && a.Host == "" && len(a.Command) == 0 {
			call.Function, call.Arguments = a.ToolName, a.Arguments
			return b, call, nil
		}
		str("url", a.URL)
		str("host", a.Host)
		if len(a.Command) > 0 {
			args["command"] = a.Command
		}
		call.Function = "bash"
		if a.ToolName != "" {
			call.Function = a.ToolName
		}
	case action.MCP:
		b.Server, b.Tool = a.Server, a.ToolName
		call.Function, call.Arguments = a.ToolName, a.Arguments
		return b, call, nil
	default:
		return nil, call, fmt.Errorf("a %q action is not a boundary request", a.Kind)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, call, fmt.Errorf("action: %w", err)
	}
	call.Arguments = raw
	return b, call, nil
}
