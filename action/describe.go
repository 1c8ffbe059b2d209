package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// A Describer is implemented by tools that describe their own calls as
// actions for the reviewer and the first pass, the way a tool.Viewer
// renders them for people. DescribeAction returns the action of the
// boundary request req made while call ran, or of the call itself when req
// is nil; ok is false when the tool cannot describe it (arguments that do
// not parse, a kind of request the tool never makes), and the generic
// description is used instead. The fields Describe takes from the request
// (justification, escalation, reason, sandbox mode) need not be set.
type Describer interface {
	DescribeAction(call tool.Call, req *boundary.Request) (a Action, ok bool)
}

// Describe returns the action the boundary request req asks to perform,
// made while call of tool t ran, or the action of the call itself when req
// is nil: t's own description when t is a Describer, otherwise the generic
// one (t may be nil). The request's justification, escalation, reason and
// sandbox mode are then set from req. A request of an unknown kind is an
// error.
//
// The generic description reads the arguments by the common conventions of
// agent tools: a Write or Exec request made by a command (req.Command) is a
// shell action ["bash", "-c", COMMAND] with the written Paths, a Write
// request without a command a file edit, a Network request a network
// action, an MCP request and a call without a request an mcp_tool_call
// (with no server for a plain function tool). The working directory,
// justification and sandbox permissions come from the arguments "cwd" (or
// "workdir"), "justification" and "sandbox_permissions", an argv from an
// array "command", a file edit's content from "path", "command" (or
// "operation"), "old_str", "new_str" (or "file_text", "content") and
// "patch", a network request's destination from "url" and "host".
func Describe(t tool.Tool, call tool.Call, req *boundary.Request) (Action, error) {
	if req != nil {
		if KindOf(req.Permission, false) == "" {
			return Action{}, fmt.Errorf("boundary request of unknown kind %q", req.Permission)
		}
	}
	var a Action
	ok := false
	if d, is := t.(Describer); is {
		a, ok = d.DescribeAction(call, req)
	}
	if !ok {
		a = generic(call, req)
	}
	if req == nil {
		return a, nil
	}
	if req.Justification != "" {
		a.Justification = req.Justification
	}
	if req.Escalated {
		a.SandboxPermissions = RequireEscalated
	}
	a.Reason, a.Sandbox = req.Reason, req.Sandbox
	return a, nil
}

// KindOf returns the kind of action a boundary request for permission p
// is judged as, the one mapping of boundary.Permission to Kind: a command
// is a Shell action, and so is a write a command makes (byCommand); a
// write by a tool is a FileEdit; a network request is a Network action
// (with the command that made it, if any); an MCP tool call is an MCP
// action. It returns "" for a permission it does not know.
func KindOf(p boundary.Permission, byCommand bool) Kind {
	switch p {
	case boundary.Exec:
		return Shell
	case boundary.Write:
		if byCommand {
			return Shell
		}
		return FileEdit
	case boundary.Network:
		return Network
	case boundary.MCP:
		return MCP
	}
	return ""
}

// Permission returns what a request to cross the boundary for a asks,
// KindOf's inverse: a Shell action with Paths writes, any other Shell
// action executes. It returns "" for kinds no request makes (Sequence,
// Text).
func (a *Action) Permission() boundary.Permission {
	switch a.Kind {
	case Shell:
		if len(a.Paths) > 0 {
			return boundary.Write
		}
		return boundary.Exec
	case FileEdit:
		return boundary.Write
	case Network:
		return boundary.Network
	case MCP:
		return boundary.MCP
	}
	return ""
}

// JSON returns the JSON of the action Describe returns, with keys sorted
// and strings longer than 2000 bytes cut in the middle.
func JSON(t tool.Tool, call tool.Call, req *boundary.Request) ([]byte, error) {
	a, err := Describe(t, call, req)
	if err != nil {
		return nil, err
	}
	return a.marshal(maxString)
}

// BashArgv returns the argv a command line runs as: ["bash", "-c", line].
func BashArgv(line string) []string { return []string{"bash", "-c", line} }

// RawString returns s as a JSON string, for Extra.
func RawString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// generic describes req, or call when req is nil, for a tool that does not
// describe itself (see Describe).
func generic(call tool.Call, req *boundary.Request) Action {
	args := callArgs(call)
	if req == nil {
		a := Action{Kind: MCP, ToolName: call.Function, Arguments: call.Arguments}
		if call.ParseError != "" {
			a.Arguments = nil
			a.Extra = map[string]json.RawMessage{"arguments_raw": RawString(call.ArgumentsRaw)}
		}
		return a
	}
	var a Action
	byCommand := req.Command != "" || shellShaped(args)
	switch KindOf(req.Permission, byCommand) {
	case Shell:
		a = shellAction(req.Command, call, args)
		if req.Permission == boundary.Write {
			a.Paths = append([]string(nil), req.Paths...)
		}
	case FileEdit:
		a = fileEdit(call, args)
		switch {
		case len(req.Paths) == 1:
			a.Path = req.Paths[0]
		case len(req.Paths) > 1:
			a.Paths = append([]string(nil), req.Paths...)
		}
	case Network:
		a = Action{Kind: Network, URL: argString(args, "url"), Host: argString(args, "host")}
		if req.Command != "" {
			a.Command = BashArgv(req.Command)
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
	case MCP:
		a = Action{Kind: MCP, Server: req.Server, ToolName: req.Tool, Arguments: call.Arguments}
		if a.ToolName == "" {
			a.ToolName = call.Function
		}
		if call.ParseError != "" {
			a.Extra = map[string]json.RawMessage{"arguments_raw": RawString(call.ArgumentsRaw)}
		}
	}
	return a
}

// shellShaped reports whether a call's arguments are those of a shell
// command: a "command" argv (an array of strings, as Codex's shell tool
// takes) or a "cmd" script. A string "command" is not: editors name their
// operation so.
func shellShaped(args map[string]json.RawMessage) bool {
	var argv []string
	if raw, ok := args["command"]; ok && json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		return true
	}
	return argString(args, "cmd") != ""
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

// shellAction describes command (or, when empty, the command the call's
// arguments hold) as a shell action.
func shellAction(command string, call tool.Call, args map[string]json.RawMessage) Action {
	a := Action{Kind: Shell}
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
		a.Command = BashArgv(command)
		// The request may name one command of a longer script; the reviewer
		// sees the whole script too.
		if script != "" && script != command {
			a.Extra = map[string]json.RawMessage{"script": RawString(script)}
		}
	case a.Command == nil && script != "":
		a.Command = BashArgv(script)
	}
	a.Cwd = argString(args, "cwd")
	if a.Cwd == "" {
		a.Cwd = argString(args, "workdir")
	}
	a.Justification = argString(args, "justification")
	a.SandboxPermissions = argString(args, "sandbox_permissions")
	if a.Command == nil && call.ParseError != "" {
		a.Extra = map[string]json.RawMessage{"arguments_raw": RawString(call.ArgumentsRaw)}
	}
	return a
}

// fileEdit describes an editing call as a file edit.
func fileEdit(call tool.Call, args map[string]json.RawMessage) Action {
	a := Action{Kind: FileEdit, Path: argString(args, "path")}
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
		a.Extra = map[string]json.RawMessage{"arguments_raw": RawString(call.ArgumentsRaw)}
	}
	return a
}
