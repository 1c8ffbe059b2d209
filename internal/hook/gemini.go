package hook

import (
	"encoding/json"
	"fmt"
)

// gemini is Gemini CLI's hook protocol (docs/hooks in
// google-gemini/gemini-cli), as 0.61.0 speaks it. Headless Gemini hangs on
// "ask": an escalation never answers it, it waits for a decision.
var gemini = &Host{
	Name:     "gemini",
	Modifies: true,
	Tools: map[string]Spec{
		"run_shell_command":   {Kind: Shell, Command: "command", Cwd: "dir_path", Escalate: "additional_permissions"},
		"read_file":           {Kind: Read, Path: "file_path", Alt: "absolute_path"},
		"read_many_files":     {Kind: Other},
		"list_directory":      {Kind: Search, Path: "dir_path", Alt: "path"},
		"glob":                {Kind: Search, Path: "dir_path", Alt: "path", Pattern: "pattern"},
		"search_file_content": {Kind: Search, Path: "dir_path", Alt: "path", Pattern: "pattern"},
		"grep":                {Kind: Search, Path: "dir_path", Alt: "path", Pattern: "pattern"},
		"write_file":          {Kind: Write, Path: "file_path", Content: "content"},
		"replace":             {Kind: Edit, Path: "file_path", Old: "old_string", New: "new_string"},
		"web_fetch":           {Kind: Fetch, URL: "url"},
		"google_web_search":   {Kind: Other},
		"save_memory":         {Kind: Other},
	},
	parse:  parseGemini,
	answer: answerGemini,
	fail:   exit2,
}

// geminiEvents is how Gemini CLI's events read.
var geminiEvents = protocol{
	host: "gemini", session: "session_id",
	optional: []string{"transcript_path", "cwd", "timestamp"},
	strings:  []string{"transcript_path", "timestamp", "original_request_name"},
	nullable: []string{"transcript_path"},
	types:    map[string]string{"mcp_context": "{"},
	events: map[string]eventSpec{
		"BeforeTool":  {phase: PreTool, required: []string{"tool_name", "tool_input"}, optional: []string{"mcp_context", "original_request_name"}},
		"AfterTool":   {phase: PostTool, required: []string{"tool_name", "tool_input", "tool_response"}, optional: []string{"mcp_context", "original_request_name"}},
		"BeforeAgent": {phase: Prompt, required: []string{"prompt"}},
	},
}

func parseGemini(data []byte) (*Event, error) {
	m, e, err := geminiEvents.readTool(data)
	if err != nil {
		return nil, err
	}
	if raw, ok := m["tool_response"]; ok {
		var r struct {
			LLMContent    json.RawMessage `json:"llmContent"`
			ReturnDisplay json.RawMessage `json:"returnDisplay"`
			Error         json.RawMessage `json:"error"`
		}
		if err := strictObject(raw, &r); err != nil {
			return nil, fmt.Errorf("gemini: %s: tool_response: %w", e.Name, err)
		}
		e.Output = text(r.LLMContent)
		if len(r.Error) > 0 && string(r.Error) != "null" {
			e.Failed = true
		}
	}
	return e, nil
}

// answerGemini writes a verdict as Gemini CLI reads it: decision allow or
// deny with a reason, hookSpecificOutput.tool_input for changed input,
// continue: false to end the turn; after a call, deny replaces the result.
func answerGemini(e *Event, v Verdict) Answer {
	out := map[string]any{}
	switch e.Phase {
	case PreTool:
		switch v.Decision {
		case Pass:
			return Answer{}
		case Allow:
			out["decision"] = "allow"
		case Modify:
			out["decision"] = "allow"
			out["hookSpecificOutput"] = map[string]any{"hookEventName": e.Name, "tool_input": v.Input}
		case Deny, Stop, Ask:
			out["decision"] = "deny"
			out["reason"] = v.Reason
			if v.Decision == Stop {
				out["continue"] = false
				out["stopReason"] = v.Reason
			}
		}
	case PostTool:
		if v.Decision != Block {
			return Answer{}
		}
		out["decision"] = "deny"
		out["reason"] = v.Reason
	case Prompt:
		switch {
		case v.Decision == Deny || v.Decision == Stop || v.Decision == Block:
			out["decision"] = "deny"
			out["reason"] = v.Reason
		case v.Context != "":
			out["hookSpecificOutput"] = map[string]any{"hookEventName": e.Name, "additionalContext": v.Context}
		default:
			return Answer{}
		}
	default:
		return Answer{}
	}
	return Answer{Stdout: marshal(out)}
}
