package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
	"gopkg.in/yaml.v3"

	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/policy"
)

// Extensions of rules files: Starlark (Codex) and YAML/JSON.
var (
	starlarkExts = []string{".rules", ".star", ".bzl", ".codexpolicy", ".execpolicy"}
	yamlExts     = []string{".yaml", ".yml", ".json"}
)

// Load reads rules files and returns one set holding all their rules, in
// order. The loader is chosen by extension: .rules, .star, .bzl (and the
// older Codex .codexpolicy and .execpolicy) are Starlark; .yaml, .yml and
// .json are YAML. A directory loads every such file directly in it, sorted
// by name (so warden can be pointed at ~/.codex/rules). Errors print as
// "file:line:col: message" (*policy.Error), or are the filesystem's errors
// (wrapped).
func Load(paths ...string) (*Set, error) {
	set := &Set{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("load rules: %w", err)
		}
		files := []string{p}
		if st.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("load rules: %w", err)
			}
			files = files[:0]
			for _, e := range entries {
				ext := filepath.Ext(e.Name())
				if !e.IsDir() && (slices.Contains(starlarkExts, ext) || slices.Contains(yamlExts, ext)) {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("load rules: %w", err)
			}
			s, err := Parse(data, f)
			if err != nil {
				return nil, err
			}
			set.merge(s)
		}
	}
	return set, nil
}

// Parse parses the rules file named filename, held in data, choosing the
// format by the file's extension as Load does.
func Parse(data []byte, filename string) (*Set, error) {
	ext := filepath.Ext(filename)
	switch {
	case slices.Contains(starlarkExts, ext):
		return parseStarlark(data, filename)
	case slices.Contains(yamlExts, ext):
		return parseYAML(data, filename)
	}
	return nil, &policy.Error{Pos: policy.Pos{File: filename}, Msg: fmt.Sprintf(
		"unknown rules file type %q: want .rules (Starlark) or .yaml, .yml, .json", ext)}
}

// maxSteps bounds the Starlark computation of one rules file.
const maxSteps = 1 << 22

// parseStarlark parses a Codex-style Starlark rules file: calls to
// prefix_rule(pattern, decision="allow", justification="", match=[],
// not_match=[]) and host_executable(name, paths). Errors carry the file,
// line and column (*policy.Error).
func parseStarlark(data []byte, filename string) (*Set, error) {
	l := &starLoader{file: filename, data: data, set: &Set{}}
	thread := &starlark.Thread{
		Name:  "rules " + filename,
		Print: func(*starlark.Thread, string) {},
		Load: func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
			return nil, fmt.Errorf("rules files cannot load other files")
		},
	}
	thread.SetMaxExecutionSteps(maxSteps)
	predeclared := starlark.StringDict{
		"prefix_rule":     starlark.NewBuiltin("prefix_rule", l.prefixRule),
		"host_executable": starlark.NewBuiltin("host_executable", l.hostExecutable),
	}
	opts := &syntax.FileOptions{TopLevelControl: true, GlobalReassign: true, Set: true}
	if _, err := starlark.ExecFileOptions(opts, thread, filename, data, predeclared); err != nil {
		return nil, l.convert(err)
	}
	return l.set, nil
}

type starLoader struct {
	file string
	data []byte
	set  *Set
}

func (l *starLoader) errAt(pos syntax.Position, format string, args ...any) *policy.Error {
	return &policy.Error{
		Pos: policy.Pos{File: l.file, Line: max(int(pos.Line), 1), Col: max(int(pos.Col), 1)},
		Msg: fmt.Sprintf(format, args...),
	}
}

// convert turns a Starlark error into a *policy.Error at its position.
func (l *starLoader) convert(err error) error {
	var pe *policy.Error
	if errors.As(err, &pe) {
		return pe
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return l.errAt(se.Pos, "%s", se.Msg)
	}
	var re resolve.ErrorList
	if errors.As(err, &re) && len(re) > 0 {
		return l.errAt(re[0].Pos, "%s", re[0].Msg)
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		pos := syntax.MakePosition(&l.file, 1, 1)
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if fr := ee.CallStack[i]; fr.Pos.Filename() == l.file && fr.Pos.Line > 0 {
				pos = fr.Pos
				break
			}
		}
		return l.errAt(pos, "%s", ee.Msg)
	}
	return &policy.Error{Pos: policy.Pos{File: l.file, Line: 1, Col: 1}, Err: err}
}

// callPos is the position of the call to the builtin running in thread:
// the start of the called name (Starlark reports the open parenthesis).
func (l *starLoader) callPos(thread *starlark.Thread) syntax.Position {
	if thread.CallStackDepth() < 2 {
		return syntax.Position{}
	}
	pos := thread.CallFrame(1).Pos
	lines := strings.Split(string(l.data), "\n")
	if pos.Line < 1 || int(pos.Line) > len(lines) {
		return pos
	}
	line := []rune(lines[pos.Line-1])
	c := int(pos.Col) - 1 // index of the rune at pos
	if c < 0 || c >= len(line) || line[c] != '(' {
		return pos
	}
	for c > 0 && (line[c-1] == '_' || unicode.IsLetter(line[c-1]) || unicode.IsDigit(line[c-1])) {
		c--
	}
	pos.Col = int32(c + 1)
	return pos
}

func (l *starLoader) prefixRule(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	pos := l.callPos(thread)
	var (
		pattern, match, notMatch starlark.Value
		decision                 = "allow"
		justification            string
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"pattern", &pattern, "decision?", &decision, "justification?", &justification,
		"match?", &match, "not_match?", &notMatch); err != nil {
		return nil, l.errAt(pos, "%v", err)
	}
	r := Rule{Justification: justification, Source: l.errAt(pos, "").Pos.String()}
	var err error
	if r.Decision, err = parseDecision(decision); err != nil {
		return nil, l.errAt(pos, "prefix_rule: %v", err)
	}
	if r.Pattern, err = starPattern(pattern); err != nil {
		return nil, l.errAt(pos, "prefix_rule: pattern: %v", err)
	}
	if r.Match, err = starExamples(match); err != nil {
		return nil, l.errAt(pos, "prefix_rule %s: match: %v", patternString(r.Pattern), err)
	}
	if r.NotMatch, err = starExamples(notMatch); err != nil {
		return nil, l.errAt(pos, "prefix_rule %s: not_match: %v", patternString(r.Pattern), err)
	}
	if err := r.check(); err != nil {
		return nil, l.errAt(pos, "prefix_rule: %v", err)
	}
	l.set.add(&r)
	return starlark.None, nil
}

func (l *starLoader) hostExecutable(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	pos := l.callPos(thread)
	var (
		name  string
		paths starlark.Value
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "paths", &paths); err != nil {
		return nil, l.errAt(pos, "%v", err)
	}
	ps, err := starStrings(paths)
	if err != nil {
		return nil, l.errAt(pos, "host_executable: paths: %v", err)
	}
	if err := checkHost(name, ps); err != nil {
		return nil, l.errAt(pos, "host_executable: %v", err)
	}
	l.set.addHost(name, ps)
	return starlark.None, nil
}

func checkHost(name string, paths []string) error {
	if name == "" || strings.IndexByte(name, '/') >= 0 {
		return fmt.Errorf("name %q must be a bare program name", name)
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("path %q is not absolute", p)
		}
		if shell.Base(p) != name {
			return fmt.Errorf("path %q does not name %q", p, name)
		}
	}
	return nil
}

// starPattern converts a pattern: a non-empty list whose elements are a
// string or a non-empty list of strings.
func starPattern(v starlark.Value) ([][]string, error) {
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("got %s, want a list", v.Type())
	}
	if list.Len() == 0 {
		return nil, errors.New("empty pattern")
	}
	out := make([][]string, list.Len())
	for i := range out {
		e := list.Index(i)
		if s, ok := e.(starlark.String); ok {
			out[i] = []string{string(s)}
			continue
		}
		alts, err := starStrings(e)
		if err != nil {
			return nil, fmt.Errorf("element %d: %v", i, err)
		}
		if len(alts) == 0 {
			return nil, fmt.Errorf("element %d: empty list of alternatives", i)
		}
		out[i] = alts
	}
	return out, nil
}

// asList returns v when it is a Starlark list or tuple.
func asList(v starlark.Value) (starlark.Indexable, bool) {
	switch v := v.(type) {
	case *starlark.List:
		return v, true
	case starlark.Tuple:
		return v, true
	}
	return nil, false
}

// starStrings converts a list of strings.
func starStrings(v starlark.Value) ([]string, error) {
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("got %s, want a string or a list of strings", v.Type())
	}
	out := make([]string, list.Len())
	for i := range out {
		s, ok := list.Index(i).(starlark.String)
		if !ok {
			return nil, fmt.Errorf("token %d: got %s, want string", i, list.Index(i).Type())
		}
		out[i] = string(s)
	}
	return out, nil
}

// starExamples converts match/not_match: a list of strings (split like a
// shell command line) or lists of strings.
func starExamples(v starlark.Value) ([][]string, error) {
	if v == nil || v == starlark.None {
		return nil, nil
	}
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("got %s, want a list of examples", v.Type())
	}
	out := make([][]string, list.Len())
	for i := range out {
		e := list.Index(i)
		var err error
		if s, ok := e.(starlark.String); ok {
			out[i], err = splitExample(string(s))
		} else {
			out[i], err = starStrings(e)
		}
		if err != nil {
			return nil, fmt.Errorf("example %d: %v", i, err)
		}
	}
	return out, nil
}

func splitExample(s string) ([]string, error) {
	words, err := shell.Split(s)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty example %q", s)
	}
	return words, nil
}

// parseYAML parses a YAML (or JSON) rules file: a top-level rules: list of
// {pattern, decision, justification, match, not_match} and an optional
// host_executables: list of {name, paths}. Errors carry the file, line and
// column (*policy.Error).
func parseYAML(data []byte, filename string) (*Set, error) {
	doc, err := filepos.ParseYAML(filename, data)
	if err != nil {
		return nil, err
	}
	set := &Set{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return set, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return set, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(filename, root, "a rules file must be a mapping with a rules: list")
	}
	err = filepos.EachKey(filename, root, "duplicate key %q", func(k, v *yaml.Node) error {
		switch k.Value {
		case "rules":
			return yamlRules(set, v, filename)
		case "host_executables":
			return yamlHosts(set, v, filename)
		}
		return filepos.Errorf(filename, k, "unknown key %q: want rules: or host_executables:", k.Value)
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// resolveAlias follows YAML aliases.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// eachMapping calls each on every item of the YAML list (aliases
// followed; null is an empty list). A list that is not a sequence is the
// error notList at its position, an item that is not a mapping the error
// notMapping at the item's.
func eachMapping(list *yaml.Node, file, notList, notMapping string, each func(n *yaml.Node) error) error {
	list = resolveAlias(list)
	if isNull(list) {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return filepos.Errorf(file, list, "%s", notList)
	}
	for _, n := range list.Content {
		n = resolveAlias(n)
		if n.Kind != yaml.MappingNode {
			return filepos.Errorf(file, n, "%s", notMapping)
		}
		if err := each(n); err != nil {
			return err
		}
	}
	return nil
}

func yamlRules(set *Set, list *yaml.Node, file string) error {
	return eachMapping(list, file, "rules: must be a list of rules",
		"a rule must be a mapping with pattern:, decision:, justification:, match:, not_match:", func(n *yaml.Node) error {
			r := Rule{Source: filepos.NodePos(file, n).String()}
			var patternNode *yaml.Node
			err := filepos.EachKey(file, n, "duplicate key %q", func(k, v *yaml.Node) (err error) {
				v = resolveAlias(v)
				switch k.Value {
				case "pattern":
					patternNode = v
					r.Pattern, err = yamlPattern(v, file)
				case "decision":
					var s string
					if s, err = yamlString(v, file); err == nil {
						var d Decision
						if d, err = parseDecision(s); err != nil {
							err = filepos.Errorf(file, v, "%v", err)
						}
						r.Decision = d
					}
				case "justification":
					r.Justification, err = yamlString(v, file)
				case "match":
					r.Match, err = yamlExamples(v, file)
				case "not_match":
					r.NotMatch, err = yamlExamples(v, file)
				default:
					err = filepos.Errorf(file, k, "unknown key %q: want pattern, decision, justification, match or not_match", k.Value)
				}
				return err
			})
			if err != nil {
				return err
			}
			if patternNode == nil {
				return filepos.Errorf(file, n, "a rule needs a pattern:")
			}
			if err := r.check(); err != nil {
				return filepos.Errorf(file, n, "%v", err)
			}
			set.add(&r)
			return nil
		})
}

func yamlString(n *yaml.Node, file string) (string, error) {
	n = resolveAlias(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", filepos.Errorf(file, n, "want a string (quote it)")
	}
	return n.Value, nil
}

func yamlStrings(n *yaml.Node, file string) ([]string, error) {
	n = resolveAlias(n)
	if n.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(file, n, "want a list of strings")
	}
	out := make([]string, len(n.Content))
	for i, e := range n.Content {
		s, err := yamlString(e, file)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func yamlPattern(n *yaml.Node, file string) ([][]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(file, n, "pattern: want a list of tokens")
	}
	if len(n.Content) == 0 {
		return nil, filepos.Errorf(file, n, "pattern: empty pattern")
	}
	out := make([][]string, len(n.Content))
	for i, e := range n.Content {
		e = resolveAlias(e)
		if e.Kind == yaml.SequenceNode {
			alts, err := yamlStrings(e, file)
			if err != nil {
				return nil, err
			}
			if len(alts) == 0 {
				return nil, filepos.Errorf(file, e, "pattern: empty list of alternatives")
			}
			out[i] = alts
			continue
		}
		s, err := yamlString(e, file)
		if err != nil {
			return nil, err
		}
		out[i] = []string{s}
	}
	return out, nil
}

func yamlExamples(n *yaml.Node, file string) ([][]string, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(file, n, "want a list of examples")
	}
	out := make([][]string, len(n.Content))
	for i, e := range n.Content {
		e = resolveAlias(e)
		var err error
		if e.Kind == yaml.SequenceNode {
			out[i], err = yamlStrings(e, file)
		} else {
			var s string
			if s, err = yamlString(e, file); err == nil {
				if out[i], err = splitExample(s); err != nil {
					err = filepos.Errorf(file, e, "%v", err)
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func yamlHosts(set *Set, list *yaml.Node, file string) error {
	return eachMapping(list, file, "host_executables: must be a list of {name, paths}",
		"a host executable must be a mapping with name: and paths:", func(n *yaml.Node) error {
			var (
				name  string
				paths []string
			)
			err := filepos.EachKey(file, n, "duplicate key %q", func(k, v *yaml.Node) (err error) {
				switch k.Value {
				case "name":
					name, err = yamlString(v, file)
				case "paths":
					paths, err = yamlStrings(v, file)
				default:
					err = filepos.Errorf(file, k, "unknown key %q: want name or paths", k.Value)
				}
				return err
			})
			if err != nil {
				return err
			}
			if err := checkHost(name, paths); err != nil {
				return filepos.Errorf(file, n, "host executable: %v", err)
			}
			set.addHost(name, paths)
			return nil
		})
}
