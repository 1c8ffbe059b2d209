package argjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

func TestA8_SchemaCaseVariantsAreFound(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"},"opts":{"type":"object","properties":{"path":{}}},"list":{"type":"array","items":{"type":"object","properties":{"file_text":{}}}}},"additionalProperties":false}`)
	for _, s := range []string{`{"CMD":"touch x"}`, `{"cmd":"ls","opts":{"Path":"/"}}`, `{"list":[{"file_text":""},{"File_Text":"x"}]}`} {
		if msg := CheckSchemaNames(schema, json.RawMessage(s)); msg == "" {
			t.Errorf("%s: accepted", s)
		}
	}
	for _, s := range []string{`{"cmd":"ls"}`, `{"cmd":"ls","other":1}`, `{"opts":{"path":"/","x":1}}`} {
		if msg := CheckSchemaNames(schema, json.RawMessage(s)); msg != "" {
			t.Errorf("%s: %s", s, msg)
		}
	}
}

// FuzzA8_CheckNamesAgreesWithEncodingJSON is the differential test of the
// strict reading against encoding/json, which decodes the arguments the
// tools run with: every text CheckNames accepts, encoding/json accepts and
// decodes to the value go-json-experiment/json decodes; and every text
// encoding/json accepts as one value of valid UTF-8 with no two names of
// an object equal under case folding and no nesting past the bound,
// CheckNames accepts.
func FuzzA8_CheckNamesAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"cmd":"ls"}`, `{"cmd":"ls","CMD":"x"}`, `{"a":{"b":1,"B":[{"c":1,"c":2}]}}`, `[1,{"k":"\u212a"}]`,
		`{"\u006b":1,"\u212a":2}`, `"x"`, `{"a":[[],{}]}`, `{"a":1} {"a":2}`, `{"a":1}x`, ` {"a" : [1, 2.5e3, null, true]} `,
		`{"\ud800":1}`, "{\"a\":\"\xff\"}", `{"a":"\u0000"}`, `{"n":-0}`, `01`, `{"a":1,}`, ``, `{`, `{"ß":1,"ss":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		err := CheckNames(data)
		if !bytes.Equal(data, before) {
			// It reads the caller's bytes in place: never through a write.
			t.Fatalf("%q: CheckNames changed its input to %q", before, data)
		}
		if err == nil {
			if !json.Valid(data) {
				t.Fatalf("%q: accepted, but encoding/json refuses it", data)
			}
			var v1, v2 any
			e1, e2 := json.Unmarshal(data, &v1), jsonv2.Unmarshal(data, &v2)
			var te *json.UnmarshalTypeError
			if errors.As(e1, &te) {
				return // a number beyond float64: encoding/json refuses it, v2 rounds it to ±MaxFloat64
			}
			if e1 != nil || e2 != nil {
				t.Fatalf("%q: accepted; encoding/json decodes it with %v, go-json-experiment/json with %v", data, e1, e2)
			}
			if !reflect.DeepEqual(v1, v2) {
				t.Fatalf("%q: encoding/json reads %#v, go-json-experiment/json %#v", data, v1, v2)
			}
			return
		}
		if !json.Valid(data) || !utf8.Valid(data) || surrogate.Match(data) {
			return // jsontext refuses invalid UTF-8 and unpaired surrogates, which encoding/json replaces
		}
		if clash, deep := clashes(data, 0); clash || deep {
			return
		}
		t.Fatalf("%q: refused (%v), but encoding/json reads it as one value with distinct names", data, err)
	})
}

// surrogate finds a \u escape of a UTF-16 surrogate.
var surrogate = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// clashes reports whether an object in the valid JSON text data has two
// member names equal under case folding (exact duplicates included), and
// whether data nests deeper than maxDepth when it lies depth levels deep.
func clashes(data []byte, depth int) (clash, deep bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return false, false
	}
	if depth+1 > maxDepth {
		return false, true
	}
	var values []json.RawMessage
	seen := map[string]bool{}
	if Each(trimmed, func(k string, v json.RawMessage) bool {
		clash = clash || seen[foldKey(k)]
		seen[foldKey(k)] = true
		values = append(values, v)
		return true
	}) != nil {
		_ = json.Unmarshal(trimmed, &values)
	}
	for _, v := range values {
		c, d := clashes(v, depth+1)
		clash, deep = clash || c, deep || d
	}
	return clash, deep
}

// Two names of an object that differ only by case are refused however
// many names the object has (CheckNames compares a small object's names
// one by one and a large one's by map) and wherever it nests; distinct
// names are accepted at every size.
func TestA8_CaseVariantsInObjectsOfEverySize(t *testing.T) {
	object := func(n int, last string, inner string) string {
		var b bytes.Buffer
		b.WriteString("{")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		if inner != "" {
			fmt.Fprintf(&b, `"inner":%s,`, inner)
		}
		fmt.Fprintf(&b, `%q:true}`, last)
		return b.String()
	}
	for _, n := range []int{0, 1, smallObject - 1, smallObject, smallObject + 1, 3 * smallObject} {
		for _, tc := range []struct {
			name, text string
			refused    bool
		}{
			{"distinct", object(n, "other", ""), false},
			{"variant of the first", object(n, "K0", ""), n > 0},
			{"variant of the last", object(n, fmt.Sprintf("K%d", n-1), ""), n > 0},
			{"variant in a nested object", object(n, "x", object(n, "K0", "")), n > 0},
			{"an exact duplicate", object(n, "k0", object(n, "x", "")), n > 0},
			{"nested names do not clash with the outer", object(n, "inner2", object(n, "X", `{"k0":1}`)), false},
			{"variant after a nested object", object(n, "INNER", object(n, "x", "")), true},
		} {
			t.Run(fmt.Sprintf("%d/%s", n, tc.name), func(t *testing.T) {
				err := CheckNames([]byte(tc.text))
				if (err != nil) != tc.refused {
					t.Fatalf("%s: %v, want refused %v", tc.text, err, tc.refused)
				}
				if err != nil && !strings.Contains(err.Error(), "differ only by case") && !strings.Contains(err.Error(), "duplicate") {
					t.Fatalf("%s: %v", tc.text, err)
				}
			})
		}
	}
}
