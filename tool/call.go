package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/argjson"
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
	if err := argjson.CheckNames(text); err != nil {
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
	if err := argjson.CheckNames(c.Arguments); err != nil {
		return &Error{Type: ErrParsing, Message: fmt.Sprintf("arguments of %s: %v", c.Function, err)}
	}
	if t := reflect.TypeOf(v); t != nil {
		if err := argjson.CheckFields(c.Arguments, t, true, 0); err != nil {
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
	_ = argjson.Each(schema, func(key string, value json.RawMessage) bool {
		if key != "properties" {
			return true
		}
		_ = argjson.Each(value, func(name string, _ json.RawMessage) bool {
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

// ArgumentsIn returns the call's arguments object with its members in the
// order o renders them in: the same JSON value, each member's text as the
// model sent it. Stored so, the arguments read in their own order render
// as TextIn(o) does. It returns the arguments unchanged when they did not
// parse.
func (c Call) ArgumentsIn(o Order) json.RawMessage {
	if c.ParseError != "" || c.Arguments == nil {
		return c.Arguments
	}
	args := argjson.Append(nil, c.Arguments)
	o.sortArgs(args)
	buf := []byte{'{'}
	for i, a := range args {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(a.Key)
		buf = append(buf, k...)
		buf = append(buf, ':')
		buf = append(buf, a.Value...)
	}
	return append(buf, '}')
}

// KeyOrder returns the names of the JSON object raw's members, in the
// order it lists them: rendered in this order, arguments stored by
// ArgumentsIn read as they were stored. It returns nil when raw is not a
// JSON object.
func KeyOrder(raw json.RawMessage) Order {
	if !json.Valid(raw) {
		return nil
	}
	var o Order
	_ = argjson.Each(raw, func(key string, _ json.RawMessage) bool {
		o = append(o, strings.Clone(key))
		return true
	})
	return o
}

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
// names keep their relative order. Arguments already in order, as a
// model's usually are, are left as they are without sorting.
func (o Order) sortArgs(args []argjson.Arg) {
	for i := 1; i < len(args); i++ {
		if len(o) == 0 && args[i-1].Key <= args[i].Key {
			continue
		}
		if o.compare(args[i-1], args[i]) > 0 {
			slices.SortStableFunc(args, o.compare)
			return
		}
	}
}

// compare orders the arguments a and b as o renders them.
func (o Order) compare(a, b argjson.Arg) int {
	ra, rb := o.rank(a.Key), o.rank(b.Key)
	if ra != rb {
		return ra - rb
	}
	if ra < len(o) {
		return 0
	}
	return strings.Compare(a.Key, b.Key)
}

// Text renders the call on one line as name(k1='v1', k2=2): strings single
// quoted and unescaped, every argument sorted by name, booleans and null as
// Python writes them (SPEC P2). TextIn renders the arguments in a tool's
// order; the text that policy patterns match is TextIn with the called
// tool's OrderOf.
func (c Call) Text() string { return string(c.appendTextIn(nil, nil)) }

// TextIn renders the call like Text, with its arguments in the order o.
func (c Call) TextIn(o Order) string { return string(c.appendTextIn(nil, o)) }

// appendTextIn appends the call's TextIn(o) to buf.
func (c Call) appendTextIn(buf []byte, o Order) []byte {
	var stack [8]argjson.Arg
	args := stack[:0]
	if c.ParseError == "" {
		args = argjson.Append(args, c.Arguments)
	}
	return c.appendArgs(buf, o, args)
}

// AppendTextArgs appends the call's TextIn(o) to buf, given its arguments
// args as argjson.Append reads them from c.Arguments, for a caller that
// has read them already. It sorts args into the order o.
func (c Call) AppendTextArgs(buf []byte, o Order, args []argjson.Arg) []byte {
	return c.appendArgs(buf, o, args)
}

// appendArgs appends the call's text with the arguments args, sorting them
// into the order o.
func (c Call) appendArgs(buf []byte, o Order, args []argjson.Arg) []byte {
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
		buf = argjson.AppendValue(buf, a.Value)
	}
	return append(buf, ')')
}

// Argument returns the raw JSON value of the argument named key.
func (c Call) Argument(key string) (json.RawMessage, bool) {
	var found json.RawMessage
	_ = argjson.Each(c.Arguments, func(k string, v json.RawMessage) bool {
		if k == key {
			found = v
			return false
		}
		return true
	})
	return found, found != nil
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
	if err := argjson.CheckNames(raw); err != nil {
		return Errorf(ErrParsing, "arguments of %s: %v", name, err)
	}
	if t := reflect.TypeOf(v); t != nil {
		if err := argjson.CheckFields(raw, t, false, 0); err != nil {
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
