// Package yamlsubset parses the small subset of YAML that warden's programs
// files (internal/triage/programs.yaml and the users' and managed files that
// extend it) are written in, into the same *yaml.Node tree that
// gopkg.in/yaml.v3 builds for them.
//
// It exists for the start-up of the first pass: the embedded programs file
// is read on first use, and yaml.v3's general tokenizer spent most of that
// time. The subset is:
//
//   - one implicit document (no directives, no "---" or "..." markers);
//   - block mappings whose keys are single-line plain or quoted scalars
//     followed by ": " (or ":" at the end of the line), and block
//     sequences of "- " entries, including compact ones ("- key: value",
//     "- - item") and sequences at the indentation of their mapping key;
//   - plain scalars, continued on more-indented lines and folded as YAML
//     folds them (a line break is a space, n empty lines are n newlines);
//   - single-quoted scalars (a doubled quote is a quote) and double-quoted scalars with
//     YAML's escapes, both possibly over several lines;
//   - one-level flow sequences [a, b, "c d"] and flow mappings {a: b, c: d}
//     of plain or quoted scalars, possibly over several lines;
//   - comments (# at the start of a line or after a space) and blank lines.
//
// Anything else — anchors, aliases, tags, block scalars (| and >), complex
// keys (?), nested flow collections, trailing commas, comments inside flow
// collections, tab characters, carriage returns, control characters, byte
// order marks and Unicode line separators, and whatever YAML would reject —
// makes Parse return an error wrapping ErrUnsupported. Parse never returns a
// tree that differs from yaml.v3's: callers fall back to yaml.v3 on any
// error, and yaml.v3 then reports real syntax errors at their line and
// column.
//
// The tree has the Kind, Tag, Value, Style, Line, Column and Content that
// yaml.v3 gives; comments are skipped, so HeadComment, LineComment and
// FootComment are always empty.
package yamlsubset

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ErrUnsupported is wrapped by every error of Parse: the input is outside
// the subset this package reads (or is not valid YAML), and the caller
// should parse it with yaml.v3 instead.
var ErrUnsupported = errors.New("outside the YAML subset (read it with yaml.v3)")

// maxDepth bounds the nesting of collections Parse accepts.
const maxDepth = 100

// maxKeyLen bounds the length of a simple key in bytes (YAML limits it to
// 1024 characters).
const maxKeyLen = 1000

// Parse parses data, a YAML document in the subset described in the package
// doc, and returns its document node as yaml.v3 would (without comments).
// For any other input, including an empty document, it returns an error
// wrapping ErrUnsupported.
func Parse(data []byte) (*yaml.Node, error) {
	p := &parser{src: string(data), line: 1}
	if err := p.precheck(); err != nil {
		return nil, err
	}
	p.skipBlankLines()
	if p.pos >= len(p.src) {
		return nil, p.unsupported("an empty document")
	}
	doc := p.newNode(yaml.DocumentNode, "", "", 0, p.line, p.col(p.pos))
	root, err := p.parseNode(-1, ctxTop)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, p.unsupported("content after the document's root node")
	}
	doc.Content = []*yaml.Node{root}
	return doc, nil
}

// context says where a node starts, which decides what it may be.
type context int

const (
	ctxTop        context = iota // the document's root
	ctxValueLine                 // a mapping value on the key's line
	ctxValueBelow                // a mapping value on the lines below its key
	ctxEntryLine                 // a sequence entry on its dash's line
	ctxEntryBelow                // a sequence entry on the lines below its dash
)

// parser is the state of one Parse: a position in the input and the line it
// is on, and slabs the nodes and their Content slices are carved from.
type parser struct {
	src       string
	pos       int
	line      int // 1-based line of pos
	lineStart int // offset of the first byte of that line
	ascii     bool
	depth     int
	nodes     []yaml.Node
	kids      []*yaml.Node // children of the collections being parsed
	ptrs      []*yaml.Node
	buf       []byte
}

// unsupported returns an error wrapping ErrUnsupported at the current line.
func (p *parser) unsupported(what string) error {
	return fmt.Errorf("line %d: %s: %w", p.line, what, ErrUnsupported)
}

// precheck refuses, before parsing, the characters and lines outside the
// subset: tabs, carriage returns and other control characters, invalid
// UTF-8, C1 controls (NEL is a YAML line break), byte order marks, Unicode
// line and paragraph separators, and lines that start with "---", "..." or
// "%" (document markers and directives).
func (p *parser) precheck() error {
	s := p.src
	p.ascii = true
	line := 1
	for i := 0; i < len(s); {
		// At the start of a line.
		if strings.HasPrefix(s[i:], "---") || strings.HasPrefix(s[i:], "...") || s[i] == '%' {
			return fmt.Errorf("line %d: a document marker or directive: %w", line, ErrUnsupported)
		}
		for i < len(s) {
			c := s[i]
			if c >= 0x20 && c < 0x7F {
				i++
				continue
			}
			if c == '\n' {
				i++
				line++
				break
			}
			if c < utf8.RuneSelf {
				return fmt.Errorf("line %d: a tab, carriage return or control character: %w", line, ErrUnsupported)
			}
			p.ascii = false
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
				return fmt.Errorf("line %d: a character outside the subset: %w", line, ErrUnsupported)
			}
			i += n
		}
	}
	return nil
}

// col returns the 0-based column, in characters, of offset i on the current
// line.
func (p *parser) col(i int) int {
	if p.ascii {
		return i - p.lineStart
	}
	return utf8.RuneCountInString(p.src[p.lineStart:i])
}

// newNode returns a node carved from the parser's slab.
func (p *parser) newNode(kind yaml.Kind, tag, value string, style yaml.Style, line, col int) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]yaml.Node, 0, 256)
	}
	p.nodes = append(p.nodes, yaml.Node{Kind: kind, Tag: tag, Value: value, Style: style, Line: line, Column: col + 1})
	return &p.nodes[len(p.nodes)-1]
}

// children returns the children pushed since mark as a Content slice carved
// from the parser's pointer slab, and pops them.
func (p *parser) children(mark int) []*yaml.Node {
	k := p.kids[mark:]
	n := len(k)
	if n == 0 {
		return nil
	}
	if cap(p.ptrs)-len(p.ptrs) < n {
		p.ptrs = make([]*yaml.Node, 0, max(1024, n))
	}
	start := len(p.ptrs)
	p.ptrs = append(p.ptrs, k...)
	p.kids = p.kids[:mark]
	return p.ptrs[start : start+n : start+n]
}

// skipBlankLines moves from the start of a line (or the end of a line's
// content, after endLine) over blank and comment lines to the next content
// character, or to the end of the input.
func (p *parser) skipBlankLines() {
	s := p.src
	i := p.pos
	for i < len(s) {
		switch s[i] {
		case ' ':
			i++
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '\n':
			i++
			p.line++
			p.lineStart = i
		default:
			p.pos = i
			return
		}
	}
	p.pos = i
}

// endLine checks that the rest of the current line is blank or a comment
// after a space, and moves to the start of the next line (or the end of the
// input).
func (p *parser) endLine() error {
	s := p.src
	i := p.pos
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && s[i] == '#' && (i == p.lineStart || s[i-1] == ' ') {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	if i == len(s) {
		p.pos = i
		return nil
	}
	if s[i] != '\n' {
		p.pos = i
		return p.unsupported("unexpected text after a node")
	}
	p.pos = i + 1
	p.line++
	p.lineStart = p.pos
	return nil
}

// blankz says whether offset i is the end of the input, a space or a line
// break.
func (p *parser) blankz(i int) bool {
	return i >= len(p.src) || p.src[i] == ' ' || p.src[i] == '\n'
}

// isDash says whether the current position is a block sequence entry.
func (p *parser) isDash() bool {
	return p.pos < len(p.src) && p.src[p.pos] == '-' && p.blankz(p.pos+1)
}

// parseNode parses the block node at the current position (a content
// character) whose enclosing block collection is at column ind (-1 for the
// root), and leaves the position at the next content character or the end
// of the input.
func (p *parser) parseNode(ind int, ctx context) (*yaml.Node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.unsupported("nesting too deep")
	}
	c := p.src[p.pos]
	col := p.col(p.pos)
	switch {
	case p.isDash():
		if ctx == ctxValueLine {
			return nil, p.unsupported("a sequence on its key's line")
		}
		return p.parseSeq(col)
	case c == '[' || c == '{':
		n, err := p.parseFlow(ind)
		if err != nil {
			return nil, err
		}
		if err := p.endLine(); err != nil {
			return nil, err
		}
		p.skipBlankLines()
		return n, nil
	}
	n, isKey, err := p.scanBlockScalar(ind)
	if err != nil {
		return nil, err
	}
	if isKey {
		if ctx == ctxValueLine {
			return nil, p.unsupported("a mapping on its key's line")
		}
		return p.parseMap(col, n)
	}
	if err := p.endLine(); err != nil {
		return nil, err
	}
	p.skipBlankLines()
	return n, nil
}

// parseSeq parses a block sequence whose dashes are at column c; the
// position is at the first dash.
func (p *parser) parseSeq(c int) (*yaml.Node, error) {
	seq := p.newNode(yaml.SequenceNode, "!!seq", "", 0, p.line, c)
	mark := len(p.kids)
	for {
		dashLine := p.line
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] == ' ' {
			p.pos++
		}
		var child *yaml.Node
		var err error
		if p.pos == len(p.src) || p.src[p.pos] == '\n' || p.src[p.pos] == '#' {
			if err := p.endLine(); err != nil {
				return nil, err
			}
			p.skipBlankLines()
			if p.pos < len(p.src) && p.col(p.pos) > c {
				child, err = p.parseNode(c, ctxEntryBelow)
			} else {
				child = p.newNode(yaml.ScalarNode, "!!null", "", 0, dashLine, c+1)
			}
		} else {
			child, err = p.parseNode(c, ctxEntryLine)
		}
		if err != nil {
			return nil, err
		}
		p.kids = append(p.kids, child)
		if p.pos >= len(p.src) {
			break
		}
		cc := p.col(p.pos)
		if cc > c {
			return nil, p.unsupported("a line indented deeper than its sequence")
		}
		if cc < c || !p.isDash() {
			break
		}
	}
	seq.Content = p.children(mark)
	return seq, nil
}

// parseMap parses a block mapping at column c whose first key, key, has
// been scanned; the position is at the colon after it.
func (p *parser) parseMap(c int, key *yaml.Node) (*yaml.Node, error) {
	m := p.newNode(yaml.MappingNode, "!!map", "", 0, key.Line, key.Column-1)
	mark := len(p.kids)
	p.kids = append(p.kids, key)
	for {
		colonLine, colonCol := p.line, p.col(p.pos)
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] == ' ' {
			p.pos++
		}
		var val *yaml.Node
		var err error
		if p.pos == len(p.src) || p.src[p.pos] == '\n' || p.src[p.pos] == '#' {
			if err := p.endLine(); err != nil {
				return nil, err
			}
			p.skipBlankLines()
			switch {
			case p.pos < len(p.src) && p.col(p.pos) > c:
				val, err = p.parseNode(c, ctxValueBelow)
			case p.pos < len(p.src) && p.col(p.pos) == c && p.isDash():
				p.depth++
				if p.depth > maxDepth {
					return nil, p.unsupported("nesting too deep")
				}
				val, err = p.parseSeq(c)
				p.depth--
			default:
				val = p.newNode(yaml.ScalarNode, "!!null", "", 0, colonLine, colonCol+1)
			}
		} else {
			val, err = p.parseNode(c, ctxValueLine)
		}
		if err != nil {
			return nil, err
		}
		p.kids = append(p.kids, val)
		if p.pos >= len(p.src) {
			break
		}
		cc := p.col(p.pos)
		if cc < c {
			break
		}
		if cc > c {
			return nil, p.unsupported("a line indented deeper than its mapping")
		}
		if p.isDash() {
			return nil, p.unsupported("a sequence entry among mapping keys")
		}
		c0 := p.src[p.pos]
		if c0 == '[' || c0 == '{' {
			return nil, p.unsupported("a flow collection as a key")
		}
		k, isKey, err := p.scanBlockScalar(c)
		if err != nil {
			return nil, err
		}
		if !isKey {
			return nil, p.unsupported("a mapping entry without a key")
		}
		p.kids = append(p.kids, k)
	}
	m.Content = p.children(mark)
	return m, nil
}

// scanBlockScalar scans the plain or quoted scalar at the current position
// in block context (ind is the column of the enclosing block collection).
// When a colon and a space follow it on its line, it is a key: isKey is
// true and the position is at the colon. Otherwise the position is just
// after the scalar.
func (p *parser) scanBlockScalar(ind int) (n *yaml.Node, isKey bool, err error) {
	line, start := p.line, p.pos
	col := p.col(start)
	c := p.src[start]
	if c == '\'' || c == '"' {
		val, crossed, err := p.scanQuoted(ind)
		if err != nil {
			return nil, false, err
		}
		style := yaml.DoubleQuotedStyle
		if c == '\'' {
			style = yaml.SingleQuotedStyle
		}
		n = p.newNode(yaml.ScalarNode, "!!str", val, style, line, col)
		i := p.pos
		for i < len(p.src) && p.src[i] == ' ' {
			i++
		}
		if i < len(p.src) && p.src[i] == ':' {
			if crossed || !p.blankz(i+1) {
				return nil, false, p.unsupported("a multi-line key or a colon after a quoted scalar")
			}
			if i-start > maxKeyLen {
				return nil, false, p.unsupported("a key too long")
			}
			p.pos = i
			return n, true, nil
		}
		return n, false, nil
	}
	if !plainStart(p.src, start, false) {
		return nil, false, p.unsupported(fmt.Sprintf("a node starting with %q", c))
	}
	val, stop, crossed, err := p.scanPlain(ind, false)
	if err != nil {
		return nil, false, err
	}
	n = p.newNode(yaml.ScalarNode, plainTag(val), val, 0, line, col)
	switch stop {
	case ':':
		if crossed {
			return nil, false, p.unsupported("a multi-line key")
		}
		if p.pos-start > maxKeyLen {
			return nil, false, p.unsupported("a key too long")
		}
		return n, true, nil
	case '\n', '#':
		return n, false, nil
	}
	return nil, false, p.unsupported("an unexpected character after a plain scalar")
}

// plainStart says whether a plain scalar may start at offset i (in flow
// context when flow is true).
func plainStart(s string, i int, flow bool) bool {
	c := s[i]
	switch c {
	case '-':
		if i+1 >= len(s) {
			return false
		}
		switch s[i+1] {
		case ' ', '\n':
			return false
		case ',', '[', ']', '{', '}':
			return !flow
		}
		return true
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\n':
		return false
	}
	return true
}

// plainTag returns the tag yaml.v3 resolves a plain scalar to.
func plainTag(v string) string {
	switch v {
	case "":
		return "!!null"
	case "<<":
		return "!!merge"
	}
	switch c := v[0]; {
	case c == '+' || c == '-' || c == '.' || c == '~' || c >= '0' && c <= '9' || strings.IndexByte("yYnNtTfFoO", c) >= 0:
		n := yaml.Node{Kind: yaml.ScalarNode, Value: v}
		return n.ShortTag()
	}
	return "!!str"
}

// scanPlain scans a plain scalar from the current position: the scalar
// ends at a colon followed by a space or a line break, at " #", at a flow
// indicator in flow context, or at a line that is not a continuation (not
// deeper than ind, a comment, or the end of the input). stop is ':', '#',
// the flow indicator, or '\n' for the end of a line; crossed says whether
// the scan went past a line break. The position is left at the stopping
// character, or after the last character of the scalar when stop is '\n'.
func (p *parser) scanPlain(ind int, flow bool) (val string, stop byte, crossed bool, err error) {
	s := p.src
	i := p.pos
	line, ls := p.line, p.lineStart
	endPos, endLine, endLS := i, line, ls
	first := true
	multi := false
	pending := 0 // line breaks to fold before the next segment: -1 for a space
	p.buf = p.buf[:0]
	for {
		segStart := i
		last := i
		stop = '\n'
		for i < len(s) {
			c := s[i]
			if c == '\n' {
				break
			}
			if c == ' ' {
				j := i + 1
				for j < len(s) && s[j] == ' ' {
					j++
				}
				if j == len(s) || s[j] == '\n' {
					i = j
					break
				}
				if s[j] == '#' {
					i = j
					stop = '#'
					break
				}
				i = j
				continue
			}
			if c == ':' && (flow || i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
				stop = ':'
				break
			}
			if flow && (c == ',' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}') {
				stop = c
				break
			}
			i++
			last = i
		}
		if last > segStart {
			if !first {
				if !multi {
					p.buf = append(p.buf, val...)
					multi = true
				}
				if pending == 0 {
					p.buf = append(p.buf, ' ')
				} else {
					for ; pending > 0; pending-- {
						p.buf = append(p.buf, '\n')
					}
				}
				p.buf = append(p.buf, s[segStart:last]...)
			} else {
				val = s[segStart:last]
			}
			first = false
			endPos, endLine, endLS = last, line, ls
		}
		if stop != '\n' {
			// A stopper at the start of a continuation line leaves the
			// line break before it out of the scalar.
			p.pos, p.line, p.lineStart = i, line, ls
			break
		}
		// At the end of a line: is the next non-blank line a continuation?
		if i == len(s) {
			p.pos, p.line, p.lineStart = endPos, endLine, endLS
			break
		}
		j := i + 1
		nl, nls := line+1, j
		blanks := 0
		k := j
		for {
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if k < len(s) && s[k] == '\n' {
				blanks++
				k++
				nl++
				nls = k
				continue
			}
			break
		}
		if k == len(s) || s[k] == '#' || !flow && k-nls <= ind {
			p.pos, p.line, p.lineStart = endPos, endLine, endLS
			break
		}
		if flow && k-nls <= ind {
			return "", 0, false, fmt.Errorf("line %d: a flow collection's line not indented: %w", nl, ErrUnsupported)
		}
		crossed = true
		pending = blanks
		i, line, ls = k, nl, nls
	}
	if multi {
		val = string(p.buf)
	}
	return val, stop, crossed, nil
}

// scanQuoted scans the single- or double-quoted scalar at the current
// position and leaves the position after its closing quote. Its lines after
// the first must be indented deeper than ind. crossed says whether it spans
// several lines.
func (p *parser) scanQuoted(ind int) (val string, crossed bool, err error) {
	s := p.src
	q := s[p.pos]
	stops := &singleStops
	if q == '"' {
		stops = &doubleStops
	}
	i := p.pos + 1
	start := i
	simple := true // no escape or fold yet: val is s[start:close]
	p.buf = p.buf[:0]
	for {
		j := i
		for j < len(s) && !stops[s[j]] {
			j++
		}
		if j == len(s) {
			return "", false, p.unsupported("an unterminated quoted scalar")
		}
		switch c := s[j]; {
		case c == q:
			if q == '\'' && j+1 < len(s) && s[j+1] == '\'' {
				// (While simple, i is start and p.buf is empty.)
				p.buf = append(p.buf, s[i:j+1]...)
				simple = false
				i = j + 2
				continue
			}
			if simple {
				val = s[start:j]
			} else {
				p.buf = append(p.buf, s[i:j]...)
				val = string(p.buf)
			}
			p.pos = j + 1
			return val, crossed, nil
		case c == '\n':
			// The spaces before a line break are not part of the scalar.
			e := j
			for e > i && s[e-1] == ' ' {
				e--
			}
			p.buf = append(p.buf, s[i:e]...)
			simple = false
			i, err = p.quotedBreak(j, ind, false)
			if err != nil {
				return "", false, err
			}
			crossed = true
		default: // a backslash in a double-quoted scalar
			p.buf = append(p.buf, s[i:j]...)
			simple = false
			if j+1 < len(s) && s[j+1] == '\n' {
				i, err = p.quotedBreak(j+1, ind, true)
				crossed = true
			} else {
				i, err = p.escape(j)
			}
			if err != nil {
				return "", false, err
			}
		}
	}
}

// singleStops and doubleStops are the bytes that end a run of literal text
// in a single- and a double-quoted scalar.
var singleStops, doubleStops = stopSet("'\n"), stopSet("\"\\\n")

// stopSet returns a table of the bytes of chars.
func stopSet(chars string) (t [256]bool) {
	for i := range len(chars) {
		t[chars[i]] = true
	}
	return t
}

// quotedBreak folds the line break at offset i (escaped when esc) inside a
// quoted scalar with the blank lines after it, checks the indentation of
// the line the scalar goes on with, and returns the offset of its first
// non-space character.
func (p *parser) quotedBreak(i, ind int, esc bool) (int, error) {
	s := p.src
	blanks := 0
	i++
	p.line++
	p.lineStart = i
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == '\n' {
			blanks++
			i++
			p.line++
			p.lineStart = i
			continue
		}
		break
	}
	if i == len(s) {
		return 0, p.unsupported("an unterminated quoted scalar")
	}
	if i-p.lineStart <= ind {
		return 0, p.unsupported("a quoted scalar's line not indented")
	}
	if !esc && blanks == 0 {
		p.buf = append(p.buf, ' ')
	}
	for ; blanks > 0; blanks-- {
		p.buf = append(p.buf, '\n')
	}
	return i, nil
}

// escape appends the character of the escape sequence at offset i of a
// double-quoted scalar to p.buf and returns the offset after it.
func (p *parser) escape(i int) (int, error) {
	s := p.src
	if i+1 >= len(s) {
		return 0, p.unsupported("an unterminated quoted scalar")
	}
	var r rune
	n := 0
	switch s[i+1] {
	case '0':
		r = 0
	case 'a':
		r = '\a'
	case 'b':
		r = '\b'
	case 't':
		r = '\t'
	case 'n':
		r = '\n'
	case 'v':
		r = '\v'
	case 'f':
		r = '\f'
	case 'r':
		r = '\r'
	case 'e':
		r = 0x1B
	case ' ', '"', '\'', '\\':
		r = rune(s[i+1])
	case 'N':
		r = 0x85
	case '_':
		r = 0xA0
	case 'L':
		r = 0x2028
	case 'P':
		r = 0x2029
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, p.unsupported("an unknown escape in a double-quoted scalar")
	}
	i += 2
	if n > 0 {
		if i+n > len(s) {
			return 0, p.unsupported("a short escape in a double-quoted scalar")
		}
		for _, h := range []byte(s[i : i+n]) {
			var d byte
			switch {
			case h >= '0' && h <= '9':
				d = h - '0'
			case h >= 'a' && h <= 'f':
				d = h - 'a' + 10
			case h >= 'A' && h <= 'F':
				d = h - 'A' + 10
			default:
				return 0, p.unsupported("a bad hexadecimal escape in a double-quoted scalar")
			}
			r = r<<4 | rune(d)
		}
		if r >= 0xD800 && r <= 0xDFFF || r > 0x10FFFF {
			return 0, p.unsupported("an invalid Unicode escape in a double-quoted scalar")
		}
		i += n
	}
	p.buf = utf8.AppendRune(p.buf, r)
	return i, nil
}

// parseFlow parses the one-level flow sequence or mapping at the current
// position, whose lines after the first must be indented deeper than ind,
// and leaves the position after its closing bracket.
func (p *parser) parseFlow(ind int) (*yaml.Node, error) {
	open := p.src[p.pos]
	kind, tag, closing := yaml.SequenceNode, "!!seq", byte(']')
	if open == '{' {
		kind, tag, closing = yaml.MappingNode, "!!map", '}'
	}
	n := p.newNode(kind, tag, "", yaml.FlowStyle, p.line, p.col(p.pos))
	mark := len(p.kids)
	p.pos++
	if err := p.flowSpace(ind); err != nil {
		return nil, err
	}
	if p.src[p.pos] == closing {
		p.pos++
		return n, nil
	}
	for {
		if kind == yaml.MappingNode {
			k, err := p.flowScalar(ind, true)
			if err != nil {
				return nil, err
			}
			p.kids = append(p.kids, k)
			// The colon: on the key's line, followed by a space.
			for p.pos < len(p.src) && p.src[p.pos] == ' ' {
				p.pos++
			}
			if p.pos+1 >= len(p.src) || p.src[p.pos] != ':' || p.src[p.pos+1] != ' ' {
				return nil, p.unsupported("a flow mapping entry without \": \"")
			}
			p.pos++
			if err := p.flowSpace(ind); err != nil {
				return nil, err
			}
		}
		v, err := p.flowScalar(ind, false)
		if err != nil {
			return nil, err
		}
		p.kids = append(p.kids, v)
		if err := p.flowSpace(ind); err != nil {
			return nil, err
		}
		switch p.src[p.pos] {
		case closing:
			p.pos++
			n.Content = p.children(mark)
			return n, nil
		case ',':
			p.pos++
			if err := p.flowSpace(ind); err != nil {
				return nil, err
			}
			if p.src[p.pos] == closing {
				return nil, p.unsupported("a trailing comma in a flow collection")
			}
		default:
			return nil, p.unsupported("an unexpected character in a flow collection")
		}
	}
}

// flowSpace skips spaces and line breaks inside a flow collection, refusing
// comments, the end of the input and lines not indented deeper than ind.
func (p *parser) flowSpace(ind int) error {
	s := p.src
	newLine := false
	for p.pos < len(s) {
		switch s[p.pos] {
		case ' ':
			p.pos++
		case '\n':
			p.pos++
			p.line++
			p.lineStart = p.pos
			newLine = true
		case '#':
			return p.unsupported("a comment inside a flow collection")
		default:
			if newLine && p.pos-p.lineStart <= ind {
				return p.unsupported("a flow collection's line not indented")
			}
			return nil
		}
	}
	return p.unsupported("an unterminated flow collection")
}

// flowScalar scans a plain or quoted scalar inside a flow collection; a key
// must be on one line and end before ": ".
func (p *parser) flowScalar(ind int, key bool) (*yaml.Node, error) {
	line, start := p.line, p.pos
	col := p.col(start)
	c := p.src[start]
	if c == '\'' || c == '"' {
		val, crossed, err := p.scanQuoted(ind)
		if err != nil {
			return nil, err
		}
		if key && (crossed || p.pos-start > maxKeyLen) {
			return nil, p.unsupported("a multi-line or long key in a flow mapping")
		}
		style := yaml.DoubleQuotedStyle
		if c == '\'' {
			style = yaml.SingleQuotedStyle
		}
		return p.newNode(yaml.ScalarNode, "!!str", val, style, line, col), nil
	}
	if !plainStart(p.src, start, true) {
		return nil, p.unsupported(fmt.Sprintf("a flow item starting with %q", c))
	}
	val, stop, crossed, err := p.scanPlain(ind, true)
	if err != nil {
		return nil, err
	}
	switch stop {
	case ':':
		if !key || crossed || p.pos-start > maxKeyLen {
			return nil, p.unsupported("a colon in a flow item")
		}
	case ',', ']', '}', '\n':
		if key {
			return nil, p.unsupported("a flow mapping key without a value")
		}
	default:
		return nil, p.unsupported("an unexpected character in a flow item")
	}
	return p.newNode(yaml.ScalarNode, plainTag(val), val, 0, line, col), nil
}
