package jsonobj

import (
	"encoding/json"
	"testing"
)

// TestH5_MembersKeepTheirOrder checks what the panel (SPEC H5: a call's
// arguments as the model sent them) and hook install (a settings file keeps
// the person's order) rely on: Parse reads the members in order, with
// duplicates and number texts kept, and refuses what is not exactly one
// object; Marshal writes members in the order given.
func TestH5_MembersKeepTheirOrder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keys []string
		vals []string
		bad  bool
	}{
		{in: `{"z":1,"a":{"y":[1,2]},"m":"x"}`, keys: []string{"z", "a", "m"}, vals: []string{`1`, `{"y":[1,2]}`, `"x"`}},
		{in: ` {"n":1.50e3, "n":true} `, keys: []string{"n", "n"}, vals: []string{`1.50e3`, `true`}},
		{in: `{}`},
		{in: `[1]`, bad: true},
		{in: `"s"`, bad: true},
		{in: `{"a":1} {"b":2}`, bad: true},
		{in: `{"a":1} x`, bad: true},
		{in: `{"a":1`, bad: true},
		{in: ``, bad: true},
	} {
		got, err := Parse([]byte(tc.in))
		if tc.bad {
			if err == nil {
				t.Errorf("%q: parsed as %v", tc.in, got)
			}
			continue
		}
		if err != nil || len(got) != len(tc.keys) {
			t.Errorf("%q: %v, %v", tc.in, got, err)
			continue
		}
		for i, m := range got {
			if m.Key != tc.keys[i] || string(m.Value) != tc.vals[i] {
				t.Errorf("%q: member %d is %s=%s, want %s=%s", tc.in, i, m.Key, m.Value, tc.keys[i], tc.vals[i])
			}
		}
	}
	keys := []string{"z", "a", "<b>"}
	vals := []any{json.RawMessage(`[1, 2]`), "x\ny", 3}
	b, err := Marshal(len(keys), func(i int) (string, any) { return keys[i], vals[i] })
	if want := `{"z":[1,2],"a":"x\ny","\u003cb\u003e":3}`; err != nil || string(b) != want {
		t.Errorf("Marshal: %s, %v; want %s", b, err, want)
	}
	if _, err := Marshal(1, func(int) (string, any) { return "f", func() {} }); err == nil {
		t.Error("Marshal wrote a function")
	}
}
