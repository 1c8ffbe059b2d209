package argjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// benchInputs are argument objects of the sizes calls have.
func benchInputs() map[string][]byte {
	return map[string][]byte{
		"small":  []byte(`{"command":"git status --short","description":"show the state","timeout":120000}`),
		"edit":   []byte(`{"command":"str_replace","path":"/work/src/main.go","old_str":"func main() {\n\tfmt.Println(\"hi\")\n}\n","new_str":"func main() {\n\tfmt.Println(\"hello, world\")\n\tos.Exit(0)\n}\n"}`),
		"nested": []byte(`{"query":{"bool":{"must":[{"term":{"user":"a"}},{"range":{"age":{"gte":10,"lte":20}}}],"filter":[{"term":{"Tag":"x"}},{"term":{"tag2":"y"}}]}},"size":50,"from":0,"sort":[{"ts":"desc"}]}`),
	}
}

// appendJSONText is Append written on jsontext.Decoder, the library
// alternative to the scanner that BenchmarkP2_Append measures.
func appendJSONText(dst []Arg, obj json.RawMessage) []Arg {
	dec := jsontext.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return dst
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return dst
		}
		name := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return dst
		}
		dst = append(dst, Arg{name, json.RawMessage(v.Clone())})
	}
	return dst
}

func TestP2_AppendJSONTextAgrees(t *testing.T) {
	for name, in := range benchInputs() {
		a, b := Append(nil, in), appendJSONText(nil, in)
		if len(a) != len(b) {
			t.Fatalf("%s: %d and %d members", name, len(a), len(b))
		}
		for i := range a {
			if a[i].Key != b[i].Key || !bytes.Equal(a[i].Value, b[i].Value) {
				t.Errorf("%s: member %d: %q %s and %q %s", name, i, a[i].Key, a[i].Value, b[i].Key, b[i].Value)
			}
		}
	}
}

// BenchmarkP2_Append compares the scanner that lists an object's members
// for every pattern (scan.go) with the same listing on jsontext.Decoder.
func BenchmarkP2_Append(b *testing.B) {
	for name, in := range benchInputs() {
		var buf []Arg
		b.Run("scanner/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf = Append(buf[:0], in)
			}
		})
		b.Run("jsontext/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf = appendJSONText(buf[:0], in)
			}
		})
	}
}

func BenchmarkA8_CheckNames(b *testing.B) {
	for name, in := range benchInputs() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if CheckNames(in) != nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
