package calltext_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/calltext"
	"github.com/wardenhq/warden/tool"
)

// FuzzArgumentsIn (SPEC P2, issue 18 item 9): arguments stored in a
// tool's order (ArgumentsIn) are the same JSON value, and read back in
// their own order (KeyOrder) they render exactly as TextIn renders the
// call — what the web panel relies on to show a queued call as patterns
// see it.
func FuzzArgumentsIn(f *testing.F) {
	f.Add(`{"z":1,"cmd":"ls","a":{"y":2,"x":1}}`, "cmd,b")
	f.Add(`{"k\u00e9y":"\u003c","s":"a\"b\\c\n"}`, "s")
	f.Add(`{}`, "")
	f.Fuzz(func(t *testing.T, s, order string) {
		c := tool.NewCall("1", "f", s)
		if c.ParseError != "" {
			return
		}
		var o tool.Order
		if order != "" {
			o = strings.Split(order, ",")
		}
		stored := calltext.ArgumentsIn(c.Arguments, c.ParseError, o)
		again := tool.NewCall("1", "f", string(stored))
		if again.ParseError != "" {
			t.Fatalf("ArgumentsIn(%q) = %s, which does not parse: %s", o, stored, again.ParseError)
		}
		var v1, v2 any
		if json.Unmarshal(c.Arguments, &v1) != nil || json.Unmarshal(stored, &v2) != nil || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("ArgumentsIn changed the value: %s → %s", c.Arguments, stored)
		}
		if got, want := again.TextIn(calltext.KeyOrder(stored)), c.TextIn(o); got != want {
			t.Fatalf("stored %s renders %s, want %s", stored, got, want)
		}
	})
}
