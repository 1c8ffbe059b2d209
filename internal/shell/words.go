package shell

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one word of a command: its value when literal, else its source
// text.
type word struct {
	val  string // the value after quote removal when lit, else the source text
	lit  bool
	text string // source text
}

// srcText returns the source text of n in src, "" when its positions do not
// fit (which the parser should never produce).
func srcText(src string, n syntax.Node) string {
	if n == nil {
		return ""
	}
	s, e := n.Pos(), n.End()
	if !s.IsValid() || !e.IsValid() {
		return ""
	}
	a, b := int(s.Offset()), int(e.Offset())
	if a < 0 || b > len(src) || a > b {
		return ""
	}
	return src[a:b]
}

func joinText(ws []word) string {
	if len(ws) == 1 {
		return ws[0].text
	}
	n := len(ws)
	for _, w := range ws {
		n += len(w.text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.text)
	}
	return b.String()
}

// byteSet is a set of bytes, looked up by index.
type byteSet [256]bool

// in reports whether s holds a byte of the set.
func (bs *byteSet) in(s string) bool {
	for i := 0; i < len(s); i++ {
		if bs[s[i]] {
			return true
		}
	}
	return false
}

// globChars are the characters that make an unquoted literal more than
// its text to bash: escapes, globs, braces, a tilde.
var globChars = byteSet{'\\': true, '*': true, '?': true, '[': true, '{': true, '~': true}

// convert turns a syntax word into a word: literal when it is made only of
// unquoted text, single-quoted text and double-quoted text without
// expansions, and nothing in it that bash would expand: no unquoted glob
// character, brace expansion, or ~ at the start or after = or :. The checks
// look at the whole word, across its quoted parts ({rm,"-rf",x} is three
// words to bash).
func convert(w *syntax.Word, src string) word {
	text := srcText(src, w)
	// Fast path: one unquoted literal without anything special.
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			if !globChars.in(l.Value) {
				return word{val: l.Value, lit: true, text: text}
			}
		}
	}
	var b strings.Builder
	// shape is the word as bash's expansions see it: unquoted characters
	// as written, each quoted or escaped stretch as one quotedMark.
	shape := make([]byte, 0, len(text))
	lit := true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			shape = unquoteLit(&b, shape, p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				lit = false // $'...' escapes: not decoded, judged not literal
			}
			b.WriteString(p.Value)
			shape = append(shape, quotedMark)
		case *syntax.DblQuoted:
			if p.Dollar {
				lit = false // $"...": translated by the locale
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					lit = false
					break
				}
				unquoteDouble(&b, l.Value, true)
			}
			shape = append(shape, quotedMark)
		default:
			lit = false
		}
		if !lit {
			break
		}
	}
	if !lit || expands(shape) {
		return word{val: text, lit: false, text: text}
	}
	return word{val: b.String(), lit: true, text: text}
}

// quotedMark stands for quoted or escaped text in a word's shape.
const quotedMark = 0

// unquoteLit writes the value of unquoted text v (removing backslash
// escapes) to b and appends its shape to shape.
func unquoteLit(b *strings.Builder, shape []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' {
			if i+1 < len(v) {
				i++
				if v[i] != '\n' {
					b.WriteByte(v[i])
					shape = append(shape, quotedMark)
				}
			}
			continue
		}
		b.WriteByte(c)
		shape = append(shape, c)
	}
	return shape
}

// expands reports whether bash would expand a word of this shape into
// something other than its text: a glob (* ? or [ with a later ]), a brace
// expansion (a { with a later } and a , or .. between them; more than bash
// expands, never less) or a tilde (at the start, or after = or :, as in
// assignment-like arguments).
func expands(shape []byte) bool {
	open, list := -1, false
	for i, c := range shape {
		switch c {
		case '*', '?':
			return true
		case '[':
			if bytes.IndexByte(shape[i+1:], ']') >= 0 {
				return true
			}
		case '~':
			if i == 0 || shape[i-1] == '=' || shape[i-1] == ':' {
				return true
			}
		case '{':
			if open < 0 {
				open = i
			}
		case ',':
			if open >= 0 {
				list = true
			}
		case '.':
			if open >= 0 && i+1 < len(shape) && shape[i+1] == '.' {
				list = true
			}
		case '}':
			if open >= 0 && list {
				return true
			}
		}
	}
	return false
}

// unquoteDouble writes the value of text inside double quotes (or of an
// unquoted here-document when dq is false): a backslash escapes only $ ` \
// newline, and " inside double quotes.
func unquoteDouble(b *strings.Builder, v string, dq bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			if n == '$' || n == '`' || n == '\\' || n == '\n' || (dq && n == '"') {
				i++
				if n != '\n' {
					b.WriteByte(n)
				}
				continue
			}
		}
		b.WriteByte(c)
	}
}

// hdocBody returns the literal body of a here-document and whether it is
// literal (quoted delimiter, or no expansions in the body).
func hdocBody(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", true
	}
	quoted := false
	if r.Word == nil {
		return "", false
	}
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				quoted = true
			}
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		if quoted {
			b.WriteString(l.Value)
		} else {
			unquoteDouble(&b, l.Value, false)
		}
	}
	return b.String(), true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Base returns the last element of a slash-separated program path
// ("/bin/rm" → "rm"); a name without a slash is returned as is.
func Base(p string) string {
	// A loop the compiler inlines: most names are short, and have no
	// slash, where a call to a vectorised search costs more than the
	// search.
	for _, c := range []byte(p) {
		if c == '/' {
			return base(p)
		}
	}
	return p
}

// base is Base of a path with a slash.
func base(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
