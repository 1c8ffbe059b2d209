// Package mcp decides which calls of MCP tools need approval (SPEC G2):
// the approval modes, and the annotations servers declare for their tools,
// which are the only hints a call is judged by.
package mcp

import (
	"fmt"

	"github.com/wardenhq/warden/boundary"
)

// Mode says which MCP tool calls need approval (SPEC G2).
type Mode string

// The MCP approval modes.
const (
	// Auto asks for tools that are not read-only and are destructive or
	// open-world. It is the default.
	Auto Mode = "auto"
	// Prompt asks for every call.
	Prompt Mode = "prompt"
	// Writes asks for every tool that is not read-only.
	Writes Mode = "writes"
	// Approve asks for none: the server's tools are trusted.
	Approve Mode = "approve"
)

// ParseMode reads a mode; "" is Auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return Auto, nil
	case Auto, Prompt, Writes, Approve:
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
func (m Mode) NeedsApproval(declared Annotations) (bool, string) {
	switch m {
	case Approve:
		return false, ""
	case Prompt:
		return true, "every MCP call needs approval (mode prompt)"
	case Writes:
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

// Tools remembers the annotations servers declared for their tools, so
// that a call is judged by what was declared and nothing the call carries.
// The zero value is empty and ready to use; it is not safe for concurrent
// writes.
type Tools struct {
	declared map[string]Annotations
}

// Declare records the annotations server declared for tool.
func (t *Tools) Declare(server, tool string, a Annotations) {
	if t.declared == nil {
		t.declared = map[string]Annotations{}
	}
	t.declared[server+"\x00"+tool] = a
}

// Declared returns what server declared for tool, and whether it declared
// the tool at all.
func (t *Tools) Declared(server, tool string) (Annotations, bool) {
	a, ok := t.declared[server+"\x00"+tool]
	return a, ok
}

// Check returns the boundary request a call to server's tool needs in mode
// m, or nil when it needs none.
func (t *Tools) Check(m Mode, server, tool string) *boundary.Request {
	a, known := t.Declared(server, tool)
	need, why := m.NeedsApproval(a)
	if !need {
		return nil
	}
	if !known {
		why = "the server did not declare this tool; " + why
	}
	return &boundary.Request{Permission: boundary.MCP, Server: server, Tool: tool, Reason: why}
}
