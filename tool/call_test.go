package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/argjson"
)

func TestA6_NewCallKeepsUnparseableText(t *testing.T) {
	tests := []struct {
		args    string
		wantErr bool
	}{
		{`{"cmd":"ls"}`, false},
		{``, false},
		{`  {}  `, false},
		{`{"cmd":`, true},
		{`["ls"]`, true},
		{`"ls"`, true},
	}
	for _, tt := range tests {
		c := NewCall("1", "bash", tt.args)
		if (c.ParseError != "") != tt.wantErr {
			t.Errorf("NewCall(%q): parse error %q", tt.args, c.ParseError)
		}
		if tt.wantErr && (c.ArgumentsRaw != tt.args || c.Arguments != nil) {
			t.Errorf("NewCall(%q) = %+v", tt.args, c)
		}
		var v map[string]any
		if err := c.Unmarshal(&v); (err != nil) != tt.wantErr {
			t.Errorf("Unmarshal(%q) = %v", tt.args, err)
		}
	}
}

func TestL4_AsError(t *testing.T) {
	tests := []struct {
		err  error
		want ErrorType
	}{
		{Errorf(ErrPermission, "no"), ErrPermission},
		{fmt.Errorf("wrapped: %w", Errorf(ErrParsing, "bad")), ErrParsing},
		{fmt.Errorf("run: %w", context.DeadlineExceeded), ErrTimeout},
		{context.Canceled, ErrCancelled},
		{errors.New("x"), ErrUnknown},
	}
	for _, tt := range tests {
		if got := AsError(tt.err); got.Type != tt.want {
			t.Errorf("AsError(%v) = %s, want %s", tt.err, got.Type, tt.want)
		}
	}
	if AsError(nil) != nil {
		t.Error("AsError(nil) != nil")
	}
}

func TestDecodeArgumentsIsStrict(t *testing.T) {
	var a struct {
		Cmd string `json:"cmd"`
	}
	// SPEC A8: names match fields exactly, never by case.
	for _, raw := range []string{`{"cmd":"ls","extra":1}`, `{"cmd":"ls"} {}`, `{"cmd":3}`, `{"Cmd":"ls"}`} {
		err := DecodeArguments("bash", json.RawMessage(raw), &a)
		var te *Error
		if !errors.As(err, &te) || te.Type != ErrParsing {
			t.Errorf("DecodeArguments(%s) = %v, want a parsing error", raw, err)
		}
	}
	if err := DecodeArguments("bash", json.RawMessage(`{"cmd":"ls"}`), &a); err != nil || a.Cmd != "ls" {
		t.Errorf("valid arguments: %v, %+v", err, a)
	}
}

// FuzzArguments checks the argument walker against encoding/json: for any
// object, the keys and values it yields are the object's members in order.
func FuzzArguments(f *testing.F) {
	f.Add(`{"b":1,"a":"x"}`)
	f.Add(`{"k\u00e9y":{"n":[1,{"x":null}]},"s":"a\"b\\c\n"}`)
	f.Add(` { "a" : [ ] , "b" : { } } `)
	f.Fuzz(func(t *testing.T, s string) {
		c := NewCall("1", "f", s)
		_ = c.Text()
		if c.ParseError != "" {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(c.Arguments, &want); err != nil {
			t.Fatalf("accepted arguments do not decode: %v", err)
		}
		args := argjson.Append(nil, c.Arguments)
		seen := map[string]bool{}
		for _, a := range args {
			seen[a.Key] = true
			if !json.Valid(a.Value) {
				t.Errorf("value of %q is not JSON: %q", a.Key, a.Value)
			}
			var v1, v2 any
			_ = json.Unmarshal(a.Value, &v1)
			_ = json.Unmarshal(want[a.Key], &v2)
			if fmt.Sprint(v1) != fmt.Sprint(v2) && !dupKey(c.Arguments, a.Key) {
				t.Errorf("key %q: value %s, encoding/json %s", a.Key, a.Value, want[a.Key])
			}
		}
		for k := range want {
			if !seen[k] {
				t.Errorf("key %q missed", k)
			}
		}
	})
}

// dupKey reports whether key occurs more than once (encoding/json keeps the
// last; the walker yields all).
func dupKey(obj json.RawMessage, key string) bool {
	n := 0
	_ = argjson.Each(obj, func(k string, _ json.RawMessage) bool {
		if k == key {
			n++
		}
		return true
	})
	return n > 1
}

func TestP2_ParamOrder(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["b"],"properties":{"cmd":{"type":"string","properties":{"x":{}}},"b":{},"a":{}}}`)
	if got := paramOrder(schema); strings.Join(got, ",") != "cmd,b,a" {
		t.Errorf("paramOrder = %q, want cmd,b,a", got)
	}
	for _, s := range []string{``, `[]`, `{"type":"object"}`, `{"properties":`} {
		if got := paramOrder(json.RawMessage(s)); got != nil {
			t.Errorf("paramOrder(%s) = %q, want nil", s, got)
		}
	}
}

func TestP2_TextInSchemaOrderThenSorted(t *testing.T) {
	o := Order{"cmd", "b"}
	for _, args := range []string{
		`{"z":1,"b":2,"a":{"y":1,"x":2},"cmd":"ls"}`,
		`{"cmd":"ls","a":{"x":2,"y":1},"z":1,"b":2}`,
		`{"a":{"y":1,"x":2},"b":2,"z":1,"cmd":"ls"}`,
	} {
		c := NewCall("1", "f", args)
		if got, want := c.TextIn(o), `f(cmd='ls', b=2, a={'x': 2, 'y': 1}, z=1)`; got != want {
			t.Errorf("TextIn(%s) = %s, want %s", args, got, want)
		}
		if got, want := c.Text(), `f(a={'x': 2, 'y': 1}, b=2, cmd='ls', z=1)`; got != want {
			t.Errorf("Text(%s) = %s, want %s", args, got, want)
		}
	}
	bad := NewCall("1", "f", `{"cmd":`)
	if got := bad.TextIn(o); got != `f({"cmd":)` {
		t.Errorf("unparsed call renders %s", got)
	}
}
