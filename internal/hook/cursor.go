package hook

import (
	"encoding/json"
	"fmt"
)

// cursor is Cursor's hook protocol (cursor.com/docs/agent/hooks), from its
// documented payloads: Cursor has no headless client to test against.
// Shell commands arrive as beforeShellExecution and are governed as calls
// of the tool Shell(command=…).
var cursor = &Host{
	Name:     "cursor",
	Ask:      true,
	Modifies: true,
	Tools: map[string]Spec{
		"Shell":  {Kind: Shell, Command: "command", Cwd: "cwd"},
		"Read":   {Kind: Read, Path: "file_path", Alt: "path"},
		"Write":  {Kind: Write, Path: "file_path", Alt: "path", Content: "content"},
		"Edit":   {Kind: Edit, Path: "file_path", Alt: "path", Old: "old_string", New: "new_string"},
		"Delete": {Kind: Write, Path: "file_path", Alt: "path"},
		"Grep":   {Kind: Search, Path: "path", Pattern: "pattern"},
		"Task":   {Kind: Agent},
	},
	parse:  parseCursor,
	answer: answerCursor,
	fail: func(reason string) Answer {
		return Answer{Stdout: marshal(map[string]any{"permission": "deny", "agent_message": reason, "user_message": reason}), Stderr: reason + "\n", Code: 2}
	},
}

// cursorEvents is how Cursor's events read.
var cursorEvents = protocol{
	host: "cursor", session: "conversation_id", turn: "generation_id",
	optional: []string{"model", "cursor_version", "workspace_roots", "user_email", "transcript_path"},
	strings:  []string{"model", "cursor_version", "user_email", "transcript_path", "agent_message", "url", "command", "tool_output"},
	nullable: []string{"transcript_path"},
	types:    map[string]string{"workspace_roots": "[", "attachments": "[", "sandbox": "b{", "duration": "n"},
	events: map[string]eventSpec{
		"preToolUse":           {phase: PreTool, required: []string{"tool_name", "tool_input"}, optional: []string{"tool_use_id", "cwd", "agent_message"}},
		"beforeShellExecution": {phase: PreTool, required: []string{"command"}, optional: []string{"cwd", "sandbox"}},
		"beforeMCPExecution":   {phase: PreTool, required: []string{"tool_name", "tool_input"}, optional: []string{"url", "command", "cwd"}},
		"postToolUse":          {phase: PostTool, required: []string{"tool_name", "tool_input"}, optional: []string{"tool_use_id", "tool_output", "cwd", "duration"}},
		"beforeSubmitPrompt":   {phase: Prompt, required: []string{"prompt"}, optional: []string{"attachments"}},
	},
}

func parseCursor(data []byte) (*Event, error) {
	p := cursorEvents
	m, e, err := p.read(data)
	if err != nil {
		return nil, err
	}
	if err := p.kinds(m, e); err != nil {
		return nil, err
	}
	if e.Cwd == "" {
		var roots []string
		if raw, ok := m["workspace_roots"]; ok && json.Unmarshal(raw, &roots) == nil && len(roots) > 0 {
			e.Cwd = roots[0]
		}
	}
	e.Output, _ = m.str("tool_output", false)
	switch e.Name {
	case "beforeShellExecution":
		command, _ := m.str("command", false)
		e.Tool, e.NoModify = "Shell", true
		e.Input = marshalObject(map[string]any{"command": command})
	case "beforeMCPExecution":
		// tool_input is the call's arguments as JSON text; the server is
		// its url or command.
		args, err := m.str("tool_input", false)
		if err != nil {
			return nil, fmt.Errorf("cursor: %s: %w", e.Name, err)
		}
		if err := strictObject(json.RawMessage(args), &map[string]json.RawMessage{}); err != nil {
			return nil, fmt.Errorf("cursor: %s: tool_input: %w", e.Name, err)
		}
		server, _ := m.str("url", false)
		if server == "" {
			server, _ = m.str("command", false)
		}
		e.Input, e.NoModify = json.RawMessage(args), true
		e.Tool = "mcp__" + mcpServerName(server) + "__" + e.Tool
	default:
		if err := p.input(m, e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// mcpServerName names an MCP server by its URL or command, for patterns:
// the characters a pattern's tool name can hold.
func mcpServerName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '-' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "unknown"
	}
	return string(b)
}

// answerCursor writes a verdict as Cursor reads it: permission allow, deny
// or ask with agent_message, updated_input for changed input (preToolUse);
// after a call, Cursor only observes.
func answerCursor(e *Event, v Verdict) Answer {
	out := map[string]any{}
	switch e.Phase {
	case PreTool:
		switch v.Decision {
		case Pass:
			return Answer{}
		case Allow:
			out["permission"] = "allow"
		case Modify:
			if e.NoModify {
				out["permission"] = "deny"
				out["agent_message"] = modifiedReason(v)
				break
			}
			out["permission"] = "allow"
			out["updated_input"] = v.Input
		case Ask:
			out["permission"] = "ask"
		case Deny, Stop:
			out["permission"] = "deny"
		}
		if v.Reason != "" && out["agent_message"] == nil {
			out["agent_message"] = v.Reason
			out["user_message"] = v.Reason
		}
	case Prompt:
		if v.Decision == Deny || v.Decision == Stop || v.Decision == Block {
			out["continue"] = false
			out["user_message"] = v.Reason
		} else {
			return Answer{}
		}
	default:
		// postToolUse: Cursor only observes; warden records the review.
		return Answer{}
	}
	return Answer{Stdout: marshal(out)}
}
