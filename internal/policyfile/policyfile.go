// Package policyfile reads warden's policy files (SPEC P1, P4, P6, P8): a
// YAML or JSON file of approvers: or reviewers:, each entry a registered
// name, the calls it applies to and its parameters, with errors at
// file:line:col; the policy lists of task and hook files; and a policy given
// on the command line as a file or a registered name. The entries are
// policy.Entry values, which approval.Compile and review.Compile take.
package policyfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/policy"
)

// Kind says which policy a file or entry belongs to.
type Kind string

// The two kinds of policy.
const (
	Approval Kind = "approvers"
	Review   Kind = "reviewers"
)

// File is a parsed policy file.
type File struct {
	Path string
	Kind Kind
	// Entries in file order.
	Entries []policy.Entry
}

// LoadFile reads and parses a policy file. The kind is taken from the file's
// top-level key.
func LoadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse parses a policy file (YAML, or JSON) named file. It must hold
// exactly one of the keys approvers: or reviewers:.
func Parse(data []byte, file string) (*File, error) {
	doc, err := filepos.ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &filepos.Error{Pos: filepos.Pos{File: file, Line: 1, Col: 1}, Msg: "empty policy file: want approvers: or reviewers:"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(file, root, "policy file must be a mapping with approvers: or reviewers:")
	}
	f := &File{Path: file}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch Kind(k.Value) {
		case Approval, Review:
			if list != nil {
				return nil, filepos.Errorf(file, k, "a policy file holds approvers: or reviewers:, not both")
			}
			f.Kind, list = Kind(k.Value), v
		default:
			return nil, filepos.Errorf(file, k, "unknown key %q: want approvers: or reviewers:", k.Value)
		}
	}
	if list == nil {
		return nil, filepos.Errorf(file, root, "want approvers: or reviewers:")
	}
	entries, err := ParseEntries(list, file)
	if err != nil {
		return nil, err
	}
	f.Entries = entries
	return f, nil
}

// ParseEntries parses a YAML sequence of policy entries. An empty or null
// sequence is an explicitly empty policy.
func ParseEntries(list *yaml.Node, file string) ([]policy.Entry, error) {
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return []policy.Entry{}, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(file, list, "want a list of entries")
	}
	entries := make([]policy.Entry, 0, len(list.Content))
	for _, n := range list.Content {
		e, err := parseEntry(n, file)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// scalar returns the text of the scalar node v, or the error msg at v's
// position when v is not a scalar.
func scalar(file string, v *yaml.Node, msg string) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", filepos.Errorf(file, v, "%s", msg)
	}
	return v.Value, nil
}

// parseEntry parses one entry of a policy list.
func parseEntry(n *yaml.Node, file string) (policy.Entry, error) {
	e := policy.Entry{Pos: filepos.NodePos(file, n)}
	if n.Kind != yaml.MappingNode {
		return e, filepos.Errorf(file, n, "an entry must be a mapping with name: and tools:")
	}
	var toolsNode *yaml.Node
	var err error
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if prev, dup := seen[k.Value]; dup {
			return e, filepos.Errorf(file, k, "key %q already given at line %d", k.Value, prev.Line)
		}
		seen[k.Value] = k
		switch k.Value {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return e, filepos.Errorf(file, v, "name must be a non-empty string")
			}
			e.Name = v.Value
		case "tools":
			toolsNode = v
			switch v.Kind {
			case yaml.ScalarNode:
				e.Tools = []string{v.Value}
			case yaml.SequenceNode:
				for _, t := range v.Content {
					if t.Kind != yaml.ScalarNode {
						return e, filepos.Errorf(file, t, "tools: each pattern must be a string")
					}
					e.Tools = append(e.Tools, t.Value)
				}
			default:
				return e, filepos.Errorf(file, v, "tools must be a pattern or a list of patterns")
			}
		case "tool":
			if e.Tool, err = scalar(file, v, "tool must be a tool name or glob"); err != nil {
				return e, err
			}
		case "args":
			if v.Kind != yaml.MappingNode {
				return e, filepos.Errorf(file, v, "args must map argument names to globs")
			}
			e.Args = map[string]string{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ak, av := v.Content[j], v.Content[j+1]
				if _, dup := e.Args[ak.Value]; dup {
					return e, filepos.Errorf(file, ak, "args.%s given twice", ak.Value)
				}
				if _, dup := e.Commands[ak.Value]; dup {
					return e, filepos.Errorf(file, ak, "args.%s given twice", ak.Value)
				}
				if av.Kind == yaml.MappingNode {
					cmds, err := parseCommands(ak.Value, av, file)
					if err != nil {
						return e, err
					}
					if e.Commands == nil {
						e.Commands = map[string][]string{}
					}
					e.Commands[ak.Value] = cmds
					continue
				}
				if av.Kind != yaml.ScalarNode {
					return e, filepos.Errorf(file, av, "args.%s must be a glob string or {commands: [...]}", ak.Value)
				}
				e.Args[ak.Value] = av.Value
			}
			if len(e.Args) == 0 {
				e.Args = nil
			}
		case "chain":
			if e.Chain, err = scalar(file, v, "chain must be a name"); err != nil {
				return e, err
			}
		case "params":
			if v.Kind != yaml.MappingNode {
				return e, filepos.Errorf(file, v, "params must be a mapping")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if err := setParam(&e, v.Content[j], v.Content[j+1], file); err != nil {
					return e, err
				}
			}
		default:
			if err := setParam(&e, k, v, file); err != nil {
				return e, err
			}
		}
	}
	if e.Name == "" {
		return e, filepos.Errorf(file, n, "entry has no name:")
	}
	if toolsNode != nil && e.Structured() {
		return e, filepos.Errorf(file, toolsNode, "give tools: or tool:/args:, not both")
	}
	if m, err := e.Matcher(); err == nil && len(m) == 0 {
		return e, filepos.Errorf(file, toolsNode, "tools: no pattern given")
	}
	if _, err := e.Matcher(); err != nil {
		at := n
		if toolsNode != nil {
			at = toolsNode
		}
		return e, &filepos.Error{Pos: filepos.NodePos(file, at), Err: err}
	}
	return e, nil
}

// parseCommands reads the shell-aware form of an argument, {commands:
// [prefix, ...]} (SPEC P8): a non-empty list of non-empty command prefixes,
// each split into words as a shell would.
func parseCommands(key string, n *yaml.Node, file string) ([]string, error) {
	if len(n.Content) != 2 || n.Content[0].Value != "commands" {
		at := n
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value != "commands" {
				at = n.Content[j]
				break
			}
		}
		return nil, filepos.Errorf(file, at, "args.%s: a mapping must be exactly {commands: [command prefixes]}", key)
	}
	list := n.Content[1]
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, filepos.Errorf(file, list, "args.%s.commands must be a non-empty list of command prefixes", key)
	}
	cmds := make([]string, 0, len(list.Content))
	for i, c := range list.Content {
		if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
			return nil, filepos.Errorf(file, c, "args.%s.commands[%d] must be a string such as \"git status\"", key, i)
		}
		if _, err := shell.SplitPrefix(c.Value); err != nil {
			return nil, &filepos.Error{Pos: filepos.NodePos(file, c), Msg: fmt.Sprintf("args.%s.commands[%d]", key, i), Err: err}
		}
		cmds = append(cmds, c.Value)
	}
	return cmds, nil
}

// setParam sets the parameter k of e to the value v.
func setParam(e *policy.Entry, k, v *yaml.Node, file string) error {
	var val any
	if err := v.Decode(&val); err != nil {
		return filepos.Errorf(file, v, "parameter %s: %v", k.Value, err)
	}
	if e.Params == nil {
		e.Params = map[string]any{}
	}
	if _, dup := e.Params[k.Value]; dup {
		return filepos.Errorf(file, k, "parameter %s given twice", k.Value)
	}
	e.Params[k.Value] = val
	return nil
}

// Resolve turns a policy given as a string into entries (SPEC P4): a path to
// an existing file (relative paths against dir), else a registered name
// applied to all tools, else an error that says which. registered reports
// whether a name is registered; names lists them for the error.
func Resolve(spec, dir string, kind Kind, registered func(string) bool, names []string) ([]policy.Entry, error) {
	path := spec
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, spec)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		f, err := LoadFile(path)
		if err != nil {
			return nil, err
		}
		if f.Kind != kind {
			return nil, &filepos.Error{Pos: filepos.Pos{File: path, Line: 1, Col: 1}, Msg: fmt.Sprintf("is a %s file, want %s:", f.Kind, kind)}
		}
		return f.Entries, nil
	}
	if registered(spec) {
		return []policy.Entry{{Name: spec, Tools: []string{"*"}}}, nil
	}
	return nil, fmt.Errorf("%q is neither a policy file nor a registered %s name (registered: %s)",
		spec, strings.TrimSuffix(string(kind), "s"), strings.Join(names, ", "))
}
