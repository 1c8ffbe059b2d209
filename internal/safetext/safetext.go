// Package safetext makes untrusted text safe for a person to read (SPEC
// H5): at the console, in the web panel, in the messages of the command.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape neutralizes the characters of s that could act on a terminal or
// disguise what a person reads (SPEC H5). ANSI and other escape sequences
// lose their ESC byte, which is rendered visibly as \x1b; every other C0
// control except newline and tab (carriage return and backspace included),
// DEL, the C1 controls, invalid UTF-8 bytes, and invisible Unicode format
// characters (bidirectional overrides, zero-width characters, line and
// paragraph separators, tag characters) are likewise rendered as \xNN or
// \uNNNN. Newlines and tabs are kept. Backslashes are left as they are, so
// the text \x1b and a neutralized ESC look the same: both are harmless.
//
// Escape does not stop a line of s from looking like a prompt or a markdown
// fence; the console does that by putting a gutter before every line.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafeRune(r, size):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r, decoded from size bytes, must be escaped.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r < 0xa0:
		return true // C1 controls, CSI (U+009B) among them
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}
