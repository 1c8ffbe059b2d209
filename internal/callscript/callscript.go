// Package callscript finds the shell script a tool call runs and splits
// it into its simple commands as the shell parser does, wrappers seen
// through: what a person approving the call reads one by one, at the
// console and in the web panel (SPEC H1), so that a dangerous command
// cannot hide in the middle of a long script.
package callscript

import (
	"encoding/json"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/tool"
)

// shellFormat reports whether a view's format says it is a shell script.
func shellFormat(format string) bool {
	switch strings.ToLower(format) {
	case "bash", "sh", "shell", "zsh":
		return true
	}
	return false
}

// Script returns the shell script a call runs, if it runs one: a view in a
// shell format, or the cmd, command or script argument of a shell tool.
func Script(call tool.Call, view tool.View) (string, bool) {
	if shellFormat(view.Format) {
		return view.Content, true
	}
	name := strings.ToLower(call.Function)
	if call.ParseError != "" || !(shell.IsShell(name) || strings.Contains(name, "bash") || strings.Contains(name, "shell")) {
		return "", false
	}
	// Read as the tool reads its arguments: names exactly, and a call
	// with repeated or case-variant names never gets here (SPEC A8), so
	// the commands listed are those that run.
	for _, k := range []string{"cmd", "command", "script"} {
		if raw, ok := call.Argument(k); ok {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return "", false
}

// Commands are the simple commands of a shell script, as the shell parser
// splits it, wrappers seen through: what a person approving the script
// must read one by one, so that a dangerous command cannot hide in the
// middle of a long script.
type Commands struct {
	// List holds each simple command's text, in the order they run.
	List []string
	// Opaque, when not "", says why not every command can be seen (an
	// eval, a command substitution the parser cannot follow).
	Opaque string
}

// Of returns the simple commands of the shell script a call
// runs, if it runs one (the cmd, command or script argument of a shell
// tool, or a view in a shell format); ok is false for any other call. err
// says why a script does not parse as bash.
func Of(call tool.Call, view tool.View) (cmds Commands, ok bool, err error) {
	script, ok := Script(call, view)
	if !ok {
		return Commands{}, false, nil
	}
	cmds, err = Split(script)
	return cmds, true, err
}

// Split splits a shell script into its simple commands.
func Split(script string) (Commands, error) {
	s, err := shell.Parse(script)
	if err != nil {
		return Commands{}, err
	}
	var out Commands
	for _, c := range s.Commands {
		text := c.Text
		if text == "" {
			text = strings.Join(c.Args, " ")
		}
		if text == "" && len(c.Assigns)+len(c.Redirects) > 0 {
			text = strings.Join(append(append([]string(nil), c.Assigns...), c.Redirects...), " ")
		}
		out.List = append(out.List, text)
	}
	if s.Opaque {
		out.Opaque = strings.Join(s.Reasons, "; ")
	}
	return out, nil
}
