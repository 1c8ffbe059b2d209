// Package argument reads the arguments of an MCP or function call as the
// first pass judges them: a list of leaves, each scalar with its key and
// its path, objects' keys in order. Tools usually get small plain objects,
// read here without building a generic tree; everything else is read
// through encoding/json, with the same result. Words splits the name of a
// tool, a server or a key into the words the judges look up.
package argument

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
) // flattenPlain is flatten without building a generic tree, for the arguments
// tools usually get: an object or array, alone but for white space, whose
// strings have no escapes and are valid UTF-8, nested at most
// maxPlainDepth deep. It reports false for anything else, which
// flattenJSON then reads; for what it accepts it returns what flattenJSON
// does (keys sorted, the last of duplicate keys kept, numbers as written,
// nulls left out).
func flattenPlain(raw []byte) ([]Leaf, bool) {
	p := plainJSON{b: raw}
	p.space()
	if p.i >= len(raw) || raw[p.i] != '{' && raw[p.i] != '[' {
		return nil, false
	}
	p.out = make([]Leaf, 0, 8)
	if !p.value("", "", true, 0) {
		return nil, false
	}
	p.space()
	if p.i != len(raw) {
		return nil, false
	}
	return p.out, true
}

// maxPlainDepth is how deep flattenPlain follows nesting.
const maxPlainDepth = 16

// plainJSON reads JSON text from b at i, adding leaves to out.
type plainJSON struct {
	b   []byte
	i   int
	out []Leaf
}

// plainMember is an object member: its key and where its value lies.
type plainMember struct {
	key        string
	start, end int
}

func (p *plainJSON) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads one value, adding its leaves under key and path when emit
// is set (else only checking it), and reports whether it is plain.
func (p *plainJSON) value(key, path string, emit bool, depth int) bool {
	if p.i >= len(p.b) || depth > maxPlainDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(path, emit, depth)
	case c == '[':
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return true
		}
		for {
			p.space()
			if !p.value(key, path+"[]", emit, depth+1) {
				return false
			}
			p.space()
			if p.i >= len(p.b) {
				return false
			}
			switch p.b[p.i] {
			case ',':
				p.i++
			case ']':
				p.i++
				return true
			default:
				return false
			}
		}
	case c == '"':
		start, end, ok := p.str()
		if ok && emit {
			p.leaf(key, path, string(p.b[start:end]))
		}
		return ok
	case c == 't', c == 'f', c == 'n':
		for _, w := range [...]string{"true", "false", "null"} {
			if len(p.b)-p.i >= len(w) && string(p.b[p.i:p.i+len(w)]) == w {
				p.i += len(w)
				if emit && w != "null" {
					p.leaf(key, path, w)
				}
				return true
			}
		}
		return false
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		if !p.number() {
			return false
		}
		if emit {
			p.leaf(key, path, string(p.b[start:p.i]))
		}
		return true
	}
	return false
}

// object reads an object: its members first, then, when emitting, their
// values again in the order of their sorted keys.
func (p *plainJSON) object(path string, emit bool, depth int) bool {
	p.i++
	var room [8]plainMember
	members := room[:0]
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return true
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		ks, ke, ok := p.str()
		if !ok {
			return false
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		start := p.i
		if !p.value("", "", false, depth+1) {
			return false
		}
		if emit {
			members = append(members, plainMember{string(p.b[ks:ke]), start, p.i})
		}
		p.space()
		if p.i >= len(p.b) {
			return false
		}
		if p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.b[p.i] != '}' {
			return false
		}
		p.i++
		break
	}
	if !emit {
		return true
	}
	end := p.i
	slices.SortStableFunc(members, func(a, b plainMember) int { return strings.Compare(a.key, b.key) })
	for n, m := range members {
		if n+1 < len(members) && members[n+1].key == m.key {
			continue // a later duplicate wins, as in a map
		}
		p.i = m.start
		p.value(m.key, path+"."+m.key, true, depth+1)
	}
	p.i = end
	return true
}

// str reads a string without escapes or control characters, in valid
// UTF-8, and returns where its text lies in b.
func (p *plainJSON) str() (start, end int, ok bool) {
	start = p.i + 1
	ascii := true
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return start, j, ascii || utf8.Valid(p.b[start:j])
		case c == '\\' || c < ' ':
			return 0, 0, false
		case c >= 0x80:
			ascii = false
		}
	}
	return 0, 0, false
}

// number reads a number as JSON writes them.
func (p *plainJSON) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	p.i = i
	return true
}

func (p *plainJSON) leaf(key, path, value string) {
	p.out = append(p.out, Leaf{strings.ToLower(key), path, value})
}

// Leaf is one scalar of a call's arguments: its key, its path and its
// value as text.
type Leaf struct {
	Key   string // last key (lower case)
	Path  string // full key path
	Value string // the scalar as text
}

// Flatten returns the scalars of a JSON value, objects' keys in order.
func Flatten(raw json.RawMessage) []Leaf {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if out, ok := flattenPlain(raw); ok {
		return out
	}
	return flattenJSON(raw)
}

// flattenJSON is flatten through encoding/json, for any input.
func flattenJSON(raw json.RawMessage) []Leaf {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	out := make([]Leaf, 0, 8) // tools take a few arguments
	var walk func(key, path string, v any)
	walk = func(key, path string, v any) {
		switch x := v.(type) {
		case string:
			out = append(out, Leaf{strings.ToLower(key), path, x})
		case bool:
			if x {
				out = append(out, Leaf{strings.ToLower(key), path, "true"})
			} else {
				out = append(out, Leaf{strings.ToLower(key), path, "false"})
			}
		case json.Number:
			out = append(out, Leaf{strings.ToLower(key), path, x.String()})
		case []any:
			for _, e := range x {
				walk(key, path+"[]", e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(k, path+"."+k, x[k])
			}
		}
	}
	walk("", "", v)
	return out
}
