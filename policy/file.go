package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/jsonerr"
)

// Pos is a place in a file.
type Pos = filepos.Pos

// Error is an error at a place in a policy or task file. It prints as
// "file:line:col: message".
type Error = filepos.Error

// Entry is one line of a policy: an approver or reviewer by registered name,
// the calls it applies to, and its parameters (SPEC P1).
type Entry struct {
	// Name is the registered approver or reviewer.
	Name string
	// Tools are the textual patterns (default "*"), comma lists allowed.
	Tools []string
	// Tool and Args give the structured form instead of Tools.
	Tool string
	Args map[string]string
	// Commands are the shell-aware arguments of the structured form
	// (args: {cmd: {commands: [...]}}, SPEC P8): argument name → command
	// prefixes. Such an argument matches only when every simple command of
	// the script it holds matches one of the prefixes.
	Commands map[string][]string
	// Chain names the independent chain the entry belongs to (SPEC P7);
	// empty is the default chain.
	Chain string
	// Params are the remaining keys, passed to the factory.
	Params map[string]any
	// Pos is where the entry was written, if it came from a file.
	Pos Pos
}

// Structured reports whether the entry uses the tool:/args: form.
func (e Entry) Structured() bool { return e.Tool != "" || len(e.Args) > 0 || len(e.Commands) > 0 }

// Matcher compiles the entry's patterns.
func (e Entry) Matcher() (Matcher, error) {
	if e.Structured() {
		p, err := compileStructured(e.Tool, e.Args, e.Commands)
		if err != nil {
			return nil, err
		}
		return Matcher{p}, nil
	}
	tools := e.Tools
	if len(tools) == 0 {
		tools = []string{"*"}
	}
	return CompileList(tools)
}

// MarshalJSON writes the entry as it would appear in a policy file: name,
// tools (or tool and args), chain, then the parameters.
func (e Entry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	writeJSON(&b, e.Name)
	if e.Structured() {
		if e.Tool != "" {
			b.WriteString(`,"tool":`)
			writeJSON(&b, e.Tool)
		}
		if len(e.Args) > 0 || len(e.Commands) > 0 {
			args := make(map[string]any, len(e.Args)+len(e.Commands))
			for k, v := range e.Args {
				args[k] = v
			}
			for k, v := range e.Commands {
				args[k] = map[string][]string{"commands": v}
			}
			b.WriteString(`,"args":`)
			writeJSON(&b, args)
		}
	} else {
		tools := e.Tools
		if len(tools) == 0 {
			tools = []string{"*"}
		}
		b.WriteString(`,"tools":`)
		writeJSON(&b, tools)
	}
	if e.Chain != "" {
		b.WriteString(`,"chain":`)
		writeJSON(&b, e.Chain)
	}
	keys := slices.Sorted(maps.Keys(e.Params))
	for _, k := range keys {
		b.WriteByte(',')
		writeJSON(&b, k)
		b.WriteByte(':')
		writeJSON(&b, e.Params[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an entry as MarshalJSON writes it: an argument given
// as {"commands": [...]} goes to Commands, other arguments to Args, and keys
// other than name, tools, tool, args and chain to Params.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("policy entry: %w", jsonerr.Plain(err))
	}
	var out Entry
	for k, v := range raw {
		var err error
		switch k {
		case "name":
			err = json.Unmarshal(v, &out.Name)
		case "tools":
			err = json.Unmarshal(v, &out.Tools)
		case "tool":
			err = json.Unmarshal(v, &out.Tool)
		case "chain":
			err = json.Unmarshal(v, &out.Chain)
		case "args":
			var args map[string]json.RawMessage
			if err = json.Unmarshal(v, &args); err != nil {
				break
			}
			for ak, av := range args {
				var cmds struct {
					Commands []string `json:"commands"`
				}
				if len(av) > 0 && av[0] == '{' {
					if err = json.Unmarshal(av, &cmds); err != nil {
						break
					}
					if out.Commands == nil {
						out.Commands = map[string][]string{}
					}
					out.Commands[ak] = cmds.Commands
					continue
				}
				var g string
				if err = json.Unmarshal(av, &g); err != nil {
					break
				}
				if out.Args == nil {
					out.Args = map[string]string{}
				}
				out.Args[ak] = g
			}
		default:
			var p any
			if err = json.Unmarshal(v, &p); err == nil {
				if out.Params == nil {
					out.Params = map[string]any{}
				}
				out.Params[k] = p
			}
		}
		if err != nil {
			return fmt.Errorf("policy entry %s: %w", k, jsonerr.Plain(err))
		}
	}
	*e = out
	return nil
}

func writeJSON(b *bytes.Buffer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(fmt.Sprint(v))
	}
	b.Write(data)
}
