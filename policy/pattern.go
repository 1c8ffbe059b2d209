// Package policy compiles the tool patterns of approval and review policies
// and reads policy files (SPEC P1, P2, P4, P8).
//
// A pattern is matched against a call rendered on one line as
// name(k1='v1', k2=2), its arguments in the called tool's schema order and
// then sorted, never in the model's order (see tool.Call.TextIn). Patterns are fnmatch globs with
// an implied trailing '*', so "bash(cmd='rm" matches every rm command, as in
// Inspect AI. A bare tool name ("bash") matches that tool only.
//
// Such a glob is not an allow-list for shell commands: "bash(cmd='ls" also
// matches "ls; rm -rf ~". The structured form can instead name an argument
// holding a shell script and list command prefixes
// (args: {cmd: {commands: [ls, "git status"]}}); it matches only when every
// simple command of the script, as internal/shell splits it with wrappers
// seen through, matches one of them, and never when the script cannot be
// fully analysed (SPEC P8).
package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/tool"
)

// Pattern is a compiled tool pattern.
type Pattern struct {
	src  string
	name string // bare tool name: Function must equal it
	text glob   // glob over the call text (implied trailing '*')
	// structured form
	tool glob
	args []argGlob
	cmds []argCommands // shell-aware arguments (SPEC P8)
	kind patternKind
}

type patternKind uint8

const (
	kindName patternKind = iota
	kindText
	kindStructured
)

type argGlob struct {
	key  string
	glob glob
}

// Compile compiles one textual pattern. Comma lists are not split here; see
// splitList.
func Compile(src string) (Pattern, error) {
	s := strings.TrimSpace(src)
	if s == "" {
		return Pattern{}, fmt.Errorf("empty tool pattern")
	}
	if isName(s) {
		return Pattern{src: s, name: s, kind: kindName}, nil
	}
	g, err := compileGlob(s + "*")
	if err != nil {
		return Pattern{}, err
	}
	g.src = s
	return Pattern{src: s, text: g, kind: kindText}, nil
}

// CompileStructured compiles the structured form: a glob for the tool name
// (matched whole, no implied '*') and globs for named arguments, each
// matched whole against the argument's text (a string's contents, or the
// literal of any other value). An argument named but absent does not match.
func CompileStructured(toolGlob string, args map[string]string) (Pattern, error) {
	return compileStructured(toolGlob, args, nil)
}

// compileStructured is CompileStructured with shell-aware arguments: each
// key of commands names an argument holding a shell script, matched only
// when every simple command of the script matches one of the listed command
// prefixes (SPEC P8).
func compileStructured(toolGlob string, args map[string]string, commands map[string][]string) (Pattern, error) {
	if strings.TrimSpace(toolGlob) == "" {
		toolGlob = "*"
	}
	tg, err := compileGlob(toolGlob)
	if err != nil {
		return Pattern{}, err
	}
	p := Pattern{tool: tg, kind: kindStructured}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var src strings.Builder
	fmt.Fprintf(&src, "tool=%s", toolGlob)
	for _, k := range keys {
		g, err := compileGlob(args[k])
		if err != nil {
			return Pattern{}, fmt.Errorf("args.%s: %w", k, err)
		}
		p.args = append(p.args, argGlob{key: k, glob: g})
		fmt.Fprintf(&src, " %s=%s", k, args[k])
	}
	ckeys := make([]string, 0, len(commands))
	for k := range commands {
		if _, dup := args[k]; dup {
			return Pattern{}, fmt.Errorf("args.%s: given both as a glob and as commands", k)
		}
		ckeys = append(ckeys, k)
	}
	sort.Strings(ckeys)
	for _, k := range ckeys {
		a, err := compileCommands(k, commands[k])
		if err != nil {
			return Pattern{}, fmt.Errorf("args.%s.%w", k, err)
		}
		p.cmds = append(p.cmds, a)
		fmt.Fprintf(&src, " %s=commands%q", k, commands[k])
	}
	p.src = src.String()
	return p, nil
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.src }

// isName reports whether s is a bare tool name: no glob metacharacters, no
// parenthesis, no spaces.
func isName(s string) bool {
	return !strings.ContainsAny(s, "*?[( \t\n'\"=,")
}

// splitList splits a comma-separated list of patterns at commas outside
// parentheses, brackets and quotes, so "bash, python" is two patterns and
// "bash(cmd='a, b')" is one.
func splitList(s string) []string {
	var out []string
	depth := 0
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == ',' && depth == 0:
			if part := strings.TrimSpace(s[start:i]); part != "" {
				out = append(out, part)
			}
			start = i + 1
		}
	}
	if part := strings.TrimSpace(s[start:]); part != "" {
		out = append(out, part)
	}
	return out
}

// Target is a call being matched. It renders the call's text at most once,
// and only if a pattern needs it. The zero value is not usable; use
// NewTarget or Reset.
type Target struct {
	Call *tool.Call
	// Order is the order the call's arguments are rendered in: the called
	// tool's (tool.OrderOf). Nil renders them sorted by name.
	Order    tool.Order
	buf      []byte
	textArgs []argjson.Arg
	rendered bool
	argBuf   []byte
	args     []argjson.Arg
	spans    [][2]int // argument text in argBuf, {-1,-1} until decoded
	parsed   bool
	scripts  []parsedArg // shell parses of arguments, for P8 patterns
}

// NewTarget returns a target for call, its arguments rendered in order.
func NewTarget(call *tool.Call, order tool.Order) *Target {
	return &Target{Call: call, Order: order}
}

// Reset makes t a target for call, its arguments rendered in order, reusing
// its buffers.
func (t *Target) Reset(call *tool.Call, order tool.Order) {
	t.Call, t.Order, t.buf, t.rendered, t.argBuf = call, order, t.buf[:0], false, t.argBuf[:0]
	t.args, t.spans, t.parsed = t.args[:0], t.spans[:0], false
	clear(t.scripts)
	t.scripts = t.scripts[:0]
}

// Text returns the call's one-line text, its arguments in t.Order.
func (t *Target) Text() string {
	if !t.rendered {
		// The arguments read once for both the text and argText;
		// rendering sorts them, so it sorts a copy.
		t.parse()
		t.textArgs = append(t.textArgs[:0], t.args...)
		t.buf = t.Call.AppendTextArgs(t.buf[:0], t.Order, t.textArgs)
		t.rendered = true
	}
	return unsafeString(t.buf)
}

// parse reads the call's arguments into t.args, once: none when they did
// not parse.
func (t *Target) parse() {
	if t.parsed {
		return
	}
	if t.Call.ParseError == "" {
		t.args = argjson.Append(t.args[:0], t.Call.Arguments)
	}
	for range t.args {
		t.spans = append(t.spans, [2]int{-1, -1})
	}
	t.parsed = true
}

// argText returns the text a pattern matches for the argument key (see
// argjson.StringValue), decoding the arguments and each value at most once.
func (t *Target) argText(key string) (string, bool) {
	t.parse()
	for i := range t.args {
		if t.args[i].Key != key {
			continue
		}
		sp := &t.spans[i]
		if sp[0] < 0 {
			sp[0] = len(t.argBuf)
			t.argBuf = argjson.StringValue(t.argBuf, t.args[i].Value)
			sp[1] = len(t.argBuf)
		}
		return unsafeString(t.argBuf[sp[0]:sp[1]]), true
	}
	return "", false
}

// Match reports whether p matches the target's call.
func (p *Pattern) Match(t *Target) bool {
	switch p.kind {
	case kindName:
		return t.Call.Function == p.name
	case kindText:
		return p.text.match(t.Text())
	}
	if !p.tool.match(t.Call.Function) {
		return false
	}
	if t.Call.ParseError != "" && (len(p.args) > 0 || len(p.cmds) > 0) {
		return false
	}
	for i := range p.args {
		a := &p.args[i]
		v, ok := t.argText(a.key)
		if !ok || !a.glob.match(v) {
			return false
		}
	}
	for i := range p.cmds {
		a := &p.cmds[i]
		s, ok := t.script(a.key)
		if !ok || !a.matchScript(s) {
			return false
		}
	}
	return true
}

// Matcher matches a call if any of its patterns does. An empty Matcher
// matches nothing.
type Matcher []Pattern

// Match reports whether any pattern matches t.
func (m Matcher) Match(t *Target) bool {
	for i := range m {
		if m[i].Match(t) {
			return true
		}
	}
	return false
}

// CompileList compiles patterns, splitting comma lists.
func CompileList(srcs []string) (Matcher, error) {
	var m Matcher
	for _, s := range srcs {
		for _, part := range splitList(s) {
			p, err := Compile(part)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %w", part, err)
			}
			m = append(m, p)
		}
	}
	return m, nil
}
