// Package action describes what an agent asks to do — a shell command, a
// file edit, a network request, an MCP or function tool call — in one shape
// shared by everything that judges actions: the reviewer agent
// (autoreview), its deterministic first pass (triage), the measurement of
// reviewers on labelled datasets (eval) and the transcript's records
// (event). It also holds the vocabulary the transcript records: risk
// levels, authorization levels and the statuses of a review. The decisions
// and classes of harm (SPEC G7) that only warden's own judges use, and the
// turns of a conversation before an action, are in internal/vocab.
//
// An Action is built from a tool call and the boundary request it made by
// Describe, which asks the tool itself when it is a Describer (the bash and
// text_editor tools are), or read from JSON by Parse; MarshalJSON writes the
// JSON the reviewer sees and the transcript records.
package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/wardenhq/warden/internal/textcut"
)

// maxString is how many bytes of one string an action's JSON keeps;
// longer strings are cut in the middle with a marker.
const maxString = 2000

// Kind is the shape of an action; it is the "tool" key of the action JSON
// and the labelled datasets.
type Kind string

// The kinds of action.
const (
	// Shell is a command: Command is its argv.
	Shell Kind = "shell"
	// FileEdit is a write to a file: Path or Paths, Operation, OldText,
	// NewText, Patch.
	FileEdit Kind = "file_edit"
	// Network is a network request the sandbox blocked: URL or Host,
	// and the Command that made it.
	Network Kind = "network"
	// MCP is a call of an MCP or function tool: Server, ToolName,
	// Arguments.
	MCP Kind = "mcp_tool_call"
	// Sequence is a list of actions (dataset trajectories): Actions.
	Sequence Kind = "sequence"
	// Text is text the agent wrote inside a sequence: Text.
	Text Kind = "text"
)

// RequireEscalated is the sandbox_permissions value of a command that asked
// for escalated permissions.
const RequireEscalated = "require_escalated"

// markerStart opens the marker lines of the reviewer's prompt; MarshalJSON
// never writes it, so an action cannot imitate a marker.
const markerStart = "<<<"

// Action is the exact action the reviewer judges. Its JSON form (MarshalJSON)
// has one of these shapes, with keys sorted and empty fields left out:
//
//	{"tool":"shell","command":["bash","-c","…"],"cwd":"…","justification":"…","sandbox_permissions":"require_escalated"}
//	{"tool":"file_edit","path":"…","operation":"str_replace","old_text":"…","new_text":"…"}
//	{"tool":"network","url":"…","host":"…","command":["bash","-c","…"]}
//	{"tool":"mcp_tool_call","server":"…","tool_name":"…","arguments":{…}}
//
// Reason and Sandbox, when set, come from warden (why the request needs
// approval, the sandbox mode); every other value was written by the agent.
// Keys an input carried that Action has no field for are kept in Extra, so
// nothing of the requested action is lost.
type Action struct {
	// Kind is the shape of the action; its JSON key is "tool".
	Kind Kind
	// Command is the argv of a shell action, or of the command that made a
	// network request.
	Command []string
	// Cwd is the directory a command runs in.
	Cwd string
	// Justification is the agent's reason for the action, when it gave one.
	Justification string
	// SandboxPermissions is RequireEscalated when the command asked for
	// escalated permissions (see Escalated).
	SandboxPermissions string
	// Path is the file a file edit writes.
	Path string
	// Paths are the files a write touches when there are several, or when a
	// shell command writes them.
	Paths []string
	// Operation is the kind of edit: create, str_replace, insert, or the
	// editing tool's name.
	Operation string
	// OldText is the text an edit replaces.
	OldText string
	// NewText is the text an edit writes.
	NewText string
	// Patch is a patch an editing tool applies.
	Patch string
	// URL is the address a network request reaches.
	URL string
	// Host is the host (and port) a network request reaches.
	Host string
	// Server names the MCP server of a tool call; empty for plain
	// function tools.
	Server string
	// ToolName is the tool an MCP or function call calls.
	ToolName string
	// Arguments is the JSON object of an MCP or function tool call.
	Arguments json.RawMessage
	// Actions are the steps of a sequence.
	Actions []Action
	// Text is what the agent wrote, for a text step of a sequence.
	Text string
	// Reason says why warden asks for approval (which rule, which blocked
	// action).
	Reason string
	// Sandbox is the sandbox mode in force.
	Sandbox string
	// Extra holds further keys by name; their values are JSON.
	Extra map[string]json.RawMessage
}

// Escalated reports whether the command asked to run outside the sandbox.
func (a *Action) Escalated() bool { return a.SandboxPermissions == RequireEscalated }

// MarshalJSON returns the action's JSON with keys sorted and strings longer
// than 2000 bytes (maxString) cut in the middle.
func (a Action) MarshalJSON() ([]byte, error) { return a.marshal(maxString) }

// marshal returns the action's JSON: keys sorted at every level, empty fields
// left out, every string (keys included) longer than limit bytes cut in
// the middle with a marker "[… N bytes cut …]" (no cut when limit is 0
// or less). HTML characters are not escaped, so commands stay readable; the
// sequence "<<<" is written as \u003c escapes, which decode to the same
// value but cannot imitate a prompt marker.
func (a Action) marshal(limit int) ([]byte, error) {
	v, err := a.value(limit)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("action: %w", err)
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	return bytes.ReplaceAll(out, []byte(markerStart), []byte(`\u003c\u003c\u003c`)), nil
}

// value returns the action as a map ready to marshal.
func (a Action) value(limit int) (map[string]any, error) {
	if a.Kind == "" {
		return nil, errors.New("action: no tool")
	}
	cut := func(s string) string {
		if limit > 0 {
			s, _ = textcut.Middle(s, limit)
		}
		return s
	}
	m := make(map[string]any, 8)
	for k, raw := range a.Extra {
		v, err := decodeValue(raw)
		if err != nil {
			return nil, fmt.Errorf("action: key %q: %w", k, err)
		}
		m[cut(k)] = cutStrings(v, cut)
	}
	str := func(key, s string) {
		if s != "" {
			m[key] = cut(s)
		}
	}
	list := func(key string, l []string) {
		if len(l) > 0 {
			out := make([]string, len(l))
			for i, s := range l {
				out[i] = cut(s)
			}
			m[key] = out
		}
	}
	str("tool", string(a.Kind))
	list("command", a.Command)
	str("cwd", a.Cwd)
	str("justification", a.Justification)
	str("sandbox_permissions", a.SandboxPermissions)
	str("path", a.Path)
	list("paths", a.Paths)
	str("operation", a.Operation)
	str("old_text", a.OldText)
	str("new_text", a.NewText)
	str("patch", a.Patch)
	str("url", a.URL)
	str("host", a.Host)
	str("server", a.Server)
	str("tool_name", a.ToolName)
	str("text", a.Text)
	str("reason", a.Reason)
	str("sandbox", a.Sandbox)
	if a.Kind == MCP && a.Server == "" {
		// The dataset's shape always has a server, empty for plain
		// function tools.
		m["server"] = ""
	}
	if len(a.Arguments) > 0 {
		v, err := decodeValue(a.Arguments)
		if err != nil {
			return nil, fmt.Errorf("action: arguments: %w", err)
		}
		m["arguments"] = cutStrings(v, cut)
	} else if a.Kind == MCP {
		m["arguments"] = map[string]any{}
	}
	if len(a.Actions) > 0 {
		subs := make([]any, len(a.Actions))
		for i, sub := range a.Actions {
			v, err := sub.value(limit)
			if err != nil {
				return nil, fmt.Errorf("action %d of the sequence: %w", i, err)
			}
			subs[i] = v
		}
		m["actions"] = subs
	}
	return m, nil
}

// decodeValue decodes JSON keeping numbers exact.
func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// cutStrings applies cut to every string in v, map keys included.
func cutStrings(v any, cut func(string) string) any {
	switch x := v.(type) {
	case string:
		return cut(x)
	case []any:
		for i := range x {
			x[i] = cutStrings(x[i], cut)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[cut(k)] = cutStrings(e, cut)
		}
		return out
	}
	return v
}

// knownKeys are the JSON keys Action has fields for, sorted.
var knownKeys = [...]string{
	"actions", "arguments", "command", "cwd", "host", "justification", "new_text", "old_text",
	"operation", "patch", "path", "paths", "reason", "sandbox", "sandbox_permissions", "server",
	"text", "tool", "tool_name", "url",
}

// Parse reads an action object of the labelled datasets (and
// anything MarshalJSON writes):
//
//	{"tool":"shell","command":["bash","-lc","…"],"cwd":"…"}
//	{"tool":"mcp_tool_call","server":"…","tool_name":"…","arguments":{…}}
//	{"tool":"sequence","actions":[…]}, {"tool":"text","text":"…"}
//
// as well as file_edit and network actions. Keys of the wrong type, a
// missing or unknown tool, a shell action without a command and an MCP call
// without a tool name are errors; other keys are kept in Extra.
func Parse(raw json.RawMessage) (Action, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Action{}, fmt.Errorf("action: %w", err)
	}
	if obj == nil {
		return Action{}, errors.New("action: not a JSON object")
	}
	var a Action
	var errs []error
	str := func(key string, dst *string) {
		if v, ok := obj[key]; ok && !isNull(v) {
			if err := json.Unmarshal(v, dst); err != nil {
				errs = append(errs, fmt.Errorf("%q is not a string", key))
			}
		}
	}
	strs := func(key string, dst *[]string) {
		if v, ok := obj[key]; ok && !isNull(v) {
			if err := json.Unmarshal(v, dst); err != nil {
				errs = append(errs, fmt.Errorf("%q is not a list of strings", key))
			}
		}
	}
	var kind string
	str("tool", &kind)
	a.Kind = Kind(kind)
	strs("command", &a.Command)
	str("cwd", &a.Cwd)
	str("justification", &a.Justification)
	str("sandbox_permissions", &a.SandboxPermissions)
	str("path", &a.Path)
	strs("paths", &a.Paths)
	str("operation", &a.Operation)
	str("old_text", &a.OldText)
	str("new_text", &a.NewText)
	str("patch", &a.Patch)
	str("url", &a.URL)
	str("host", &a.Host)
	str("server", &a.Server)
	str("tool_name", &a.ToolName)
	str("text", &a.Text)
	str("reason", &a.Reason)
	str("sandbox", &a.Sandbox)
	if v, ok := obj["arguments"]; ok && !isNull(v) {
		if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' {
			errs = append(errs, errors.New(`"arguments" is not a JSON object`))
		} else {
			a.Arguments = append(json.RawMessage(nil), t...)
		}
	}
	if v, ok := obj["actions"]; ok && !isNull(v) {
		var subs []json.RawMessage
		if err := json.Unmarshal(v, &subs); err != nil {
			errs = append(errs, errors.New(`"actions" is not a list`))
		}
		for i, s := range subs {
			sub, err := Parse(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("actions[%d]: %w", i, err))
				continue
			}
			a.Actions = append(a.Actions, sub)
		}
	}
	for k, v := range obj {
		if i := sort.SearchStrings(knownKeys[:], k); i < len(knownKeys) && knownKeys[i] == k {
			continue
		}
		if a.Extra == nil {
			a.Extra = map[string]json.RawMessage{}
		}
		a.Extra[k] = v
	}
	if len(errs) > 0 {
		return Action{}, fmt.Errorf("action: %w", errors.Join(errs...))
	}
	switch a.Kind {
	case Shell:
		if len(a.Command) == 0 {
			return Action{}, errors.New("action: shell action without a command")
		}
	case MCP:
		if a.ToolName == "" {
			return Action{}, errors.New("action: mcp_tool_call without a tool_name")
		}
	case FileEdit:
		if a.Path == "" && len(a.Paths) == 0 {
			return Action{}, errors.New("action: file_edit without a path")
		}
	case Network, Text:
	case Sequence:
		if len(a.Actions) == 0 {
			return Action{}, errors.New("action: sequence without actions")
		}
	case "":
		return Action{}, errors.New(`action: no "tool"`)
	default:
		return Action{}, fmt.Errorf("action: unknown tool %q (want shell, file_edit, network, mcp_tool_call, sequence or text)", a.Kind)
	}
	return a, nil
}

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
