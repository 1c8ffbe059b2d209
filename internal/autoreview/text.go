package autoreview

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// BytesPerToken is the estimate used to turn token budgets into bytes.
const BytesPerToken = 4

// markerStart opens every marker line the prompt builder writes (the
// untrusted block, the action block, the override note). Untrusted text never
// contains it after neutralise, so it cannot close a block or imitate a
// marker.
const markerStart = "<<<"

// neutralisedStart replaces markerStart in untrusted text. The third angle
// bracket becomes U+2039 (‹), which keeps the text readable while making an
// exact marker impossible.
const neutralisedStart = "<<\u2039"

// lineBreaks are the characters a model may read as the end of a line. They
// become "\n" in untrusted text so that each line gets its prefix.
var lineBreaks = strings.NewReplacer(
	"\r\n", "\n",
	"\r", "\n",
	"\v", "\n",
	"\f", "\n",
	"\u0085", "\n",
	"\u2028", "\n",
	"\u2029", "\n",
)

// neutralise makes untrusted text safe to place inside a marked block (SPEC
// G5): it repairs invalid UTF-8, normalises line breaks, breaks every "<<<"
// so that no marker can be formed, shows invisible characters as visible
// escapes and escapes what imitates a line warden writes. After it, the text
// has no run of three "<", no control character other than "\n" and "\t"
// (so no ANSI escape sequence), no bidi override or isolate, no zero-width
// character, and no "[" that starts something shaped like warden's entry
// headers ("[#12 user]"), cut markers ("[… 10 bytes cut …]") or omission
// notes ("[3 entries omitted]"): such a "[" becomes "\[".
func neutralise(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if hasOddLineBreak(s) {
		s = lineBreaks.Replace(s)
	}
	if strings.Contains(s, markerStart) {
		s = strings.ReplaceAll(s, markerStart, neutralisedStart)
	}
	if i := firstSuspect(s); i >= 0 {
		s = escapeFrom(s, i)
	}
	return s
}

// firstSuspect returns the index of the first byte of s that may start
// something escapeFrom changes, or -1. It is a fast, conservative scan:
// most text has none.
func firstSuspect(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f, c == '[', c == 0xC2, c == 0xE2, c == 0xEF:
			return i
		}
	}
	return -1
}

// invisible reports whether r is shown as an escape: a control character
// other than "\n" and "\t" (C0, DEL, C1 — which covers ESC and so every
// ANSI sequence), a bidi embedding, override, isolate or mark, a zero-width
// character, the byte order mark, or a fullwidth look-alike of the
// characters warden's lines are made of.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	// Zero-width space, non-joiner, joiner, LRM, RLM; bidi embeddings and
	// overrides; word joiner and invisible operators; bidi isolates; the
	// Arabic letter mark; the byte order mark; fullwidth # < > [ ] |.
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E,
		r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069,
		r == 0x061C, r == 0xFEFF,
		r == 0xFF03, r == 0xFF1C, r == 0xFF1E, r == 0xFF3B, r == 0xFF3D, r == 0xFF5C:
		return true
	}
	return false
}

// imitatesWarden reports whether "[" followed by rest starts something
// shaped like a line warden writes: "[#", "[…", "[\", or digits and a space
// ("[3 entries omitted]").
func imitatesWarden(rest string) bool {
	if rest == "" {
		return false
	}
	switch rest[0] {
	case '#', '\\':
		return true
	}
	if strings.HasPrefix(rest, "…") {
		return true
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return i > 0 && i < len(rest) && rest[i] == ' '
}

// escapeFrom rewrites s from index i on: invisible characters become
// "\uXXXX" (or "\xXX" below U+0100), and a "[" that imitates warden
// becomes "\[".
func escapeFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '[' && imitatesWarden(s[i+1:]):
			b.WriteString("\\[")
		case invisible(r):
			if r < 0x100 {
				b.WriteString(`\x`)
				b.WriteString(strconv.FormatInt(int64(r)|0x100, 16)[1:])
			} else {
				b.WriteString(`\u`)
				b.WriteString(strconv.FormatInt(int64(r)|0x10000, 16)[1:])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// safeName keeps a name agent text chose (a tool's name, an error type) to
// identifier characters, so that it can stand in a header line: letters,
// digits and "-_.:" are kept, anything else becomes "_", and it is cut at
// 64 bytes.
func safeName(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return safeID(s)
}

// hasOddLineBreak reports whether s holds a line break other than "\n"
// (one of lineBreaks), in one pass over its bytes.
func hasOddLineBreak(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r', '\v', '\f':
			return true
		case 0xC2: // U+0085 is C2 85
			if i+1 < len(s) && s[i+1] == 0x85 {
				return true
			}
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				return true
			}
		}
	}
	return false
}

// contentPrefix starts every line of untrusted text inside a block, so that
// only headers and markers written by warden begin a line.
const contentPrefix = "| "

// writeQuoted writes s (already neutralised) to b with every line prefixed by
// contentPrefix, and a final newline.
func writeQuoted(b *strings.Builder, s string) {
	for {
		i := strings.IndexByte(s, '\n')
		b.WriteString(contentPrefix)
		if i < 0 {
			b.WriteString(s)
			b.WriteByte('\n')
			return
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
}
