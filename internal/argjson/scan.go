// Package argjson reads the JSON object of a call's arguments once and
// strictly (SPEC A8) and renders its values as policy patterns see them
// (SPEC P2): the scanner behind tool, policy, agent and the reviewer.
//
// The strict reading (CheckNames) is github.com/go-json-experiment/json's
// jsontext.Decoder, which refuses duplicate names, invalid UTF-8 and
// unpaired surrogates by itself; this package adds only what no decoder
// option says: names that differ only by case, and a depth bound.
// FuzzA8_CheckNamesAgreesWithEncodingJSON checks that what it accepts
// encoding/json (which decodes the arguments for the tools) reads alike.
// Measured against the encoding/json token reading it replaced (go test
// ./internal/argjson -bench A8 -count 2, side by side, 2 shared cores):
// 2.9–4.1 µs and 21 allocations against 6.3–6.9 µs and 51 for a small call,
// 11.5–13.3 µs/101 against 24.3–25.6 µs/231 for a nested one. Reading
// the text in place (a bytes.Buffer) and comparing a small object's names
// one by one instead of by a map of folded names then took it, three
// rounds side by side, from 21 to 14 allocations for a small call and
// from 101 to 51 for a nested one (1.3–3.2 → 0.8–1.6 µs, 8.4–13.8 →
// 2.6–4.7 µs; go test ./internal/argjson -bench A8_CheckNames).
//
// Two pieces stay hand-written, for measured or technical reasons:
//   - The scanner of scan.go (Each, Append, StringValue) lists the members
//     of text CheckNames already accepted, for every pattern of every
//     decision. Written on jsontext.Decoder it costs 2.0–3.0 µs and 19–22
//     allocations per call against 0.37–0.51 µs and none (go test
//     ./internal/argjson -bench P2_Append, side by side), which is the
//     budget of a whole policy decision (BenchmarkPolicyDecide50, ~1 µs).
//   - CheckFields: go-json-experiment/json matches names to fields exactly
//     and either ignores or refuses the names that match none; SPEC A8 asks
//     to refuse a name that matches a field only by case while ignoring
//     unknown names, which no option of it does.
package argjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Each calls fn for each member of the JSON object obj in order,
// until fn returns false. Keys are passed unescaped; a key without escapes
// shares obj's memory, which must not change while fn runs. obj must be
// valid JSON.
func Each(obj json.RawMessage, fn func(key string, value json.RawMessage) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		end := skipValue(obj, i)
		var key string
		if raw := obj[i+1 : max(end-1, i+1)]; bytes.IndexByte(raw, '\\') < 0 {
			key = unsafe.String(unsafe.SliceData(raw), len(raw))
		} else {
			key = string(appendUnquoted(nil, obj[i:end]))
		}
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // ':'
		vend := skipValue(obj, i)
		if !fn(key, obj[i:vend]) {
			return nil
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) || obj[i] == '}' {
			return nil
		}
		i = skipSpace(obj, i+1) // ','
	}
	return nil
}

// Arg is one member of an arguments object.
type Arg struct {
	Key   string
	Value json.RawMessage
}

// Append appends the members of the JSON object obj to dst in order.
// Keys share obj's memory as in Each.
func Append(dst []Arg, obj json.RawMessage) []Arg {
	_ = Each(obj, func(k string, v json.RawMessage) bool {
		dst = append(dst, Arg{k, v})
		return true
	})
	return dst
}

// AppendValue appends the pattern-text rendering of the JSON value v:
// strings in single quotes without escapes, true/false/null as
// True/False/None, arrays and objects in Python's literal syntax (object
// members sorted by name).
func AppendValue(buf []byte, v json.RawMessage) []byte {
	i := skipSpace(v, 0)
	if i >= len(v) {
		return buf
	}
	switch v[i] {
	case '"':
		buf = append(buf, '\'')
		buf = appendUnquoted(buf, v[i:skipValue(v, i)])
		return append(buf, '\'')
	case 't':
		return append(buf, "True"...)
	case 'f':
		return append(buf, "False"...)
	case 'n':
		return append(buf, "None"...)
	case '[':
		buf = append(buf, '[')
		j := skipSpace(v, i+1)
		first := true
		for j < len(v) && v[j] != ']' {
			end := skipValue(v, j)
			if !first {
				buf = append(buf, ", "...)
			}
			first = false
			buf = AppendValue(buf, v[j:end])
			j = skipSpace(v, end)
			if j < len(v) && v[j] == ',' {
				j = skipSpace(v, j+1)
			}
		}
		return append(buf, ']')
	case '{':
		// Members sorted by name, as the arguments are: never the model's
		// order.
		var stack [8]Arg
		members := Append(stack[:0], v[i:])
		slices.SortStableFunc(members, func(a, b Arg) int { return strings.Compare(a.Key, b.Key) })
		buf = append(buf, '{')
		for k, m := range members {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(buf, '\'')
			buf = append(buf, m.Key...)
			buf = append(buf, "': "...)
			buf = AppendValue(buf, m.Value)
		}
		return append(buf, '}')
	}
	// number
	end := skipValue(v, i)
	return append(buf, v[i:end]...)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipValue(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return j
}

// appendUnquoted appends the contents of the JSON string literal s, with its
// escapes decoded.
func appendUnquoted(buf, s []byte) []byte {
	if len(s) < 2 {
		return buf
	}
	s = s[1 : len(s)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return append(buf, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			buf = append(buf, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			buf = append(buf, '\n')
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'u':
			if i+4 >= len(s) {
				return buf
			}
			r := rune(hex4(s[i+1 : i+5]))
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				lo := rune(hex4(s[i+3 : i+7]))
				if lo >= 0xDC00 && lo < 0xE000 {
					r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
					i += 6
				}
			}
			buf = utf8.AppendRune(buf, r)
		default: // '"', '\\', '/'
			buf = append(buf, s[i])
		}
	}
	return buf
}

func hex4(b []byte) int {
	n, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return int(n)
}

// StringValue returns the text a pattern matches for one argument value: a
// string's contents, or the rendering of AppendValue for anything else.
func StringValue(buf []byte, v json.RawMessage) []byte {
	i := skipSpace(v, 0)
	if i < len(v) && v[i] == '"' {
		return appendUnquoted(buf, v[i:skipValue(v, i)])
	}
	return AppendValue(buf, v)
}
