package install

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzX1_SettingsObject: a host's settings file is read as an object with
// its members in order, or refused (never overwritten); what is read
// writes back as the same JSON value.
func FuzzX1_SettingsObject(f *testing.F) {
	for _, s := range []string{`{"model":"x","hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"a"}]}]},"n":1.50}`,
		`{}`, `[]`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":null}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := parseObject(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("%q read, not written: %v", data, err)
		}
		var x, y any
		if json.Unmarshal(data, &x) != nil {
			t.Fatalf("accepted %q, which is not JSON", data)
		}
		if err := json.Unmarshal(b, &y); err != nil {
			t.Fatalf("wrote %q: %v", b, err)
		}
		xb, _ := json.Marshal(x)
		yb, _ := json.Marshal(y)
		if !bytes.Equal(xb, yb) {
			t.Fatalf("%q written back as %q", data, b)
		}
	})
}
