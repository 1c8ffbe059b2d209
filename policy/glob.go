package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// glob is a compiled fnmatch-style pattern: '*' matches any run of
// characters (newlines included), '?' one character, '[...]' one character
// of a set ('[!...]' negated). An unclosed '[' is literal.
type glob struct {
	src    string
	prefix string // literal prefix before the first metacharacter
	// kind of fast path
	exact     bool // no metacharacters: equality
	prefixAll bool // literal prefix followed by a lone trailing '*'
	any       bool // the pattern is "*"
	toks      []gtok
}

type gtokKind uint8

const (
	gLit gtokKind = iota
	gStar
	gOne
	gClass
)

type gtok struct {
	kind   gtokKind
	lit    string
	neg    bool
	ranges []rune // pairs lo, hi
}

func compileGlob(src string) (glob, error) {
	g := glob{src: src}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			g.toks = append(g.toks, gtok{kind: gLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case '*':
			flush()
			if n := len(g.toks); n == 0 || g.toks[n-1].kind != gStar {
				g.toks = append(g.toks, gtok{kind: gStar})
			}
			i++
		case '?':
			flush()
			g.toks = append(g.toks, gtok{kind: gOne})
			i++
		case '[':
			t, n, ok := parseClass(src[i:])
			if !ok {
				lit.WriteByte(c)
				i++
				continue
			}
			flush()
			g.toks = append(g.toks, t)
			i += n
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	switch {
	case len(g.toks) == 0:
		g.exact = true
	case len(g.toks) == 1 && g.toks[0].kind == gLit:
		g.exact, g.prefix = true, g.toks[0].lit
	case len(g.toks) == 1 && g.toks[0].kind == gStar:
		g.any = true
	case len(g.toks) == 2 && g.toks[0].kind == gLit && g.toks[1].kind == gStar:
		g.prefixAll, g.prefix = true, g.toks[0].lit
	default:
		if g.toks[0].kind == gLit {
			g.prefix = g.toks[0].lit
		}
	}
	if !utf8.ValidString(src) {
		return g, fmt.Errorf("pattern %q is not valid UTF-8", src)
	}
	return g, nil
}

// parseClass parses a bracket expression at the start of s. It returns the
// token, its length in bytes and whether it was well formed.
func parseClass(s string) (gtok, int, bool) {
	t := gtok{kind: gClass}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		t.neg = true
		i++
	}
	first := true
	for i < len(s) {
		if s[i] == ']' && !first {
			return t, i + 1, true
		}
		first = false
		lo, n := utf8.DecodeRuneInString(s[i:])
		i += n
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n = utf8.DecodeRuneInString(s[i+1:])
			i += 1 + n
		}
		t.ranges = append(t.ranges, lo, hi)
	}
	return gtok{}, 0, false
}

func (t *gtok) matchRune(r rune) bool {
	in := false
	for i := 0; i < len(t.ranges); i += 2 {
		if t.ranges[i] <= r && r <= t.ranges[i+1] {
			in = true
			break
		}
	}
	return in != t.neg
}

// match reports whether the whole of s matches g.
func (g *glob) match(s string) bool {
	switch {
	case g.any:
		return true
	case g.exact:
		return s == g.prefix
	case g.prefixAll:
		return strings.HasPrefix(s, g.prefix)
	}
	if !strings.HasPrefix(s, g.prefix) {
		return false
	}
	return matchToks(g.toks, s)
}

// matchToks matches with single-star backtracking: on failure, the most
// recent star absorbs one more character. Linear in practice, O(n·m) at
// worst, never exponential.
func matchToks(toks []gtok, s string) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case gStar:
				starTi, starSi = ti, si
				ti++
				// A star followed by a literal skips straight to its next occurrence.
				if ti < len(toks) && toks[ti].kind == gLit {
					j := strings.Index(s[si:], toks[ti].lit)
					if j < 0 {
						return false
					}
					starSi = si + j
					si = starSi
				}
				continue
			case gLit:
				if strings.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			case gOne:
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ti++
					continue
				}
			case gClass:
				if si < len(s) {
					r, n := utf8.DecodeRuneInString(s[si:])
					if t.matchRune(r) {
						si += n
						ti++
						continue
					}
				}
			}
		} else if si == len(s) {
			return true
		} else if ti > 0 && toks[ti-1].kind == gStar {
			return true
		}
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starSi:])
		starSi += n
		ti, si = starTi+1, starSi
		if ti < len(toks) && toks[ti].kind == gLit {
			j := strings.Index(s[si:], toks[ti].lit)
			if j < 0 {
				return false
			}
			si += j
			starSi = si
		}
	}
}
