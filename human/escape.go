package human

import (
	"fmt"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/wardenhq/warden/internal/safetext"
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

// escapeLine is safetext.Escape for text that must stay on one line: newlines and
// tabs are rendered as \n and \t too.
func escapeLine(s string) string {
	s = safetext.Escape(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

// quoteBlock renders untrusted text as a block a person can read safely: the text
// is escaped with safetext.Escape, lines wider than an 80-column terminal are
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
	for _, l := range strings.Split(safetext.Escape(s), "\n") {
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
