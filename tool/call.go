package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Call is one request by a model to run a tool.
type Call struct {
	// ID identifies the call within its assistant message.
	ID string `json:"id"`
	// Function is the name of the tool called.
	Function string `json:"function"`
	// Arguments is the JSON object the model sent, with its keys in the
	// model's order. It is nil when the arguments did not parse.
	Arguments json.RawMessage `json:"arguments"`
	// ArgumentsRaw holds the argument text as the model sent it when it was
	// not a JSON object.
	ArgumentsRaw string `json:"arguments_raw,omitempty"`
	// ParseError says why ArgumentsRaw did not parse.
	ParseError string `json:"parse_error,omitempty"`
}

// NewCall returns a call of function with the argument text the model sent.
// Text that is not a JSON object leaves the call with a ParseError; such a
// call never reaches an approver (SPEC A6).
func NewCall(id, function, arguments string) Call {
	c := Call{ID: id, Function: function}
	if err := c.SetArguments([]byte(arguments)); err != nil {
		c.ArgumentsRaw = arguments
		c.ParseError = err.Error()
	}
	return c
}

// SetArguments sets the arguments from JSON text, which must be an object
// in which no object has a duplicate member name or two names that differ
// only by case (SPEC A8: one reading of the arguments). Empty text means no
// arguments.
func (c *Call) SetArguments(text []byte) error {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		c.Arguments = json.RawMessage("{}")
		return nil
	}
	if !json.Valid(text) {
		return fmt.Errorf("arguments of %s are not valid JSON", c.Function)
	}
	if !utf8.Valid(text) {
		return fmt.Errorf("arguments of %s are not valid UTF-8", c.Function)
	}
	if text[0] != '{' {
		return fmt.Errorf("arguments of %s are not a JSON object", c.Function)
	}
	if err := CheckNames(text); err != nil {
		return fmt.Errorf("arguments of %s: %w", c.Function, err)
	}
	c.Arguments = append(json.RawMessage(nil), text...)
	return nil
}

// Unmarshal decodes the call's arguments into v. Names must match v's
// fields exactly (SPEC A8): a name that matches a field only by another case
// is an error; names that match no field are ignored.
func (c Call) Unmarshal(v any) error {
	if c.ParseError != "" {
		return &Error{Type: ErrParsing, Message: c.ParseError}
	}
	if err := CheckNames(c.Arguments); err != nil {
		return &Error{Type: ErrParsing, Message: fmt.Sprintf("arguments of %s: %v", c.Function, err)}
	}
	if t := reflect.TypeOf(v); t != nil {
		if err := checkFields(c.Arguments, t, true, 0); err != nil {
			return &Error{Type: ErrParsing, Message: fmt.Sprintf("arguments of %s: %v", c.Function, err)}
		}
	}
	if err := json.Unmarshal(c.Arguments, v); err != nil {
		return &Error{Type: ErrParsing, Message: fmt.Sprintf("arguments of %s: %v", c.Function, err)}
	}
	return nil
}

// Order is the order a call's arguments are rendered in (SPEC P2): the
// names it lists, in its order, then every other argument sorted by name.
// The model's order is never used, so a model cannot move an argument away
// from a deny pattern by sending its keys in another order. The nil Order
// renders every argument sorted by name.
type Order []string

// paramOrder returns the order of the parameters declared by a tool's JSON
// Schema: the names of its "properties", in the order the schema lists
// them. It returns nil when the schema declares no properties or is not a
// JSON object.
func paramOrder(schema json.RawMessage) Order {
	if !json.Valid(schema) {
		return nil
	}
	var o Order
	_ = EachArgument(schema, func(key string, value json.RawMessage) bool {
		if key != "properties" {
			return true
		}
		_ = EachArgument(value, func(name string, _ json.RawMessage) bool {
			o = append(o, strings.Clone(name))
			return true
		})
		return false
	})
	return o
}

// OrderOf returns the order t's calls are rendered in: its parameters in
// the order of its schema.
func OrderOf(t Tool) Order { return paramOrder(t.Info().Parameters) }

// rank returns where the argument key goes: its index in o, or len(o) for an
// argument o does not list.
func (o Order) rank(key string) int {
	for i, k := range o {
		if k == key {
			return i
		}
	}
	return len(o)
}

// sortArgs puts args in the order o renders them in. Arguments with equal
// names keep their relative order.
func (o Order) sortArgs(args []Arg) {
	slices.SortStableFunc(args, func(a, b Arg) int {
		ra, rb := o.rank(a.Key), o.rank(b.Key)
		if ra != rb {
			return ra - rb
		}
		if ra < len(o) {
			return 0
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// Text renders the call on one line as name(k1='v1', k2=2): strings single
// quoted and unescaped, every argument sorted by name, booleans and null as
// Python writes them (SPEC P2). TextIn renders the arguments in a tool's
// order; the text that policy patterns match is TextIn with the called
// tool's OrderOf.
func (c Call) Text() string { return string(c.AppendTextIn(nil, nil)) }

// TextIn renders the call like Text, with its arguments in the order o.
func (c Call) TextIn(o Order) string { return string(c.AppendTextIn(nil, o)) }

// AppendText appends the call's Text to buf.
func (c Call) AppendText(buf []byte) []byte { return c.AppendTextIn(buf, nil) }

// AppendTextIn appends the call's TextIn(o) to buf.
func (c Call) AppendTextIn(buf []byte, o Order) []byte {
	var stack [8]Arg
	buf, _ = c.AppendTextArgs(buf, o, stack[:0])
	return buf
}

// AppendTextArgs is AppendTextIn with a caller's scratch slice for the
// arguments, returned (grown as needed) for reuse.
func (c Call) AppendTextArgs(buf []byte, o Order, scratch []Arg) ([]byte, []Arg) {
	scratch = scratch[:0]
	if c.ParseError == "" {
		scratch = AppendArgs(scratch, c.Arguments)
	}
	return c.appendArgs(buf, o, scratch), scratch
}

// appendArgs appends the call's text with the arguments args, sorting them
// into the order o.
func (c Call) appendArgs(buf []byte, o Order, args []Arg) []byte {
	buf = append(buf, c.Function...)
	buf = append(buf, '(')
	if c.ParseError != "" {
		buf = append(buf, c.ArgumentsRaw...)
		return append(buf, ')')
	}
	o.sortArgs(args)
	for i, a := range args {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, a.Key...)
		buf = append(buf, '=')
		buf = appendValue(buf, a.Value)
	}
	return append(buf, ')')
}

// Argument returns the raw JSON value of the argument named key.
func (c Call) Argument(key string) (json.RawMessage, bool) {
	var found json.RawMessage
	_ = EachArgument(c.Arguments, func(k string, v json.RawMessage) bool {
		if k == key {
			found = v
			return false
		}
		return true
	})
	return found, found != nil
}

// EachArgument calls fn for each member of the JSON object obj in order,
// until fn returns false. Keys are passed unescaped; a key without escapes
// shares obj's memory, which must not change while fn runs. obj must be
// valid JSON.
func EachArgument(obj json.RawMessage, fn func(key string, value json.RawMessage) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		end := skipValue(obj, i)
		var key string
		if raw := obj[i+1 : max(end-1, i+1)]; bytes.IndexByte(raw, '\\') < 0 {
			key = unsafe.String(unsafe.SliceData(raw), len(raw))
		} else {
			key = string(appendUnquoted(nil, obj[i:end]))
		}
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // ':'
		vend := skipValue(obj, i)
		if !fn(key, obj[i:vend]) {
			return nil
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) || obj[i] == '}' {
			return nil
		}
		i = skipSpace(obj, i+1) // ','
	}
	return nil
}

// Arg is one member of an arguments object.
type Arg struct {
	Key   string
	Value json.RawMessage
}

// AppendArgs appends the members of the JSON object obj to dst in order.
// Keys share obj's memory as in EachArgument.
func AppendArgs(dst []Arg, obj json.RawMessage) []Arg {
	_ = EachArgument(obj, func(k string, v json.RawMessage) bool {
		dst = append(dst, Arg{k, v})
		return true
	})
	return dst
}

// appendValue appends the pattern-text rendering of the JSON value v:
// strings in single quotes without escapes, true/false/null as
// True/False/None, arrays and objects in Python's literal syntax (object
// members sorted by name).
func appendValue(buf []byte, v json.RawMessage) []byte {
	i := skipSpace(v, 0)
	if i >= len(v) {
		return buf
	}
	switch v[i] {
	case '"':
		buf = append(buf, '\'')
		buf = appendUnquoted(buf, v[i:skipValue(v, i)])
		return append(buf, '\'')
	case 't':
		return append(buf, "True"...)
	case 'f':
		return append(buf, "False"...)
	case 'n':
		return append(buf, "None"...)
	case '[':
		buf = append(buf, '[')
		j := skipSpace(v, i+1)
		first := true
		for j < len(v) && v[j] != ']' {
			end := skipValue(v, j)
			if !first {
				buf = append(buf, ", "...)
			}
			first = false
			buf = appendValue(buf, v[j:end])
			j = skipSpace(v, end)
			if j < len(v) && v[j] == ',' {
				j = skipSpace(v, j+1)
			}
		}
		return append(buf, ']')
	case '{':
		// Members sorted by name, as the arguments are: never the model's
		// order.
		var stack [8]Arg
		members := AppendArgs(stack[:0], v[i:])
		Order(nil).sortArgs(members)
		buf = append(buf, '{')
		for k, m := range members {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(buf, '\'')
			buf = append(buf, m.Key...)
			buf = append(buf, "': "...)
			buf = appendValue(buf, m.Value)
		}
		return append(buf, '}')
	}
	// number
	end := skipValue(v, i)
	return append(buf, v[i:end]...)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipValue(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return j
}

// appendUnquoted appends the contents of the JSON string literal s, with its
// escapes decoded.
func appendUnquoted(buf, s []byte) []byte {
	if len(s) < 2 {
		return buf
	}
	s = s[1 : len(s)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return append(buf, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			buf = append(buf, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			buf = append(buf, '\n')
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'u':
			if i+4 >= len(s) {
				return buf
			}
			r := rune(hex4(s[i+1 : i+5]))
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				lo := rune(hex4(s[i+3 : i+7]))
				if lo >= 0xDC00 && lo < 0xE000 {
					r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
					i += 6
				}
			}
			buf = utf8.AppendRune(buf, r)
		default: // '"', '\\', '/'
			buf = append(buf, s[i])
		}
	}
	return buf
}

func hex4(b []byte) int {
	n, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return int(n)
}

// StringValue returns the text a pattern matches for one argument value: a
// string's contents, or the rendering of appendValue for anything else.
func StringValue(buf []byte, v json.RawMessage) []byte {
	i := skipSpace(v, 0)
	if i < len(v) && v[i] == '"' {
		return appendUnquoted(buf, v[i:skipValue(v, i)])
	}
	return appendValue(buf, v)
}

// DecodeArguments decodes the arguments object raw of a call to tool name
// into v, strictly (SPEC A8): duplicate names, names that differ only by
// case, names that are not exactly those of v's fields (struct fields are
// never matched by case), unknown arguments and trailing data are errors.
// Errors are *Error of type parsing. Empty raw means no arguments.
func DecodeArguments(name string, raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := CheckNames(raw); err != nil {
		return Errorf(ErrParsing, "arguments of %s: %v", name, err)
	}
	if t := reflect.TypeOf(v); t != nil {
		if err := checkFields(raw, t, false, 0); err != nil {
			return Errorf(ErrParsing, "arguments of %s: %v", name, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(ErrParsing, "arguments of %s: %v", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Errorf(ErrParsing, "arguments of %s: unexpected data after the JSON object", name)
	}
	return nil
}
