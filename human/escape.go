package human

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Gutters that begin the lines of a quoted block. Untrusted text only ever
// appears after Gutter; the other two mark lines the console itself writes
// inside a block, so a person can tell them apart from content.
const (
	// Gutter begins every line of untrusted content.
	Gutter = "  │ "
	// wrapGutter begins the continuation of a content line too wide for
	// the console.
	wrapGutter = "  ┆ "
	// omitGutter begins the marker that stands for omitted lines.
	omitGutter = "  ⋮ "
)

// wrapWidth is the widest a content line may be, in columns, before it is
// wrapped: with the gutter it fits an 80-column terminal, so the terminal
// never wraps a line itself and starts its continuation at column 0.
const wrapWidth = 76

// gutterWidth is the number of columns a gutter takes.
const gutterWidth = 4

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
// fence; Quote does that by putting a gutter before every line.
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

// escapeLine is Escape for text that must stay on one line: newlines and
// tabs are rendered as \n and \t too.
func escapeLine(s string) string {
	s = Escape(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

// Quote renders untrusted text as a block a person can read safely: the text
// is escaped with Escape, lines wider than the console are wrapped, and
// every line begins with Gutter (continuations with a dotted gutter), so no
// line of the text can start where a prompt, a choice menu or a markdown
// fence would. When maxLines > 0 and the block would be longer, only its
// first and last maxLines/2 lines are kept, around a marker saying how many
// were left out. Every line of the result ends in a newline; empty text
// gives an empty block.
func Quote(s string, maxLines int) string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return ""
	}
	type line struct {
		text string
		cont bool
	}
	var lines []line
	for _, l := range strings.Split(Escape(s), "\n") {
		for i, part := range wrap(l, wrapWidth) {
			lines = append(lines, line{part, i > 0})
		}
	}
	var b strings.Builder
	write := func(l line) {
		if l.cont {
			b.WriteString(wrapGutter)
		} else {
			b.WriteString(Gutter)
		}
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if maxLines > 0 && len(lines) > maxLines {
		head := (maxLines + 1) / 2
		tail := maxLines - head
		for _, l := range lines[:head] {
			write(l)
		}
		fmt.Fprintf(&b, "%s… %d lines omitted …\n", omitGutter, len(lines)-head-tail)
		for _, l := range lines[len(lines)-tail:] {
			write(l)
		}
		return b.String()
	}
	for _, l := range lines {
		write(l)
	}
	return b.String()
}

// wrap splits an escaped line into parts at most width columns wide.
func wrap(s string, width int) []string {
	var parts []string
	start, col := 0, 0
	for i, r := range s {
		w := runeWidth(r, gutterWidth+col)
		if col+w > width && i > start {
			parts = append(parts, s[start:i])
			start, col = i, 0
			w = runeWidth(r, gutterWidth)
		}
		col += w
	}
	return append(parts, s[start:])
}

// runeWidth estimates the columns r takes on a terminal when it starts at
// column col: tabs advance to the next multiple of 8, East Asian wide
// characters and most emoji take two columns, combining marks none.
func runeWidth(r rune, col int) int {
	switch {
	case r == '\t':
		return 8 - col%8
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x1100 && r <= 0x115f,
		r >= 0x2e80 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff,
		r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1faff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
