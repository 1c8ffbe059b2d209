package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/tool"
)

// Kind is what a host's tool is, for the judges of actions: the same
// judgement whatever the host calls it.
type Kind string

// The kinds of host tools.
const (
	// Shell runs a command line (Spec.Command; Spec.Cwd its directory).
	Shell Kind = "shell"
	// Read reads a file (Spec.Path): judged as the command that reads it,
	// so that a read of a credential is judged as one.
	Read Kind = "read"
	// Search reads files under a directory (Spec.Path) for a pattern
	// (Spec.Pattern): judged as the grep that does it.
	Search Kind = "search"
	// Write writes a whole file (Spec.Path, Spec.Content): judged as a
	// text_editor create.
	Write Kind = "write"
	// Edit replaces text in a file (Spec.Path, Spec.Old, Spec.New): judged
	// as a text_editor str_replace.
	Edit Kind = "edit"
	// Fetch reaches a URL (Spec.URL): judged as a network request.
	Fetch Kind = "fetch"
	// MCP calls a tool of an MCP server; the server and tool come from the
	// tool's name (Host.MCP).
	MCP Kind = "mcp"
	// Agent starts a sub-agent.
	Agent Kind = "agent"
	// Other is any other tool: judged as a function call with its
	// arguments.
	Other Kind = "other"
)

// Spec says what one host tool is and which of its input fields carry what
// the judges look at. Empty field names mean the tool has none.
type Spec struct {
	Kind Kind
	// Command is the field of a shell tool's command line.
	Command string
	// Cwd is the field of the directory a shell command runs in.
	Cwd string
	// Path is the field of the file (or directory) read or written; Paths
	// lists alternatives, the first present winning.
	Path string
	// Alt is another name of the Path field some versions send.
	Alt string
	// Content is the field of the text a Write writes.
	Content string
	// Old and New are the fields of an Edit's replaced and new text.
	Old, New string
	// Pattern is the field of a Search's pattern.
	Pattern string
	// URL is the field of a Fetch's address.
	URL string
	// Escalate is the field of a shell tool by which the model asks to run
	// with more than a sandbox allows: true runs outside it (Claude Code's
	// dangerouslyDisableSandbox); an object names the permissions wanted
	// (Gemini CLI's additional_permissions: network, fileSystem.read and
	// .write). Under warden's sandbox it is a boundary request (SPEC X4).
	Escalate string
}

// hostTool is a host's tool as warden's tools are seen by policies and
// judges: a tool.Tool named as the host names it, describing its calls as
// actions (action.Describer) by its Spec. It never runs: the host runs it.
type hostTool struct {
	name string
	spec Spec
	host *Host
	cwd  string // the session's working directory, for relative paths
}

var (
	_ tool.Tool        = (*hostTool)(nil)
	_ action.Describer = (*hostTool)(nil)
)

// Info implements tool.Tool.
func (t *hostTool) Info() tool.Info { return tool.Info{Name: t.name} }

// Run implements tool.Tool; a host's tool runs in the host, never here.
func (t *hostTool) Run(context.Context, json.RawMessage) (string, error) {
	return "", errors.New("a host's tool runs in the host")
}

// str returns the string field name of args ("" when absent or empty).
func str(args map[string]json.RawMessage, name string) (string, bool, error) {
	if name == "" {
		return "", false, nil
	}
	raw, ok := args[name]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, fmt.Errorf("%s: want a string", name)
	}
	return s, true, nil
}

// fields reads the fields of a call's input its Spec names, checking
// their types: a field of the wrong type is an error, never skipped.
type fields struct {
	command, cwd, path, content, old, new, pattern, url string
}

func (t *hostTool) fields(input json.RawMessage) (fields, error) {
	var f fields
	args := map[string]json.RawMessage{}
	if len(input) > 0 {
		if err := json.Unmarshal(input, &args); err != nil {
			return f, fmt.Errorf("tool_input: want an object: %w", err)
		}
	}
	var err error
	get := func(dst *string, name string) bool {
		if err != nil {
			return false
		}
		var ok bool
		*dst, ok, err = str(args, name)
		return ok
	}
	get(&f.command, t.spec.Command)
	get(&f.cwd, t.spec.Cwd)
	if !get(&f.path, t.spec.Path) {
		get(&f.path, t.spec.Alt)
	}
	get(&f.content, t.spec.Content)
	get(&f.old, t.spec.Old)
	get(&f.new, t.spec.New)
	get(&f.pattern, t.spec.Pattern)
	get(&f.url, t.spec.URL)
	if err != nil {
		return f, fmt.Errorf("tool_input of %s: %w", t.name, err)
	}
	if t.spec.Kind == Shell && strings.TrimSpace(f.command) == "" {
		return f, fmt.Errorf("tool_input of %s: no command", t.name)
	}
	return f, nil
}

// abs makes a path the host gave absolute, against the tool's directory.
func (t *hostTool) abs(p string) string {
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return p
	}
	if t.cwd == "" {
		return p
	}
	return filepath.Join(t.cwd, p)
}

// DescribeAction implements action.Describer: the call's action by the
// tool's Spec, whatever boundary request it makes (an exec rule's prompt
// on a shell command is that command; an escalated call is the call).
func (t *hostTool) DescribeAction(call tool.Call, req *boundary.Request) (action.Action, bool) {
	f, err := t.fields(call.Arguments)
	if err != nil {
		return action.Action{}, false
	}
	switch t.spec.Kind {
	case Shell:
		cwd := f.cwd
		if cwd == "" {
			cwd = t.cwd
		} else {
			cwd = t.abs(cwd)
		}
		return action.Action{Kind: action.Shell, Command: action.BashArgv(f.command), Cwd: cwd}, true
	case Read:
		if f.path == "" {
			return action.Action{}, false
		}
		return action.Action{Kind: action.Shell, Command: action.BashArgv("cat -- " + shell.Quote(t.abs(f.path))), Cwd: t.cwd,
			Extra: map[string]json.RawMessage{"host_tool": action.RawString(t.name)}}, true
	case Search:
		dir := t.abs(f.path)
		if dir == "" {
			dir = "."
		}
		return action.Action{Kind: action.Shell, Command: action.BashArgv("grep -r -e " + shell.Quote(f.pattern) + " -- " + shell.Quote(dir)), Cwd: t.cwd,
			Extra: map[string]json.RawMessage{"host_tool": action.RawString(t.name)}}, true
	case Write:
		if f.path == "" {
			return action.Action{}, false
		}
		return action.Action{Kind: action.FileEdit, Path: t.abs(f.path), Operation: "create", NewText: f.content}, true
	case Edit:
		if f.path == "" {
			return action.Action{}, false
		}
		return action.Action{Kind: action.FileEdit, Path: t.abs(f.path), Operation: "str_replace", OldText: f.old, NewText: f.new}, true
	case Fetch:
		a := action.Action{Kind: action.Network, URL: f.url}
		if u, err := url.Parse(f.url); err == nil {
			a.Host = u.Host
		}
		return a, true
	case MCP:
		server, name, ok := t.host.mcpName(t.name)
		if !ok {
			return action.Action{}, false
		}
		return action.Action{Kind: action.MCP, Server: server, ToolName: name, Arguments: call.Arguments}, true
	}
	return action.Action{}, false
}

// Tool returns the tool name of host, as policies and judges see it: its
// Spec from the host's table, an MCP tool by its name, else Other.
func (h *Host) Tool(name, cwd string) tool.Tool {
	if h.tool != nil {
		return h.tool(name, cwd)
	}
	spec, ok := h.Tools[name]
	if !ok {
		spec = Spec{Kind: Other}
		if _, _, mcp := h.mcpName(name); mcp {
			spec.Kind = MCP
		}
	}
	return &hostTool{name: name, spec: spec, host: h, cwd: cwd}
}

// mcpName splits the name of an MCP tool as the host names it
// (mcp__SERVER__TOOL) into the server and the tool.
func (h *Host) mcpName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}

// shellCommand returns the command line of a call of a shell tool, and
// whether the tool is one.
func (h *Host) shellCommand(t tool.Tool, input json.RawMessage) (string, bool) {
	ht, ok := t.(*hostTool)
	if !ok || ht.spec.Kind != Shell {
		return "", false
	}
	f, err := ht.fields(input)
	if err != nil {
		return "", false
	}
	return f.command, true
}
