// Package jsonerr rewords the errors of encoding/json for people: the JSON
// kinds involved and the field, never the Go types (issue 10 item 8).
package jsonerr

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Plain rewords an error of encoding/json in plain words: a value
// of the wrong type names the field and the JSON types involved, never the
// Go type it was to be decoded into. Other errors are returned as they are.
func Plain(err error) error {
	te, ok := err.(*json.UnmarshalTypeError)
	if !ok {
		return err
	}
	want := jsonKind(te.Type)
	msg := fmt.Sprintf("got %s, want %s", jsonValue(te.Value), want)
	if te.Field != "" {
		msg = fmt.Sprintf("field %q: %s", te.Field, msg)
	}
	return &plainError{msg: msg, err: err}
}

// plainError is an error reworded for people, wrapping the original.
type plainError struct {
	msg string
	err error
}

func (e *plainError) Error() string { return e.msg }
func (e *plainError) Unwrap() error { return e.err }

// jsonValue names the kind of JSON value encoding/json reports ("array",
// "number 3", "string").
func jsonValue(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case v == "bool":
		return "true or false"
	case v == "null":
		return v
	}
	return "a " + v
}

// jsonKind names the JSON kind a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
