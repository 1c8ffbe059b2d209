package autoreview

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// wrapToolOutput renders what a read-only tool returned — its output, or
// the text of its error, which names paths and files the agent chose — as
// untrusted evidence (SPEC G4, G5): neutralised, every line prefixed,
// between BeginToolOutput and EndToolOutput. Text longer than
// maxToolOutput is cut at the end, never in the middle, and warden's note
// of the cut follows the block, where no untrusted text can imitate it.
// read_file and list_dir never exceed the bound: they page themselves.
// With a marker key (withMarkerKey), both marker lines end with it and any
// copy of it in the text is escaped.
func wrapToolOutput(text, key string) string {
	s := escapeKey(neutralise(text), key)
	rest := 0
	if len(s) > maxToolOutput {
		end := maxToolOutput
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		rest = len(s) - end
		s = s[:end]
	}
	var b strings.Builder
	suffix := ""
	if key != "" {
		suffix = keySuffix(key)
	}
	b.WriteString(BeginToolOutput + suffix + "\n")
	writeQuoted(&b, s)
	b.WriteString(EndToolOutput + suffix)
	if rest > 0 {
		fmt.Fprintf(&b, "\n[the output above is cut at its end: the last %d bytes were not shown]", rest)
	}
	return b.String()
}

// maxToolCalls returns the review's budget of tool calls.
func (r *Reviewer) maxToolCalls() int {
	if r.MaxToolCalls > 0 {
		return r.MaxToolCalls
	}
	return DefaultMaxToolCalls
}
