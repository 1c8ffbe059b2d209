// Package filepos gives positions in YAML and JSON files (policy, task,
// rules and script files) and errors at them, which print as
// "file:line:col: message".
package filepos

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Pos is a place in a file.
type Pos struct {
	File string
	Line int
	Col  int
}

// String returns "file:line:col", "line:col" without a file, or the file
// alone without a line.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is an error at a place in a policy or task file. It prints as
// "file:line:col: message".
type Error struct {
	Pos Pos
	Msg string
	Err error
}

// Error returns "file:line:col: message".
func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil {
		if msg != "" {
			msg += ": "
		}
		msg += e.Err.Error()
	}
	return e.Pos.String() + ": " + msg
}

// Unwrap returns the error the message wraps, if any.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at the position of node n in file.
func Errorf(file string, n *yaml.Node, format string, args ...any) *Error {
	return &Error{Pos: NodePos(file, n), Msg: fmt.Sprintf(format, args...)}
}

// NodePos returns the position of n in file.
func NodePos(file string, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: file, Line: 1, Col: 1}
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// parserProblems are the problems yaml.v3's parser (as opposed to its
// scanner) reports. It gives their line counted from 0, not from 1.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
	"found undefined tag handle":             true,
}

// YAMLPosition reads the line yaml.v3 reports in a syntax error, counted
// from 1, and the message without its "yaml: line N: " prefix. The line is 1
// when the error names none.
func YAMLPosition(err error) (line int, msg string) {
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		if parserProblems[m[2]] {
			line++
		}
		return max(line, 1), m[2]
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return 1, strings.Join(te.Errors, "; ")
	}
	return 1, strings.TrimPrefix(err.Error(), "yaml: ")
}

// YAMLError converts an error of the YAML decoder into an *Error at a file
// position, so a syntax error prints as file:line:col.
func YAMLError(file string, err error) error {
	line, msg := YAMLPosition(err)
	return &Error{Pos: Pos{File: file, Line: line, Col: 1}, Msg: msg}
}

// ParseYAML reads data, the YAML (or JSON) text of file, into a document
// node with the positions of its values. Bytes that are not UTF-8 and
// syntax errors are an *Error at their file:line:col.
func ParseYAML(file string, data []byte) (*yaml.Node, error) {
	if err := CheckUTF8(file, data); err != nil {
		return nil, err
	}
	doc := new(yaml.Node)
	if err := yaml.Unmarshal(data, doc); err != nil {
		return nil, YAMLError(file, err)
	}
	return doc, nil
}

// CheckUTF8 returns an *Error at the line and column (in characters, from
// 1) of the first byte of data that is not UTF-8, or nil when data is valid
// UTF-8 — or UTF-16 with a byte order mark, which the YAML decoder reads.
// The decoder itself reports such a byte without its position.
func CheckUTF8(file string, data []byte) error {
	if utf8.Valid(data) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return &Error{Pos: Pos{File: file, Line: line, Col: col}, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02X): the file must be UTF-8 text", data[i])}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return nil
}

// EachKey calls each on every key of the mapping n and its value, in
// order, stopping at the first error; a key given twice is an error at
// its second place, twice formatting its name (as in "duplicate key %q").
func EachKey(file string, n *yaml.Node, twice string, each func(k, v *yaml.Node) error) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return Errorf(file, k, twice, k.Value)
		}
		seen[k.Value] = true
		if err := each(k, v); err != nil {
			return err
		}
	}
	return nil
}
