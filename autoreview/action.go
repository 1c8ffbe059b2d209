package autoreview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// MaxActionString is how many bytes of one string an action's JSON keeps;
// longer strings are cut in the middle with a marker.
const MaxActionString = 2000

// The values of Action.Tool.
const (
	// ToolShell is a command: Command is its argv.
	ToolShell = "shell"
	// ToolFileEdit is a write to a file: Path, Operation, OldText, NewText,
	// Patch.
	ToolFileEdit = "file_edit"
	// ToolNetwork is a network request the sandbox blocked: URL or Host,
	// and the Command that made it.
	ToolNetwork = "network"
	// ToolMCP is a call of an MCP or function tool: Server, ToolName,
	// Arguments.
	ToolMCP = "mcp_tool_call"
	// ToolSequence is a list of actions (dataset trajectories): Actions.
	ToolSequence = "sequence"
	// ToolText is text the agent wrote inside a sequence: Text.
	ToolText = "text"
)

// SandboxEscalated is the sandbox_permissions value of a command that asked
// for escalated permissions.
const SandboxEscalated = "require_escalated"

// Action is the exact action the reviewer judges. Its JSON form (Marshal)
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
	// Tool is the shape: ToolShell, ToolFileEdit, ToolNetwork, ToolMCP,
	// ToolSequence or ToolText.
	Tool string
	// Command is the argv of a shell action, or of the command that made a
	// network request.
	Command []string
	// Cwd is the directory a command runs in.
	Cwd string
	// Justification is the agent's reason for the action, when it gave one.
	Justification string
	// SandboxPermissions is SandboxEscalated when the command asked for
	// escalated permissions.
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

// ActionJSON returns the JSON of the action req asks to perform, made by
// call (see NewAction), with keys sorted and strings longer than
// MaxActionString cut in the middle.
func ActionJSON(req *boundary.Request, call tool.Call) ([]byte, error) {
	a, err := NewAction(req, call)
	if err != nil {
		return nil, err
	}
	return a.Marshal(MaxActionString)
}

// NewAction describes the boundary request req, made while call ran. With
// req nil it describes the call itself: the bash tool as a shell action, the
// text_editor tool as a file edit, anything else as a function call
// (mcp_tool_call with no server).
//
// A shell command becomes the argv ["bash", "-c", COMMAND], which is how the
// bash tool runs it, unless the call passed an argv array as "command". The
// working directory, justification and sandbox permissions come from the
// request or from the call's "cwd" (or "workdir"), "justification" and
// "sandbox_permissions" arguments. A write made by a shell command (a
// request with a Command, or a call of the bash tool) is a shell action with
// Paths; any other write is a file edit.
func NewAction(req *boundary.Request, call tool.Call) (Action, error) {
	args := callArgs(call)
	if req == nil {
		return actionOfCall(call, args), nil
	}
	var a Action
	switch req.Kind {
	case boundary.Exec:
		a = shellAction(req.Command, call, args)
	case boundary.Write:
		if req.Command != "" || call.Function == "bash" {
			a = shellAction(req.Command, call, args)
			a.Paths = append([]string(nil), req.Paths...)
			break
		}
		a = fileEdit(call, args)
		switch {
		case len(req.Paths) == 1:
			a.Path = req.Paths[0]
		case len(req.Paths) > 1:
			a.Paths = append([]string(nil), req.Paths...)
		}
	case boundary.Network:
		a = Action{Tool: ToolNetwork, URL: argString(args, "url"), Host: argString(args, "host")}
		if req.Command != "" {
			a.Command = bashArgv(req.Command)
		} else if sh := shellAction("", call, args); len(sh.Command) > 0 {
			a.Command = sh.Command
		}
		if a.Host == "" && a.URL != "" {
			if u, err := url.Parse(a.URL); err == nil {
				a.Host = u.Host
			}
		}
		if a.URL == "" && a.Host == "" && len(a.Command) == 0 {
			a.ToolName, a.Arguments = call.Function, call.Arguments
		}
	case boundary.MCP:
		a = Action{Tool: ToolMCP, Server: req.Server, ToolName: req.Tool, Arguments: call.Arguments}
		if a.ToolName == "" {
			a.ToolName = call.Function
		}
		if call.ParseError != "" {
			a.Extra = map[string]json.RawMessage{"arguments_raw": jsonString(call.ArgumentsRaw)}
		}
	default:
		return Action{}, fmt.Errorf("boundary request of unknown kind %q", req.Kind)
	}
	if req.Justification != "" {
		a.Justification = req.Justification
	}
	if req.Escalated {
		a.SandboxPermissions = SandboxEscalated
	}
	a.Reason, a.Sandbox = req.Reason, req.Sandbox
	return a, nil
}

// callArgs decodes a call's arguments into a map; nil when they did not
// parse.
func callArgs(call tool.Call) map[string]json.RawMessage {
	if call.ParseError != "" || len(call.Arguments) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(call.Arguments, &m) != nil {
		return nil
	}
	return m
}

// argString returns the string argument key, or "".
func argString(args map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := args[key]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// bashArgv is how the bash tool runs a command line.
func bashArgv(command string) []string { return []string{"bash", "-c", command} }

// shellAction describes command (or, when empty, the command the call's
// arguments hold) as a shell action.
func shellAction(command string, call tool.Call, args map[string]json.RawMessage) Action {
	a := Action{Tool: ToolShell}
	var argv []string
	if raw, ok := args["command"]; ok && json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		a.Command = argv
	}
	script := argString(args, "cmd")
	if script == "" {
		script = argString(args, "command")
	}
	switch {
	case command != "":
		a.Command = bashArgv(command)
		// The request may name one command of a longer script; the reviewer
		// sees the whole script too.
		if script != "" && script != command {
			a.Extra = map[string]json.RawMessage{"script": jsonString(script)}
		}
	case a.Command == nil && script != "":
		a.Command = bashArgv(script)
	}
	a.Cwd = argString(args, "cwd")
	if a.Cwd == "" {
		a.Cwd = argString(args, "workdir")
	}
	a.Justification = argString(args, "justification")
	a.SandboxPermissions = argString(args, "sandbox_permissions")
	if a.Command == nil && call.ParseError != "" {
		a.Extra = map[string]json.RawMessage{"arguments_raw": jsonString(call.ArgumentsRaw)}
	}
	return a
}

// fileEdit describes an editing call as a file edit.
func fileEdit(call tool.Call, args map[string]json.RawMessage) Action {
	a := Action{Tool: ToolFileEdit, Path: argString(args, "path")}
	a.Operation = argString(args, "command")
	if a.Operation == "" {
		a.Operation = argString(args, "operation")
	}
	if a.Operation == "" {
		a.Operation = call.Function
	}
	a.OldText = argString(args, "old_str")
	for _, k := range []string{"new_str", "file_text", "content"} {
		if a.NewText = argString(args, k); a.NewText != "" {
			break
		}
	}
	a.Patch = argString(args, "patch")
	if a.Patch == "" && strings.Contains(call.Function, "patch") {
		a.Patch = argString(args, "input")
	}
	if raw, ok := args["insert_line"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		a.Extra = map[string]json.RawMessage{"insert_line": raw}
	}
	if call.ParseError != "" {
		a.Extra = map[string]json.RawMessage{"arguments_raw": jsonString(call.ArgumentsRaw)}
	}
	return a
}

// actionOfCall describes a call made without a boundary request.
func actionOfCall(call tool.Call, args map[string]json.RawMessage) Action {
	switch call.Function {
	case "bash":
		return shellAction("", call, args)
	case "text_editor":
		return fileEdit(call, args)
	}
	a := Action{Tool: ToolMCP, ToolName: call.Function, Arguments: call.Arguments}
	if call.ParseError != "" {
		a.Arguments = nil
		a.Extra = map[string]json.RawMessage{"arguments_raw": jsonString(call.ArgumentsRaw)}
	}
	return a
}

// jsonString returns s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// MarshalJSON returns the action's JSON with keys sorted and strings longer
// than MaxActionString cut.
func (a Action) MarshalJSON() ([]byte, error) { return a.Marshal(MaxActionString) }

// Marshal returns the action's JSON: keys sorted at every level, empty fields
// left out, every string (keys included) longer than maxString bytes cut in
// the middle with a marker "[… N bytes cut …]" (no cut when maxString is 0
// or less). HTML characters are not escaped, so commands stay readable; the
// sequence "<<<" is written as \u003c escapes, which decode to the same
// value but cannot imitate a prompt marker.
func (a Action) Marshal(maxString int) ([]byte, error) {
	v, err := a.value(maxString)
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
func (a Action) value(maxString int) (map[string]any, error) {
	if a.Tool == "" {
		return nil, errors.New("action: no tool")
	}
	cut := func(s string) string {
		if maxString > 0 {
			s, _ = cutMiddle(s, maxString)
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
	str("tool", a.Tool)
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
	if a.Tool == ToolMCP && a.Server == "" {
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
	} else if a.Tool == ToolMCP {
		m["arguments"] = map[string]any{}
	}
	if len(a.Actions) > 0 {
		subs := make([]any, len(a.Actions))
		for i, sub := range a.Actions {
			v, err := sub.value(maxString)
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

// knownKeys are the JSON keys Action has fields for.
var knownKeys = []string{
	"actions", "arguments", "command", "cwd", "host", "justification", "new_text", "old_text",
	"operation", "patch", "path", "paths", "reason", "sandbox", "sandbox_permissions", "server",
	"text", "tool", "tool_name", "url",
}

// ActionFromDataset reads an action object of the labelled datasets (and
// anything Marshal writes):
//
//	{"tool":"shell","command":["bash","-lc","…"],"cwd":"…"}
//	{"tool":"mcp_tool_call","server":"…","tool_name":"…","arguments":{…}}
//	{"tool":"sequence","actions":[…]}, {"tool":"text","text":"…"}
//
// as well as file_edit and network actions. Keys of the wrong type, a
// missing or unknown tool, a shell action without a command and an MCP call
// without a tool name are errors; other keys are kept in Extra.
func ActionFromDataset(raw json.RawMessage) (Action, error) {
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
	str("tool", &a.Tool)
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
			sub, err := ActionFromDataset(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("actions[%d]: %w", i, err))
				continue
			}
			a.Actions = append(a.Actions, sub)
		}
	}
	for k, v := range obj {
		if i := sort.SearchStrings(knownKeys, k); i < len(knownKeys) && knownKeys[i] == k {
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
	switch a.Tool {
	case ToolShell:
		if len(a.Command) == 0 {
			return Action{}, errors.New("action: shell action without a command")
		}
	case ToolMCP:
		if a.ToolName == "" {
			return Action{}, errors.New("action: mcp_tool_call without a tool_name")
		}
	case ToolFileEdit:
		if a.Path == "" && len(a.Paths) == 0 {
			return Action{}, errors.New("action: file_edit without a path")
		}
	case ToolNetwork, ToolText:
	case ToolSequence:
		if len(a.Actions) == 0 {
			return Action{}, errors.New("action: sequence without actions")
		}
	case "":
		return Action{}, errors.New(`action: no "tool"`)
	default:
		return Action{}, fmt.Errorf("action: unknown tool %q (want shell, file_edit, network, mcp_tool_call, sequence or text)", a.Tool)
	}
	return a, nil
}

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
