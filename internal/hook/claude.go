package hook

import "encoding/json"

// claude is Claude Code's hook protocol (code.claude.com/docs/en/hooks),
// as 2.1.197 speaks it.
var claude = &Host{
	Name:     "claude-code",
	Ask:      true,
	Modifies: true,
	Tools: map[string]Spec{
		"Bash":         {Kind: Shell, Command: "command", Escalate: "dangerouslyDisableSandbox"},
		"Read":         {Kind: Read, Path: "file_path"},
		"Write":        {Kind: Write, Path: "file_path", Content: "content"},
		"Edit":         {Kind: Edit, Path: "file_path", Old: "old_string", New: "new_string"},
		"MultiEdit":    {Kind: Edit, Path: "file_path"},
		"NotebookEdit": {Kind: Write, Path: "notebook_path", Content: "new_source"},
		"Glob":         {Kind: Search, Path: "path", Pattern: "pattern"},
		"Grep":         {Kind: Search, Path: "path", Pattern: "pattern"},
		"WebFetch":     {Kind: Fetch, URL: "url"},
		"WebSearch":    {Kind: Other},
		"Task":         {Kind: Agent},
		"Agent":        {Kind: Agent},
	},
	parse:  parseClaude,
	answer: answerClaude,
	fail:   exit2,
}

// claudeEvents is how Claude Code's events read.
var claudeEvents = protocol{
	host: "claude-code", session: "session_id", turn: "prompt_id",
	optional: []string{"transcript_path", "cwd", "permission_mode", "scratchpad_dir", "effort", "agent_id", "agent_type"},
	strings:  []string{"transcript_path", "permission_mode", "scratchpad_dir", "agent_id", "agent_type", "error"},
	nullable: []string{"transcript_path"},
	types:    map[string]string{"tool_response": "{[\"", "permission_suggestions": "[", "is_interrupt": "b", "effort": "{", "duration_ms": "n"},
	events: map[string]eventSpec{
		"PreToolUse":         {phase: PreTool, required: []string{"tool_name", "tool_input"}, optional: []string{"tool_use_id"}},
		"PermissionRequest":  {phase: Permission, required: []string{"tool_name", "tool_input"}, optional: []string{"tool_use_id", "permission_suggestions"}},
		"PostToolUse":        {phase: PostTool, required: []string{"tool_name", "tool_input", "tool_response"}, optional: []string{"tool_use_id", "duration_ms"}},
		"PostToolUseFailure": {phase: PostTool, failed: true, required: []string{"tool_name", "tool_input", "error"}, optional: []string{"tool_use_id", "is_interrupt", "duration_ms"}},
		"UserPromptSubmit":   {phase: Prompt, required: []string{"prompt"}},
	},
}

func parseClaude(data []byte) (*Event, error) {
	m, e, err := claudeEvents.readTool(data)
	if err != nil {
		return nil, err
	}
	if r, ok := m["tool_response"]; ok {
		e.Output = claudeOutput(r)
	}
	if e.Failed {
		e.Output, _ = m.str("error", false)
	}
	return e, nil
}

// claudeOutput is the text of a tool_response: a shell's stdout and
// stderr, else the response as it came.
func claudeOutput(raw json.RawMessage) string {
	var sh struct {
		Stdout *string `json:"stdout"`
		Stderr string  `json:"stderr"`
	}
	if json.Unmarshal(raw, &sh) == nil && sh.Stdout != nil {
		if sh.Stderr != "" {
			return *sh.Stdout + "\n" + sh.Stderr
		}
		return *sh.Stdout
	}
	return text(raw)
}

// answerClaude writes a verdict as Claude Code reads it: hookSpecificOutput
// with permissionDecision (PreToolUse) or decision.behavior
// (PermissionRequest), decision: block after a call, continue: false to end
// the turn.
func answerClaude(e *Event, v Verdict) Answer {
	out := map[string]any{}
	hso := map[string]any{"hookEventName": e.Name}
	switch e.Phase {
	case PreTool:
		switch v.Decision {
		case Pass:
			if v.Context == "" {
				return Answer{}
			}
		case Allow:
			hso["permissionDecision"] = "allow"
		case Modify:
			hso["permissionDecision"] = "allow"
			hso["updatedInput"] = v.Input
		case Ask:
			hso["permissionDecision"] = "ask"
		case Deny, Stop:
			hso["permissionDecision"] = "deny"
			if v.Decision == Stop {
				out["continue"] = false
				out["stopReason"] = v.Reason
			}
		}
		if v.Reason != "" && v.Decision != Pass {
			hso["permissionDecisionReason"] = v.Reason
		}
	case Permission:
		switch v.Decision {
		case Pass, Ask:
			// Claude Code shows its own permission dialog.
			return Answer{}
		case Allow:
			hso["decision"] = map[string]any{"behavior": "allow"}
		case Modify:
			hso["decision"] = map[string]any{"behavior": "allow", "updatedInput": v.Input}
		case Deny, Stop:
			hso["decision"] = map[string]any{"behavior": "deny", "message": v.Reason, "interrupt": v.Decision == Stop}
		}
	case PostTool:
		if v.Decision == Block {
			out["decision"] = "block"
			out["reason"] = v.Reason
		}
		if v.Decision != Block && v.Context == "" {
			return Answer{}
		}
	case Prompt:
		if v.Decision == Deny || v.Decision == Block || v.Decision == Stop {
			out["decision"] = "block"
			out["reason"] = v.Reason
		}
		if v.Context == "" && out["decision"] == nil {
			return Answer{}
		}
	}
	if v.Context != "" && e.Phase != Permission {
		hso["additionalContext"] = v.Context
	}
	if len(hso) > 1 {
		out["hookSpecificOutput"] = hso
	}
	return Answer{Stdout: marshal(out)}
}

// exit2 is the deny of a hook that could not decide for the hosts that read
// exit code 2 as a block, with the reason on stderr (Claude Code, Codex,
// Gemini CLI).
func exit2(reason string) Answer { return Answer{Stderr: reason + "\n", Code: 2} }
