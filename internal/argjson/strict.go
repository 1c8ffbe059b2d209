package argjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// maxDepth bounds the nesting of argument objects and arrays the strict
// reading accepts, so that deep input costs little.
const maxDepth = 256

// CheckNames reports, as an error, the first object of the JSON text data
// (at any depth) that has a duplicate member name or two member names that
// differ only by case (SPEC A8). Names are compared after their escapes are
// decoded, and case is folded as Go's encoding/json folds it, so no name
// can reach a decoder under two spellings. Text that is not one JSON value
// (RFC 8259, valid UTF-8), and a value nested deeper than 256 levels, are
// errors too.
//
// The reading is github.com/go-json-experiment/json's jsontext.Decoder,
// which refuses duplicate names and invalid UTF-8 itself; CheckNames adds
// the case-variant names, the depth bound and the end after one value.
func CheckNames(data []byte) error {
	// A bytes.Buffer is read in place: jsontext.Decoder takes its bytes as
	// its own buffer (never writing to them), instead of copying them
	// through a reader into buffers it grows.
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	// The open objects, innermost last, and the names of each (names,
	// from its start) while it has few; past smallObject names an object's
	// names move to a map by folded name. Both live on the stack for the
	// shallow, small objects calls have.
	var objBuf [8]openObject
	var nameBuf [32]string
	objects, names := objBuf[:0], nameBuf[:0]
	for started := false; ; started = true {
		if started && dec.StackDepth() == 0 {
			if _, err := dec.ReadToken(); err != io.EOF {
				return errors.New("unexpected data after the JSON value")
			}
			return nil
		}
		kind, n := dec.StackIndex(dec.StackDepth())
		name := kind == '{' && n%2 == 0
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return errors.New("unexpected end of the JSON text")
		}
		if err != nil {
			return err
		}
		switch tok.Kind() {
		case '{', '[':
			if dec.StackDepth() > maxDepth {
				return fmt.Errorf("values nested deeper than %d levels", maxDepth)
			}
			if tok.Kind() == '{' {
				objects = append(objects, openObject{start: len(names)})
			}
		case '}':
			names = names[:objects[len(objects)-1].start]
			objects = objects[:len(objects)-1]
		case '"':
			if !name {
				continue
			}
			top := &objects[len(objects)-1]
			s := tok.String()
			if top.folded == nil {
				// strings.EqualFold holds exactly when foldKey is equal.
				for _, prev := range names[top.start:] {
					if strings.EqualFold(prev, s) {
						return fmt.Errorf("names %q and %q differ only by case at depth %d", prev, s, dec.StackDepth())
					}
				}
				if names = append(names, s); len(names)-top.start <= smallObject {
					continue
				}
				top.folded = make(map[string]string, 2*smallObject)
				for _, n := range names[top.start:] {
					top.folded[foldKey(n)] = n
				}
				names = names[:top.start]
				continue
			}
			key := foldKey(s)
			if prev, dup := top.folded[key]; dup {
				return fmt.Errorf("names %q and %q differ only by case at depth %d", prev, s, dec.StackDepth())
			}
			top.folded[key] = s
		}
	}
}

// smallObject is how many names of an object CheckNames compares with
// each new name one by one; an object with more has them in a map.
const smallObject = 16

// openObject is an object CheckNames is reading: where its names start in
// the list of names, or, once it has more than smallObject, its names by
// folded name (foldKey).
type openObject struct {
	start  int
	folded map[string]string
}

// foldKey returns a key equal for two names exactly when strings.EqualFold
// holds for them: each rune is replaced by the smallest rune of its simple
// case-folding orbit.
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s) // the smallest rune of an ASCII letter's orbit
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}

// CheckSchemaNames says which argument of args has a name that differs
// from a property of the JSON Schema schema only by case (SPEC A8), at the
// top level and in nested objects the schema describes with properties (and
// arrays with items); "" when none does. A schema that does not parse
// checks nothing.
func CheckSchemaNames(schema, args json.RawMessage) string {
	if len(bytes.TrimSpace(schema)) == 0 || len(bytes.TrimSpace(args)) == 0 {
		return ""
	}
	var s schemaNode
	if json.Unmarshal(schema, &s) != nil {
		return ""
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	return s.check(v, 0)
}

// schemaNode is the part of a JSON Schema that names object members.
type schemaNode struct {
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
}

func (s *schemaNode) check(v any, depth int) string {
	if s == nil || depth > maxDepth {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		if len(s.Properties) == 0 {
			return ""
		}
		folded := make(map[string]string, len(s.Properties))
		for name := range s.Properties {
			folded[foldKey(name)] = name
		}
		for k, val := range x {
			if sub, ok := s.Properties[k]; ok {
				if msg := sub.check(val, depth+1); msg != "" {
					return msg
				}
				continue
			}
			if want, ok := folded[foldKey(k)]; ok {
				return fmt.Sprintf("argument %q differs from the parameter %q only by case", k, want)
			}
		}
	case []any:
		for _, e := range x {
			if msg := s.Items.check(e, depth+1); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// CheckFields reports a member name of the JSON text data that does not
// exactly name a field of the Go type t (where t is a struct, or a pointer,
// slice, array or map of one), so that a decoder cannot match a name to a
// field by case. With unknown, names that match no field in any case are
// let through. It follows nested struct fields. data must be valid JSON.
func CheckFields(data []byte, t reflect.Type, unknown bool, depth int) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if depth > maxDepth {
		return fmt.Errorf("values nested deeper than %d levels", maxDepth)
	}
	switch t.Kind() {
	case reflect.Struct:
		fields := jsonFields(t)
		var err error
		if e := Each(data, func(key string, value json.RawMessage) bool {
			ft, ok := fields[key]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, key) {
						err = fmt.Errorf("argument %q differs from %q only by case", key, name)
						return false
					}
				}
				if unknown {
					return true
				}
				err = fmt.Errorf("unknown field %q", key)
				return false
			}
			if err = CheckFields(value, ft, unknown, depth+1); err != nil {
				return false
			}
			return true
		}); e != nil {
			return nil // not an object: the decoder reports the type
		}
		return err
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) != nil {
			return nil
		}
		for _, e := range elems {
			if err := CheckFields(e, t.Elem(), unknown, depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		var members map[string]json.RawMessage
		if json.Unmarshal(data, &members) != nil {
			return nil
		}
		for _, m := range members {
			if err := CheckFields(m, t.Elem(), unknown, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields returns the JSON names of the fields of the struct type t (as
// encoding/json names them, embedded structs' fields included) with their
// types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
