package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/jsonobj"
	"github.com/wardenhq/warden/internal/linediff"
	"github.com/wardenhq/warden/internal/safetext"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// This file turns calls, arguments and edits into the plain text and line
// lists the panel's templates show. Everything here returns text; the
// templates escape it (html/template), and safetext.Escape has already made
// control and invisible characters visible (SPEC H5).

// orderedArgs returns the members of the JSON object raw in their order.
// It fails when raw is not one JSON object.
func orderedArgs(raw json.RawMessage) ([]jsonobj.Raw, error) {
	args, err := jsonobj.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return args, nil
}

// callText renders a call as policy patterns see it (SPEC P2), with
// tool.Call.TextIn, the one renderer of calls: name(k='v', n=2), the
// arguments in the order o, so that a pattern copied from the panel
// matches the call. A string with line breaks keeps them, so a command or
// a file reads as written. Arguments that are not one JSON object (or
// that warden would refuse, such as duplicate names) are shown as they
// are. Control and invisible characters are made visible (SPEC H5).
func callText(function string, raw json.RawMessage, o tool.Order) string {
	return safetext.Escape(panelCall(function, raw).TextIn(o))
}

// panelCall returns the call of function with the arguments raw, which
// keeps raw's text as the model sent it when raw is not an arguments
// object warden accepts.
func panelCall(function string, raw json.RawMessage) tool.Call {
	c := tool.Call{Function: function}
	if err := c.SetArguments(raw); err != nil {
		c.ArgumentsRaw, c.ParseError = string(raw), err.Error()
	}
	return c
}

// callSummary is callText with every string value of more than one line
// replaced by a string that says how many lines it has: for a call whose
// change is shown as a diff beside it.
func callSummary(function string, raw json.RawMessage, o tool.Order) string {
	args, err := orderedArgs(raw)
	if err != nil {
		return callText(function, raw, o)
	}
	summary, err := jsonobj.Marshal(len(args), func(i int) (string, any) {
		a := args[i]
		var s string
		if json.Unmarshal(a.Value, &s) == nil && strings.Contains(s, "\n") {
			return a.Key, fmt.Sprintf("…%d lines…", len(splitText(s)))
		}
		return a.Key, a.Value
	})
	if err != nil {
		return callText(function, raw, o)
	}
	return callText(function, summary, o)
}

// compactValue returns a JSON value's text without insignificant space,
// and with the escapes of <, > and & that Go's encoder adds read back.
func compactValue(v json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return unescapeHTML(b.String())
}

// unescapeHTML replaces the escapes \u003c, \u003e and \u0026 in a JSON
// text by the characters they stand for (the same JSON value, as people
// write it). Escaped backslashes are skipped as pairs, so a literal
// backslash before "u003c" is left alone.
func unescapeHTML(s string) string {
	if !strings.Contains(s, `\u00`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) {
			switch s[i+2 : i+6] {
			case "003c", "003C":
				b.WriteByte('<')
				i += 5
				continue
			case "003e", "003E":
				b.WriteByte('>')
				i += 5
				continue
			case "0026":
				b.WriteByte('&')
				i += 5
				continue
			}
		}
		b.WriteByte(s[i])
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

// prettyJSON indents a JSON text, keeping its key order; text that is not
// JSON is returned as it is, and text too deep or too large to indent
// (bulky) compact.
func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	if bulky(raw) {
		return compactJSON(raw)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return unescapeHTML(b.String())
}

// diffLine is one line of a rendered diff: Op is ' ' (context), '-', '+',
// '@' (hunk header) or 'h' (file header); Text the line without its marker.
type diffLine struct {
	Op   string
	Text string
}

// Class names the line's CSS class.
func (l diffLine) Class() string {
	switch l.Op {
	case "-":
		return "del"
	case "+":
		return "add"
	case "@":
		return "hunk"
	case "h":
		return "file"
	}
	return "ctx"
}

// Marker is the character shown before the line.
func (l diffLine) Marker() string {
	switch l.Op {
	case "-", "+":
		return l.Op
	}
	return " "
}

// editDiff renders the change a text_editor call asks for (create,
// str_replace, insert) as a unified diff read from its arguments; nil for
// any other call, or arguments it cannot read.
func editDiff(function string, raw json.RawMessage) []diffLine {
	if function != "text_editor" && !strings.HasSuffix(function, "text_editor") {
		return nil
	}
	var a editor.Args
	if err := json.Unmarshal(raw, &a); err != nil || a.Command == nil || a.Path == nil {
		return nil
	}
	path := safetext.Escape(*a.Path)
	switch *a.Command {
	case "create":
		if a.FileText == nil {
			return nil
		}
		lines := splitText(*a.FileText)
		out := []diffLine{{"h", "--- /dev/null"}, {"h", "+++ " + path}}
		if len(lines) > 0 {
			out = append(out, diffLine{"@", fmt.Sprintf("@@ -0,0 +1,%d @@", len(lines))})
		}
		for _, l := range lines {
			out = append(out, diffLine{"+", l})
		}
		return out
	case "str_replace":
		if a.OldStr == nil {
			return nil
		}
		newStr := ""
		if a.NewStr != nil {
			newStr = *a.NewStr
		}
		out := []diffLine{{"h", "--- " + path}, {"h", "+++ " + path}}
		return append(out, lineDiff(splitText(*a.OldStr), splitText(newStr))...)
	case "insert":
		if a.NewStr == nil || a.InsertLine == nil {
			return nil
		}
		lines := splitText(*a.NewStr)
		n := *a.InsertLine
		out := []diffLine{{"h", "--- " + path}, {"h", "+++ " + path},
			{"@", fmt.Sprintf("@@ after line %d: +%d @@", n, len(lines))}}
		for _, l := range lines {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	return nil
}

// viewDiff reads a call's view as a diff when it is one (its first line
// starts "--- "), for colouring; nil otherwise.
func viewDiff(view string) []diffLine {
	if !strings.HasPrefix(view, "--- ") {
		return nil
	}
	var out []diffLine
	for _, l := range splitText(view) {
		l = safetext.Escape(l)
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			out = append(out, diffLine{"h", l})
		case strings.HasPrefix(l, "@@"):
			out = append(out, diffLine{"@", l})
		case strings.HasPrefix(l, "-"):
			out = append(out, diffLine{"-", l[1:]})
		case strings.HasPrefix(l, "+"):
			out = append(out, diffLine{"+", l[1:]})
		default:
			out = append(out, diffLine{" ", strings.TrimPrefix(l, " ")})
		}
	}
	return out
}

// splitText splits text into lines, escaped for display; a final newline
// ends the last line rather than starting another.
func splitText(s string) []string {
	lines := linediff.Split(s)
	for i, l := range lines {
		lines[i] = safetext.Escape(l)
	}
	return lines
}

// lineDiff returns the lines of a and b as one hunk: lines common to both
// as context, the rest removed or added (internal/linediff).
func lineDiff(a, b []string) []diffLine {
	out := []diffLine{{"@", fmt.Sprintf("@@ -%s +%s @@", hunkRange(len(a)), hunkRange(len(b)))}}
	for _, l := range linediff.Lines(a, b) {
		out = append(out, diffLine{string(l.Op), l.Text})
	}
	return out
}

// hunkRange is the start,count of a unified diff hunk of n lines from 1.
func hunkRange(n int) string {
	if n == 0 {
		return "0,0"
	}
	return "1," + strconv.Itoa(n)
}

// validArguments checks the text of modified arguments: it must parse as
// JSON and be an object. It returns the compacted object.
func validArguments(text string) (json.RawMessage, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, fmt.Errorf("the arguments are empty: write a JSON object such as {\"name\": \"value\"}")
	}
	if !json.Valid([]byte(text)) {
		var v any
		err := json.Unmarshal([]byte(text), &v)
		return nil, fmt.Errorf("the arguments are not valid JSON: %w", err)
	}
	if _, err := orderedArgs(json.RawMessage(text)); err != nil {
		return nil, fmt.Errorf("the arguments must be a JSON object ({…}), not another JSON value")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return nil, fmt.Errorf("the arguments are not valid JSON: %w", err)
	}
	return b.Bytes(), nil
}
