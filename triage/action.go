package triage

import (
	"encoding/json"
	"fmt"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/autoreview"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/tool"
)

// Kind is the shape of an action; the values are those of the action JSON
// of package autoreview and of the labelled datasets.
type Kind string

// The kinds of action.
const (
	// KindShell is a command: Command is its argv, such as
	// ["bash", "-lc", SCRIPT].
	KindShell Kind = autoreview.ToolShell
	// KindMCP is a call of an MCP or function tool: Server, Tool and
	// Arguments.
	KindMCP Kind = autoreview.ToolMCP
	// KindFileEdit is a write to files: Path or Paths, OldText, NewText,
	// Patch.
	KindFileEdit Kind = autoreview.ToolFileEdit
	// KindNetwork is a network request the sandbox blocked: URL or Host,
	// and the Command that made it.
	KindNetwork Kind = autoreview.ToolNetwork
	// KindSequence is a list of Actions (dataset trajectories).
	KindSequence Kind = autoreview.ToolSequence
	// KindText is text the agent wrote inside a sequence.
	KindText Kind = autoreview.ToolText
)

// Turn is one turn of the conversation before an action.
type Turn struct {
	// Role is "user", "assistant" or "tool" (tool output, untrusted).
	Role string `json:"role"`
	// Content is the turn's text.
	Content string `json:"content"`
}

// Action is what Judge decides: the requested action and, as weak
// evidence, the conversation that led to it. Build one with FromRequest
// (what the agent loop has), FromApproval, FromReview or FromDataset (the
// labelled datasets' action objects).
type Action struct {
	// Kind is the shape of the action.
	Kind Kind
	// Command is the argv of a shell action, or of the command that made a
	// network request. ["bash", "-lc", SCRIPT] is judged by SCRIPT.
	Command []string
	// Cwd is the directory the command runs in; relative paths are judged
	// against it. Empty means an unknown workspace directory.
	Cwd string
	// Escalated reports that the command asked to run outside the sandbox.
	Escalated bool
	// Server names the MCP server of a tool call (may be empty).
	Server string
	// Tool is the tool an MCP or function call calls.
	Tool string
	// Arguments is the JSON object of an MCP or function tool call.
	Arguments json.RawMessage
	// Path and Paths are the files a file edit writes.
	Path  string
	Paths []string
	// OldText, NewText and Patch are the edit's content.
	OldText, NewText, Patch string
	// URL and Host are what a network request reaches.
	URL, Host string
	// Text is the text of a KindText step.
	Text string
	// Actions are the steps of a KindSequence action.
	Actions []Action

	// Request is the user's request, when known (weak evidence).
	Request string
	// Transcript holds the turns before the action, not including
	// Request (weak evidence; tool turns are untrusted).
	Transcript []Turn
}

// FromReview converts the action JSON model of package autoreview.
func FromReview(r autoreview.Action) Action {
	a := Action{
		Kind:      Kind(r.Tool),
		Command:   r.Command,
		Cwd:       r.Cwd,
		Escalated: r.SandboxPermissions == autoreview.SandboxEscalated,
		Server:    r.Server,
		Tool:      r.ToolName,
		Arguments: r.Arguments,
		Path:      r.Path,
		Paths:     r.Paths,
		OldText:   r.OldText,
		NewText:   r.NewText,
		Patch:     r.Patch,
		URL:       r.URL,
		Host:      r.Host,
		Text:      r.Text,
	}
	for _, s := range r.Actions {
		a.Actions = append(a.Actions, FromReview(s))
	}
	return a
}

// FromDataset reads an action object of the labelled datasets
// ({"tool":"shell","command":[…],"cwd":…}, {"tool":"mcp_tool_call",…},
// {"tool":"sequence","actions":[…]}, …) with autoreview.ActionFromDataset.
func FromDataset(raw json.RawMessage) (Action, error) {
	r, err := autoreview.ActionFromDataset(raw)
	if err != nil {
		return Action{}, fmt.Errorf("triage: %w", err)
	}
	return FromReview(r), nil
}

// FromRequest describes the boundary request req made while call ran, or
// the call itself when req is nil, as autoreview.NewAction does.
func FromRequest(req *boundary.Request, call tool.Call) (Action, error) {
	r, err := autoreview.NewAction(req, call)
	if err != nil {
		return Action{}, fmt.Errorf("triage: %w", err)
	}
	return FromReview(r), nil
}

// FromApproval describes what an approval request asks (its boundary
// request, or the call), with its conversation as context: the first user
// message is the Request, the later messages the Transcript.
func FromApproval(req *approval.Request) (Action, error) {
	a, err := FromRequest(req.Boundary, req.Call)
	if err != nil {
		return Action{}, err
	}
	a.Request, a.Transcript = Context(req.History)
	return a, nil
}

// Context splits a conversation into the user's request (its first user
// message) and the turns after it. System messages are left out.
func Context(history []chat.Message) (string, []Turn) {
	var request string
	var turns []Turn
	for _, m := range history {
		switch m.Role {
		case chat.User:
			if request == "" && len(turns) == 0 {
				request = m.Content
				continue
			}
		case chat.Assistant, chat.Tool:
		default:
			continue
		}
		turns = append(turns, Turn{Role: string(m.Role), Content: m.Content})
	}
	return request, turns
}
