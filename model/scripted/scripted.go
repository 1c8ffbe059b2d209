// Package scripted is a model that replays a fixed list of assistant
// messages, for tests, demos and replays (SPEC L6). It registers itself as
// the provider "scripted", so importing it for its side effect makes the
// spec "scripted:PATH" open the script in the file PATH.
//
// A script is a YAML (or JSON) list of assistant turns:
//
//	# script.yaml
//	- content: I'll look at the directory first.
//	  tool_calls:
//	    - id: call_1            # optional; generated when missing
//	      function: list_files
//	      arguments: {path: /tmp, recursive: true}
//	- tool_calls:
//	    - function: run
//	      arguments_raw: '{"cmd": "ls'   # passed as is: the call gets a ParseError
//	- content: Done.
//
// The keys of a turn are content, tool_calls and role (which must be
// assistant when present); the keys of a call are id, function, arguments
// and arguments_raw. Other keys are errors. Arguments keep the key order
// written in the file.
package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

func init() {
	model.Register("scripted", func(name string, _ model.Options) (model.Model, error) {
		return load(name)
	})
}

// Model replays its turns in order, one per call to Generate, whoever the
// caller is. It is safe for concurrent use. Once the turns are used up it
// answers with an empty assistant message that calls no tools.
type Model struct {
	mu    sync.Mutex
	turns []chat.Message
	next  int
}

var _ model.Model = (*Model)(nil)

// New returns a model that replays turns. Their role is set to assistant and
// tool calls without an id get one ("call_<turn>_<n>", both counted from 1).
func New(turns ...chat.Message) *Model {
	m := &Model{turns: make([]chat.Message, len(turns))}
	for i, t := range turns {
		t = clone(t)
		t.Role = chat.Assistant
		for j := range t.ToolCalls {
			if t.ToolCalls[j].ID == "" {
				t.ToolCalls[j].ID = callID(i, j)
			}
		}
		m.turns[i] = t
	}
	return m
}

// maxFile is the largest script load reads, in bytes.
const maxFile = 16 << 20

// load reads the script in the file at path. See Parse for its format and
// errors; an error reading the file wraps the error of os.ReadFile, and a
// file larger than maxFile is an error that says its size and the limit.
func load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	if len(data) > maxFile {
		n := int64(len(data))
		if fi, err := f.Stat(); err == nil {
			n = fi.Size()
		}
		return nil, fmt.Errorf("scripted: %s: the model file is %.1f MiB; the limit is %d MiB", path, float64(n)/(1<<20), maxFile>>20)
	}
	return Parse(data, path)
}

// Parse reads a script from data, a YAML or JSON list of assistant turns
// (an empty document is a script without turns). filename names the script
// in errors, which are positioned errors as policy files give
// (*policy.Error) and read "filename:line:col: message".
func Parse(data []byte, filename string) (*Model, error) {
	if filename == "" {
		filename = "script"
	}
	if err := filepos.CheckUTF8(filename, data); err != nil {
		var pe *policy.Error
		errors.As(err, &pe)
		return nil, &policy.Error{Pos: policy.Pos{File: filename, Line: pe.Pos.Line, Col: pe.Pos.Col}, Err: errors.New(pe.Msg)}
	}
	p := &parser{file: filename, budget: maxValues}
	turns, err := p.script(data)
	if err != nil {
		return nil, err
	}
	return &Model{turns: turns}, nil
}

// Generate returns the next turn of the script, or an empty assistant
// message when there is none left. It consumes no turn when ctx is done.
// Usage is estimated as a token per four bytes of the request's messages
// and of the answer, at least one each.
func (m *Model) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("scripted: %w", err)
	}
	msg := chat.Message{Role: chat.Assistant}
	m.mu.Lock()
	if m.next < len(m.turns) {
		msg = m.turns[m.next]
		m.next++
	}
	m.mu.Unlock()
	return model.Response{
		Message: msg,
		Usage: model.Usage{
			InputTokens:  estimate(req.Messages...),
			OutputTokens: estimate(msg),
		},
	}, nil
}

// Remaining returns how many turns are left to replay.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns) - m.next
}

// estimate returns a rough token count of msgs: a token per four bytes of
// text, at least one.
func estimate(msgs ...chat.Message) int {
	n := 0
	for _, msg := range msgs {
		n += len(msg.Content)
		for _, c := range msg.ToolCalls {
			n += len(c.Function) + len(c.Arguments) + len(c.ArgumentsRaw)
		}
	}
	return max(n/4, 1)
}

// clone returns a copy of msg that shares no memory with it.
func clone(msg chat.Message) chat.Message {
	if msg.ToolCalls != nil {
		calls := make([]tool.Call, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			if c.Arguments != nil {
				c.Arguments = append(json.RawMessage(nil), c.Arguments...)
			}
			calls[i] = c
		}
		msg.ToolCalls = calls
	}
	if msg.Error != nil {
		e := *msg.Error
		msg.Error = &e
	}
	return msg
}

// callID returns the id generated for call j of turn i (both from 0).
func callID(i, j int) string {
	return "call_" + strconv.Itoa(i+1) + "_" + strconv.Itoa(j+1)
}

// Limits on the values of a script, which YAML aliases could otherwise make
// endless or exponentially large.
const (
	maxDepth  = 200
	maxValues = 1 << 18
)

type parser struct {
	file   string
	budget int // values left to convert
}

// errorf returns a *policy.Error at the position of n.
func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, max(n.Column, 1)
	}
	return &policy.Error{Pos: policy.Pos{File: p.file, Line: line, Col: col}, Err: fmt.Errorf(format, args...)}
}

// syntaxError converts an error of the YAML decoder to a *policy.Error. The
// decoder reports only a line, so the column is 1.
func (p *parser) syntaxError(err error) error {
	line, msg := filepos.YAMLPosition(err)
	return &policy.Error{Pos: policy.Pos{File: p.file, Line: line, Col: 1}, Err: &yamlError{msg: msg, err: err}}
}

// yamlError is an error of the YAML decoder without its "yaml: line N: "
// prefix.
type yamlError struct {
	msg string
	err error
}

func (e *yamlError) Error() string { return e.msg }
func (e *yamlError) Unwrap() error { return e.err }

// decode reads the YAML documents of data: the first, and whether there is
// another (at which node).
func (p *parser) decode(data []byte) (doc, extra *yaml.Node, err error) {
	defer func() {
		// yaml.v3 is not known to panic on any input, but a script
		// is user input: turn a panic into an error all the same.
		if r := recover(); r != nil {
			doc, extra = nil, nil
			err = &policy.Error{Pos: policy.Pos{File: p.file, Line: 1, Col: 1}, Err: fmt.Errorf("yaml decoder failed: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if err := dec.Decode(&first); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		return nil, nil, p.syntaxError(err)
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
		return &first, nil, nil
	case err != nil:
		return nil, nil, p.syntaxError(err)
	}
	return &first, &second, nil
}

// script converts the YAML in data to the turns it lists.
func (p *parser) script(data []byte) ([]chat.Message, error) {
	doc, extra, err := p.decode(data)
	if err != nil {
		return nil, err
	}
	if extra != nil {
		return nil, p.errorf(extra, "a script is one YAML document; found another")
	}
	if doc == nil || len(doc.Content) == 0 {
		return nil, nil
	}
	root := resolve(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.SequenceNode {
		return nil, p.errorf(root, "a script is a list of assistant turns, not %s", describe(root))
	}
	turns := make([]chat.Message, 0, len(root.Content))
	for i, n := range root.Content {
		t, err := p.turn(i, resolve(n))
		if err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	return turns, nil
}

// turn converts the mapping n to turn i.
func (p *parser) turn(i int, n *yaml.Node) (chat.Message, error) {
	msg := chat.Message{Role: chat.Assistant}
	if n.Kind != yaml.MappingNode {
		return msg, p.errorf(n, "turn %d: want a mapping with content and tool_calls, not %s", i+1, describe(n))
	}
	err := p.fields(n, "turn", func(key string, k, v *yaml.Node) error {
		switch key {
		case "content":
			s, err := p.text(v, "content")
			msg.Content = s
			return err
		case "role":
			if v.Kind != yaml.ScalarNode || v.Value != string(chat.Assistant) {
				return p.errorf(v, "a turn's role can only be assistant")
			}
			return nil
		case "tool_calls":
			if isNull(v) {
				return nil
			}
			if v.Kind != yaml.SequenceNode {
				return p.errorf(v, "tool_calls: want a list of calls, not %s", describe(v))
			}
			for j, c := range v.Content {
				call, err := p.call(i, j, resolve(c))
				if err != nil {
					return err
				}
				msg.ToolCalls = append(msg.ToolCalls, call)
			}
			return nil
		}
		return p.errorf(k, "unknown key %q in turn (want content, tool_calls or role)", key)
	})
	return msg, err
}

// call converts the mapping n to call j of turn i.
func (p *parser) call(i, j int, n *yaml.Node) (tool.Call, error) {
	if n.Kind != yaml.MappingNode {
		return tool.Call{}, p.errorf(n, "tool call: want a mapping with function and arguments, not %s", describe(n))
	}
	var (
		id, function, raw string
		args              []byte
		hasArgs, hasRaw   bool
		argsNode          *yaml.Node
	)
	err := p.fields(n, "tool call", func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "id":
			id, err = p.text(v, "id")
		case "function":
			function, err = p.text(v, "function")
		case "arguments":
			hasArgs, argsNode = true, k
			switch {
			case isNull(v):
				args = []byte("{}")
			case v.Kind == yaml.MappingNode:
				var buf bytes.Buffer
				err = p.value(&buf, v, 0)
				args = buf.Bytes()
			default:
				err = p.errorf(v, "arguments: want a mapping, not %s (use arguments_raw for text passed as is)", describe(v))
			}
		case "arguments_raw":
			hasRaw = true
			raw, err = p.text(v, "arguments_raw")
		default:
			err = p.errorf(k, "unknown key %q in tool call (want id, function, arguments or arguments_raw)", key)
		}
		return err
	})
	if err != nil {
		return tool.Call{}, err
	}
	if function == "" {
		return tool.Call{}, p.errorf(n, "tool call has no function")
	}
	if hasArgs && hasRaw {
		return tool.Call{}, p.errorf(argsNode, "tool call has both arguments and arguments_raw")
	}
	if id == "" {
		id = callID(i, j)
	}
	if hasArgs {
		return tool.NewCall(id, function, string(args)), nil
	}
	return tool.NewCall(id, function, raw), nil
}

// fields calls fn for each key of the mapping n, in order, rejecting
// duplicate and non-text keys.
func (p *parser) fields(n *yaml.Node, what string, fn func(key string, k, v *yaml.Node) error) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return p.errorf(k, "%s keys must be text, not %s", what, describe(k))
		}
		if k.ShortTag() == "!!merge" {
			return p.errorf(k, "merge keys (<<) are not supported")
		}
		if seen[k.Value] {
			return p.errorf(k, "duplicate key %q in %s", k.Value, what)
		}
		seen[k.Value] = true
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// text returns the scalar n as text; null is "".
func (p *parser) text(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errorf(n, "%s: want text, not %s", what, describe(n))
	}
	if n.ShortTag() == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

// value appends n to buf as JSON, keeping the order of mapping keys.
func (p *parser) value(buf *bytes.Buffer, n *yaml.Node, depth int) error {
	if p.budget--; p.budget < 0 {
		return p.errorf(n, "too many values (do aliases expand without end?)")
	}
	if depth > maxDepth {
		return p.errorf(n, "values nested more than %d deep", maxDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return p.errorf(n, "alias to nothing")
		}
		return p.value(buf, n.Alias, depth+1)
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := resolve(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return p.errorf(k, "keys must be text, not %s", describe(k))
			}
			if k.ShortTag() == "!!merge" {
				return p.errorf(k, "merge keys (<<) are not supported")
			}
			if seen[k.Value] {
				return p.errorf(k, "duplicate key %q", k.Value)
			}
			seen[k.Value] = true
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k.Value)
			buf.WriteByte(':')
			if err := p.value(buf, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := p.value(buf, item, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return p.scalar(buf, n)
	}
	return p.errorf(n, "unexpected %s", describe(n))
}

// scalar appends the scalar n to buf as JSON. Numbers written as JSON
// numbers are kept as written.
func (p *parser) scalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		buf.WriteString("null")
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return p.errorf(n, "%w", err)
		}
		buf.WriteString(strconv.FormatBool(b))
		return nil
	case "!!int", "!!float":
		if isJSONNumber(n.Value) {
			buf.WriteString(n.Value)
			return nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return p.errorf(n, "%w", err)
		}
		switch v := v.(type) {
		case int:
			buf.WriteString(strconv.Itoa(v))
		case int64:
			buf.WriteString(strconv.FormatInt(v, 10))
		case uint64:
			buf.WriteString(strconv.FormatUint(v, 10))
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return p.errorf(n, "%s has no JSON form", n.Value)
			}
			buf.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			writeString(buf, n.Value)
		}
		return nil
	}
	// Strings, and anything else (timestamps, binary, custom tags), as
	// the text written.
	writeString(buf, n.Value)
	return nil
}

// writeString appends s to buf as a JSON string, without escaping HTML.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // strings always encode
	buf.Truncate(buf.Len() - 1) // the newline Encode adds
}

// isJSONNumber reports whether s is a number in JSON's syntax.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is the null scalar.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names the kind of n for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	return "nothing"
}
