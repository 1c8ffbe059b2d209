package hook

// codex is Codex's hook protocol (codex-rs/hooks: the schemas under
// schema/generated), as 0.171.0 speaks it. Codex reads only a denial from
// a PreToolUse hook: an approval is no output at all (allow and ask are
// reported as a failed hook and the call proceeds), it cannot take changed
// input, and it has no ask: an escalation blocks until decided.
var codex = &Host{
	Name: "codex",
	Tools: map[string]Spec{
		// exec_command, as Codex names it in hook events.
		"Bash":        {Kind: Shell, Command: "command", Cwd: "workdir"},
		"apply_patch": {Kind: Edit},
	},
	parse:  parseCodex,
	answer: answerCodex,
	fail:   exit2,
}

// codexEvents is how Codex's events read.
var codexEvents = protocol{
	host: "codex", session: "session_id", turn: "turn_id", required: []string{"cwd"},
	optional: []string{"transcript_path", "model", "permission_mode", "agent_id", "agent_type"},
	strings:  []string{"transcript_path", "model", "permission_mode", "agent_id", "agent_type", "tool_response"},
	nullable: []string{"transcript_path"},
	events: map[string]eventSpec{
		"PreToolUse":        {phase: PreTool, required: []string{"tool_name", "tool_input"}, optional: []string{"tool_use_id"}},
		"PermissionRequest": {phase: Permission, required: []string{"tool_name", "tool_input"}},
		"PostToolUse":       {phase: PostTool, required: []string{"tool_name", "tool_input", "tool_response"}, optional: []string{"tool_use_id"}},
		"UserPromptSubmit":  {phase: Prompt, required: []string{"prompt"}},
	},
}

func parseCodex(data []byte) (*Event, error) {
	m, e, err := codexEvents.readTool(data)
	if err != nil {
		return nil, err
	}
	e.Output, _ = m.str("tool_response", false) // a plain string (checked)
	if e.Phase == Permission && e.Tool == "NetworkAccess" {
		// A request for the network is a request for a command's network.
		e.Tool = "Bash"
	}
	return e, nil
}

// answerCodex writes a verdict as Codex reads it: nothing for an approval,
// permissionDecision: deny otherwise (a modification is a denial naming the
// modified input, an end of the turn a denial), decision.behavior for a
// PermissionRequest, decision: block after a call.
func answerCodex(e *Event, v Verdict) Answer {
	switch e.Phase {
	case PreTool:
		reason := v.Reason
		switch v.Decision {
		case Pass, Allow:
			return Answer{}
		case Modify:
			reason = modifiedReason(v)
		case Ask:
			// Never reached: Codex has no ask, and the hook decides.
			reason = "warden: a person must decide this call and none was reachable: " + v.Reason
		}
		return Answer{Stdout: marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": e.Name, "permissionDecision": "deny", "permissionDecisionReason": reason}})}
	case Permission:
		d := map[string]any{"behavior": "deny", "message": v.Reason}
		switch v.Decision {
		case Pass, Ask:
			return Answer{}
		case Allow:
			d = map[string]any{"behavior": "allow"}
		case Modify:
			d["message"] = modifiedReason(v)
		}
		return Answer{Stdout: marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": e.Name, "decision": d}})}
	case PostTool:
		if v.Decision == Block {
			return Answer{Stdout: marshal(map[string]any{"decision": "block", "reason": v.Reason})}
		}
	case Prompt:
		if v.Decision == Deny || v.Decision == Stop || v.Decision == Block {
			return Answer{Stdout: marshal(map[string]any{"decision": "block", "reason": v.Reason})}
		}
		if v.Context != "" {
			return Answer{Stdout: marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": e.Name, "additionalContext": v.Context}})}
		}
	}
	return Answer{}
}

// modifiedReason is the denial of a host that cannot take changed input:
// it names the input warden would run instead.
func modifiedReason(v Verdict) string {
	r := "warden would allow this call only changed, and this agent cannot take changed input; call it again as: " + string(v.Input)
	if v.Reason != "" {
		r += " (" + v.Reason + ")"
	}
	return r
}
