package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/internal/calltext"
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
	buf, _ = calltext.Append(buf, c.Function, c.Arguments, c.ArgumentsRaw, c.ParseError, o, stack[:0])
	return buf
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
