package human

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Gutters that begin the lines of a quoted block. Untrusted text only ever
// appears after contentGutter; the other two mark lines the console itself writes
// inside a block, so a person can tell them apart from content.
const (
	// contentGutter begins every line of untrusted content.
	contentGutter = "  │ "
	// wrapGutter begins the continuation of a content line too wide for
	// the console.
	wrapGutter = "  ┆ "
	// omitGutter begins the marker that stands for omitted lines.
	omitGutter = "  ⋮ "
)

// gutterWidth returns the columns the widest gutter takes: its bars are
// East Asian ambiguous characters, which some terminals draw wide.
func gutterWidth() int {
	return max(textWidth(contentGutter), textWidth(wrapGutter), textWidth(omitGutter))
}

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
// fence; quoteBlock does that by putting a gutter before every line.
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

// quoteBlock renders untrusted text as a block a person can read safely: the text
// is escaped with Escape, lines wider than an 80-column terminal are
// wrapped, and every line begins with contentGutter (continuations with a dotted
// gutter), so no line of the text can start where a prompt, a choice menu
// or a markdown fence would. When maxLines > 0 and the block would be
// longer, only its first and last maxLines/2 lines are kept, around a
// marker saying how many were left out. Every line of the result ends in a
// newline; empty text gives an empty block.
func quoteBlock(s string, maxLines int) string {
	q, _ := quote(s, maxLines, defaultColumns)
	return q
}

// defaultColumns is the terminal width assumed when the console's is not
// known.
const defaultColumns = 80

// minColumns is the narrowest width text is wrapped to, however narrow the
// terminal says it is.
const minColumns = 20

// qline is one line of a quoted block: escaped text at most the wrap width
// wide, and whether it continues the line before it.
type qline struct {
	text string
	cont bool
}

// quoteLines escapes s and splits it into lines that fit in columns with a
// gutter gutter columns wide before each.
func quoteLines(s string, columns, gutter int) []qline {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	var lines []qline
	for _, l := range strings.Split(Escape(s), "\n") {
		for i, part := range wrap(l, max(columns, minColumns)-gutter, gutter) {
			lines = append(lines, qline{part, i > 0})
		}
	}
	return lines
}

// quote is quoteBlock for a terminal columns wide. It also reports whether lines
// were left out.
func quote(s string, maxLines, columns int) (string, bool) {
	lines := quoteLines(s, columns, gutterWidth())
	var b strings.Builder
	write := func(l qline) {
		if l.cont {
			b.WriteString(wrapGutter)
		} else {
			b.WriteString(contentGutter)
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
		omitted(&b, len(lines)-head-tail)
		for _, l := range lines[len(lines)-tail:] {
			write(l)
		}
		return b.String(), true
	}
	for _, l := range lines {
		write(l)
	}
	return b.String(), false
}

// omitted writes the marker that stands for n omitted lines.
func omitted(b *strings.Builder, n int) {
	fmt.Fprintf(b, "%s… %s omitted (v shows all) …\n", omitGutter, count(n, "line"))
}

// count says n things: "1 line", "2 lines".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// wrap splits an escaped line into parts at most width columns wide, each
// part starting after a gutter gutter columns wide.
func wrap(s string, width, gutter int) []string {
	var parts []string
	start, col := 0, 0
	for i, r := range s {
		w := runeWidth(r, gutter+col)
		if col+w > width && i > start {
			parts = append(parts, s[start:i])
			start, col = i, 0
			w = runeWidth(r, gutter)
		}
		col += w
	}
	return append(parts, s[start:])
}

// runeWidth returns the columns r takes on a terminal when it starts at
// column col: tabs advance to the next multiple of 8, East Asian wide
// characters and emoji take two columns, combining marks none. East Asian
// ambiguous characters count as wide, as a terminal set for CJK text draws
// them, so a measured line never turns out wider on the screen.
func runeWidth(r rune, col int) int {
	if r == '\t' {
		return 8 - col%8
	}
	widths := runewidth.Condition{EastAsianWidth: true}
	return widths.RuneWidth(r)
}

// textWidth returns the columns s takes on one line.
func textWidth(s string) int {
	col := 0
	for _, r := range s {
		col += runeWidth(r, col)
	}
	return col
}

// cutWidth shortens s to at most n columns, ending it with "…" when cut.
func cutWidth(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	room := n - textWidth("…")
	col := 0
	for i, r := range s {
		w := runeWidth(r, col)
		if col+w > room {
			return s[:i] + "…"
		}
		col += w
	}
	return s
}
