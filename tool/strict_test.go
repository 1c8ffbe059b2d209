package tool

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/argjson"
)

func TestA8_CheckNamesRefusesDuplicatesAndCaseVariants(t *testing.T) {
	bad := []string{
		`{"cmd":"ls","cmd":"touch x"}`,
		`{"cmd":"ls","CMD":"touch x"}`,
		`{"cmd":"ls","\u0063md":"touch x"}`,
		`{"cmd":"ls","Cmd":"touch x"}`,
		`{"kind":"ls","\u212aind":"x"}`, // KELVIN SIGN folds to k, as encoding/json matches it
		`{"a":{"path":"x","PATH":"y"}}`,
		`{"a":[{"b":1},{"b":1,"b":2}]}`,
		`{"path":"in","File_Text":"x","file_text":"y"}`,
	}
	for _, s := range bad {
		if err := argjson.CheckNames([]byte(s)); err == nil {
			t.Errorf("%s: accepted", s)
		}
		c := NewCall("c", "bash", s)
		if c.ParseError == "" || c.Arguments != nil {
			t.Errorf("%s: NewCall kept it (%q)", s, c.Arguments)
		}
	}
	good := []string{
		`{}`,
		`{"cmd":"ls","cwd":"x"}`,
		`{"a":{"cmd":1},"b":{"cmd":2}}`,
		`{"a":[{"cmd":1},{"cmd":2}],"cmd":[{"CMD":1}]}`,
		`{"s":"{\"cmd\":1,\"cmd\":2}"}`,
		`{"ß":1,"ss":2}`,
	}
	for _, s := range good {
		if err := argjson.CheckNames([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	deep := strings.Repeat(`{"a":`, 256+1) + "1" + strings.Repeat("}", 256+1)
	if argjson.CheckNames([]byte(deep)) == nil {
		t.Error("nesting beyond the bound accepted")
	}
}

func TestA8_DecodeArgumentsMatchesNamesExactly(t *testing.T) {
	type args struct {
		Cmd   *string `json:"cmd"`
		Inner *struct {
			Path string `json:"path"`
		} `json:"inner"`
		Skipped string `json:"-"`
	}
	for _, s := range []string{
		`{"CMD":"touch x"}`,
		`{"Cmd":"touch x"}`,
		`{"cmd":"ls","cmd":"touch x"}`,
		`{"cmd":"ls","inner":{"PATH":"/etc"}}`,
		`{"Skipped":"x"}`,
		`{"cmd":"ls"} {"cmd":"touch"}`,
	} {
		var a args
		err := DecodeArguments("bash", json.RawMessage(s), &a)
		var te *Error
		if err == nil {
			t.Errorf("%s: decoded as %+v", s, a)
		} else if !asError(err, &te) || te.Type != ErrParsing {
			t.Errorf("%s: %v is not a parsing error", s, err)
		}
	}
	var a args
	if err := DecodeArguments("bash", json.RawMessage(`{"cmd":"ls","inner":{"path":"p"}}`), &a); err != nil || *a.Cmd != "ls" || a.Inner.Path != "p" {
		t.Errorf("exact names: %v %+v", err, a)
	}
}

func asError(err error, te **Error) bool {
	e, ok := err.(*Error)
	*te = e
	return ok
}

// FuzzA8_CheckNames checks the strict pre-pass against a reading of every
// object: whatever it accepts has, in each object, names no two of which
// are equal under case folding; and whatever has such names it refuses.
func FuzzA8_CheckNames(f *testing.F) {
	for _, s := range []string{`{"cmd":"ls"}`, `{"cmd":"ls","CMD":"x"}`, `{"a":{"b":1,"B":[{"c":1,"c":2}]}}`, `[1,{"k":"\u212a"}]`, `{"\u006b":1,"\u212a":2}`, `"x"`, `{"a":[[],{}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !utf8.Valid(data) {
			return // NewCall refuses invalid UTF-8 before CheckNames, which refuses it too
		}
		err := argjson.CheckNames(data)
		clash := hasClash(t, data, 0)
		if clash && err == nil {
			t.Fatalf("%s: accepted names that clash", data)
		}
		if !clash && err == nil {
			return
		}
		if !clash && err != nil && !strings.Contains(err.Error(), "nested deeper") {
			t.Fatalf("%s: refused without a clash: %v", data, err)
		}
		// Whatever NewCall keeps decodes the same as a map and as the
		// members argjson.Each lists.
		if c := NewCall("c", "f", string(data)); c.ParseError == "" {
			var m map[string]json.RawMessage
			if json.Unmarshal(c.Arguments, &m) != nil || len(argjson.Append(nil, c.Arguments)) != len(m) {
				t.Fatalf("%s: kept arguments read two ways", data)
			}
		}
	})
}

// hasClash reports whether any object in the JSON value data has two
// member names equal under strings.EqualFold.
func hasClash(t *testing.T, data []byte, depth int) bool {
	if depth > 256 {
		return false
	}
	var members []argjson.Arg
	if err := argjson.Each(data, func(k string, v json.RawMessage) bool {
		members = append(members, argjson.Arg{Key: strings.Clone(k), Value: v})
		return true
	}); err == nil {
		for i := range members {
			for j := i + 1; j < len(members); j++ {
				if strings.EqualFold(members[i].Key, members[j].Key) {
					return true
				}
			}
			if hasClash(t, members[i].Value, depth+1) {
				return true
			}
		}
		return false
	}
	var elems []json.RawMessage
	if json.Unmarshal(data, &elems) == nil {
		for _, e := range elems {
			if hasClash(t, e, depth+1) {
				return true
			}
		}
	}
	return false
}
