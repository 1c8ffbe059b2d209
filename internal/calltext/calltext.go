// Package calltext renders a tool call as policy patterns, people and the
// transcript read it (SPEC P2): name(k1='v1', k2=2), its arguments in the
// order of the called tool's schema and then by name. It also stores a
// call's arguments in that order and reads the order back, so that the
// web panel shows a queued call exactly as patterns saw it. Package tool's
// Call.Text and Call.TextIn render with it.
package calltext

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/wardenhq/warden/internal/argjson"
)

// rank returns where the argument key goes: its index in order, or
// len(order) for an argument order does not list.
func rank(order []string, key string) int {
	for i, k := range order {
		if k == key {
			return i
		}
	}
	return len(order)
}

// Sort puts args in the order a call renders them in: the names order
// lists first, in its order, then the others by name. Arguments with equal
// names keep their relative order. Arguments already in order, as a
// model's usually are, are left as they are without sorting.
func Sort(args []argjson.Arg, order []string) {
	compare := func(a, b argjson.Arg) int {
		ra, rb := rank(order, a.Key), rank(order, b.Key)
		if ra != rb {
			return ra - rb
		}
		if ra < len(order) {
			return 0
		}
		return strings.Compare(a.Key, b.Key)
	}
	for i := 1; i < len(args); i++ {
		if len(order) == 0 && args[i-1].Key <= args[i].Key {
			continue
		}
		if compare(args[i-1], args[i]) > 0 {
			slices.SortStableFunc(args, compare)
			return
		}
	}
}

// Append appends the text of a call of function to buf, with the arguments
// object arguments rendered in order, or, when parseError is not "", with
// the argument text raw as the model sent it. scratch is the caller's slice
// for the arguments, returned (grown as needed) for reuse.
func Append(buf []byte, function string, arguments json.RawMessage, raw, parseError string, order []string, scratch []argjson.Arg) ([]byte, []argjson.Arg) {
	scratch = scratch[:0]
	if parseError == "" {
		scratch = argjson.Append(scratch, arguments)
	}
	return AppendArgs(buf, function, raw, parseError, scratch, order), scratch
}

// AppendArgs is Append given the call's arguments args as argjson.Append
// reads them, for a caller that has read them already. It sorts args into
// order.
func AppendArgs(buf []byte, function, raw, parseError string, args []argjson.Arg, order []string) []byte {
	buf = append(buf, function...)
	buf = append(buf, '(')
	if parseError != "" {
		buf = append(buf, raw...)
		return append(buf, ')')
	}
	Sort(args, order)
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

// ArgumentsIn returns the arguments object arguments with its members in
// the order a call renders them in: the same JSON value, each member's text
// as the model sent it. Stored so, the arguments read in their own order
// (KeyOrder) render as they do in order. It returns arguments unchanged
// when they did not parse (parseError not "") or are nil.
func ArgumentsIn(arguments json.RawMessage, parseError string, order []string) json.RawMessage {
	if parseError != "" || arguments == nil {
		return arguments
	}
	args := argjson.Append(nil, arguments)
	Sort(args, order)
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
func KeyOrder(raw json.RawMessage) []string {
	if !json.Valid(raw) {
		return nil
	}
	var o []string
	_ = argjson.Each(raw, func(key string, _ json.RawMessage) bool {
		o = append(o, strings.Clone(key))
		return true
	})
	return o
}
