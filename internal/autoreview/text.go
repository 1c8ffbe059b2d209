package autoreview

import (
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

// neutralise makes untrusted text safe to place inside a marked block: it
// repairs invalid UTF-8, normalises line breaks and breaks every "<<<" so
// that no marker can be formed. After it, the text has no run of three "<".
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
	return s
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
