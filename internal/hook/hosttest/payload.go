package hosttest

import "encoding/json"

// Policy is an approval policy that takes a shell command of any host to
// each decision: rm is rejected, shutdown terminates, ls is approved, and
// anything else is escalated to a person.
const Policy = `approvers:
  - name: auto
    decision: reject
    explanation: no deleting here
    tools: ["Bash(command='rm ", "run_shell_command(command='rm ", "Shell(command='rm "]
  - name: auto
    decision: terminate
    explanation: stop right there
    tools: "*(command='shutdown"
  - name: auto
    decision: approve
    tools: "*(command='ls"
  - name: human
    tools: "*"
`

// PreTool is a pre-tool event of host (claude-code, codex, gemini, cursor)
// in session s for a shell command, as the host sends it.
func PreTool(host, s, cmd string) string {
	c, _ := json.Marshal(cmd)
	q, _ := json.Marshal(s)
	switch host {
	case "claude-code":
		return `{"session_id":` + string(q) + `,"transcript_path":"/t","cwd":"/w","prompt_id":"p1","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + string(c) + `,"description":"d"},"tool_use_id":"toolu_1"}`
	case "codex":
		return `{"session_id":` + string(q) + `,"turn_id":"u1","transcript_path":null,"cwd":"/w","model":"m","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + string(c) + `},"tool_use_id":"call_1"}`
	case "gemini":
		return `{"session_id":` + string(q) + `,"transcript_path":"/t","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":` + string(c) + `,"description":"d"}}`
	case "cursor":
		return `{"conversation_id":` + string(q) + `,"generation_id":"g1","hook_event_name":"beforeShellExecution","command":` + string(c) + `,"cwd":"/w","workspace_roots":["/w"]}`
	}
	panic(host)
}

// PostTool is a post-tool event of host in session s for the shell
// command cmd, which printed out, as the host sends it.
func PostTool(host, s, cmd, out string) string {
	o, _ := json.Marshal(out)
	c, _ := json.Marshal(cmd)
	q, _ := json.Marshal(s)
	switch host {
	case "claude-code":
		return `{"session_id":` + string(q) + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":` + string(c) + `},"tool_response":{"stdout":` + string(o) + `,"stderr":"","interrupted":false},"tool_use_id":"t"}`
	case "codex":
		return `{"session_id":` + string(q) + `,"cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":` + string(c) + `},"tool_response":` + string(o) + `,"tool_use_id":"t"}`
	case "gemini":
		return `{"session_id":` + string(q) + `,"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":` + string(c) + `},"tool_response":{"llmContent":` + string(o) + `,"returnDisplay":"x"}}`
	case "cursor":
		return `{"conversation_id":` + string(q) + `,"hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":` + string(c) + `},"tool_output":` + string(o) + `}`
	}
	panic(host)
}
