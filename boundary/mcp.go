package boundary

import "fmt"

// MCPMode says which MCP tool calls need approval (SPEC G2).
type MCPMode string

// The MCP approval modes.
const (
	// MCPAuto asks for tools that are not read-only and are destructive or
	// open-world. It is the default.
	MCPAuto MCPMode = "auto"
	// MCPPrompt asks for every call.
	MCPPrompt MCPMode = "prompt"
	// MCPWrites asks for every tool that is not read-only.
	MCPWrites MCPMode = "writes"
	// MCPApprove asks for none: the server's tools are trusted.
	MCPApprove MCPMode = "approve"
)

// ParseMCPMode reads a mode; "" is MCPAuto.
func ParseMCPMode(s string) (MCPMode, error) {
	switch m := MCPMode(s); m {
	case "":
		return MCPAuto, nil
	case MCPAuto, MCPPrompt, MCPWrites, MCPApprove:
		return m, nil
	}
	return "", fmt.Errorf("MCP approval mode %q: want auto, prompt, writes or approve", s)
}

// Annotations are the hints an MCP server declared for a tool in its
// tools/list answer. A nil hint was not declared.
type Annotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// ReadOnly reports the read-only hint; missing means false.
func (a Annotations) ReadOnly() bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// Destructive reports the destructive hint; missing means true, as the MCP
// specification says.
func (a Annotations) Destructive() bool { return a.DestructiveHint == nil || *a.DestructiveHint }

// OpenWorld reports the open-world hint; missing means true.
func (a Annotations) OpenWorld() bool { return a.OpenWorldHint == nil || *a.OpenWorldHint }

// NeedsApproval reports whether a call to a tool with the declared
// annotations needs approval in mode m, and why. Annotations must come from
// what the server declared for the tool, never from the call: a tool the
// server did not declare has no hints, so it counts as destructive and
// open-world.
func (m MCPMode) NeedsApproval(declared Annotations) (bool, string) {
	switch m {
	case MCPApprove:
		return false, ""
	case MCPPrompt:
		return true, "every MCP call needs approval (mode prompt)"
	case MCPWrites:
		if declared.ReadOnly() {
			return false, ""
		}
		return true, "the tool is not declared read-only (mode writes)"
	}
	if declared.ReadOnly() {
		return false, ""
	}
	switch {
	case declared.Destructive() && declared.OpenWorld():
		return true, "the tool may be destructive and reach the open world (declared or by default)"
	case declared.Destructive():
		return true, "the tool may be destructive (declared or by default)"
	case declared.OpenWorld():
		return true, "the tool may reach the open world (declared or by default)"
	}
	return false, ""
}

// MCPTools remembers the annotations servers declared for their tools, so
// that a call is judged by what was declared and nothing the call carries.
// The zero value is empty and ready to use; it is not safe for concurrent
// writes.
type MCPTools struct {
	declared map[string]Annotations
}

// Declare records the annotations server declared for tool.
func (t *MCPTools) Declare(server, tool string, a Annotations) {
	if t.declared == nil {
		t.declared = map[string]Annotations{}
	}
	t.declared[server+"\x00"+tool] = a
}

// Declared returns what server declared for tool, and whether it declared
// the tool at all.
func (t *MCPTools) Declared(server, tool string) (Annotations, bool) {
	a, ok := t.declared[server+"\x00"+tool]
	return a, ok
}

// Check returns the boundary request a call to server's tool needs in mode
// m, or nil when it needs none.
func (t *MCPTools) Check(m MCPMode, server, tool string) *Request {
	a, known := t.Declared(server, tool)
	need, why := m.NeedsApproval(a)
	if !need {
		return nil
	}
	if !known {
		why = "the server did not declare this tool; " + why
	}
	return &Request{Kind: MCP, Server: server, Tool: tool, Reason: why}
}
