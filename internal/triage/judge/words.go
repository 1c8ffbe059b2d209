package judge

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/secret"
)

// Variables: the literal values a script assigns are substituted into the
// words that use them, so that `f=/etc/shadow; cat "$f"` is judged as
// `cat /etc/shadow`. A variable assigned more than one value, or a value
// that is not literal, is left unresolved; every literal value assigned is
// also kept in mentions, so that a script naming a secret file somewhere
// can be judged by it.

// collectVars records the assignments of the script.
func (s *Script) collectVars(cmds []shell.Command) {
	for i := range cmds {
		c := &cmds[i]
		if len(c.Args) == 0 {
			for _, a := range c.Assigns {
				s.assign(a)
			}
			continue
		}
		switch shell.Base(c.Args[0]) {
		case "export", "local", "declare", "typeset", "readonly":
			for j := 1; j < len(c.Args); j++ {
				if strings.HasPrefix(c.Args[j], "-") {
					continue
				}
				if c.Literal[j] {
					s.assignValue(c.Args[j], true)
				} else {
					s.assign(c.Args[j])
				}
			}
		case "read", "mapfile", "readarray":
			// read NAME: the value comes from input.
			for j := 1; j < len(c.Args); j++ {
				if !strings.HasPrefix(c.Args[j], "-") && IsName(c.Args[j]) && !strings.Contains(s.Vars[c.Args[j]], "\x01") {
					s.unknownVar(c.Args[j])
				}
			}
		}
	}
}

// assign records NAME=VALUE given as source text.
func (s *Script) assign(src string) {
	name, val, ok := strings.Cut(src, "=")
	name = strings.TrimSuffix(name, "+")
	if !ok || !IsName(name) {
		return
	}
	v, lit := s.expand(val)
	s.setVar(name, v, lit)
	if !lit {
		if vs := s.SecretRefs(val); len(vs) > 0 {
			// T=$GITHUB_TOKEN: $T holds the secret too.
			if s.secretAlias == nil {
				s.secretAlias = map[string]string{}
			}
			s.secretAlias[name] = vs[0]
		}
	}
}

// SecretRefs returns the secrets a word's source text references: variables
// named like secrets, and variables the script assigned from one.
func (s *Script) SecretRefs(text string) []string {
	vs := secret.Vars(text)
	if len(s.secretAlias) == 0 || strings.IndexByte(text, '$') < 0 {
		return vs
	}
	for name := range secret.VarRefs(text) {
		if src, ok := s.secretAlias[name]; ok {
			vs = append(vs, name+" (from $"+src+")")
		}
	}
	return vs
}

// assignValue records NAME=VALUE given as a literal word.
func (s *Script) assignValue(w string, lit bool) {
	name, val, ok := strings.Cut(w, "=")
	if !ok || !IsName(name) {
		return
	}
	s.setVar(name, val, lit)
}

func (s *Script) setVar(name, val string, lit bool) {
	if s.Vars == nil {
		s.Vars = map[string]string{}
	}
	if lit && val != "" && !strings.Contains(val, "\x01") {
		s.Mentions = append(s.Mentions, val)
	}
	if prev, seen := s.Vars[name]; seen {
		if !lit || prev != val {
			s.Vars[name] = unresolved
		}
		return
	}
	if !lit {
		val = unresolved
	}
	s.Vars[name] = val
}

func (s *Script) unknownVar(name string) {
	if s.Vars == nil {
		s.Vars = map[string]string{}
	}
	s.Vars[name] = unresolved
}

// unresolved marks a variable whose value is not known.
const unresolved = "\x00"

// IsName reports whether s is a shell variable name.
func IsName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !secret.IsNameByte(s[i], i > 0) {
			return false
		}
	}
	return true
}

// expand removes the quotes of a word's source text and substitutes the
// variables whose value is known ($HOME becomes ~). It reports whether the
// result is fully known; unknown parts ($X, $(…), `…`) are kept as written.
func (s *Script) expand(text string) (string, bool) {
	if strings.IndexAny(text, "'\"\\$`") < 0 {
		return text, true
	}
	var b strings.Builder
	b.Grow(len(text))
	ok := true
	dq := false
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'' && !dq:
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				b.WriteString(text[i+1:])
				i = len(text)
				continue
			}
			b.WriteString(text[i+1 : i+1+j])
			i += j + 2
		case c == '"':
			dq = !dq
			i++
		case c == '\\' && i+1 < len(text):
			b.WriteByte(text[i+1])
			i += 2
		case c == '`':
			j := strings.IndexByte(text[i+1:], '`')
			end := len(text)
			if j >= 0 {
				end = i + 2 + j
			}
			b.WriteString(text[i:end])
			ok = false
			i = end
		case c == '$':
			n, val, known := s.dollar(text[i:])
			b.WriteString(val)
			ok = ok && known
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), ok
}

// dollar reads the expansion at the start of t ("$NAME", "${NAME}",
// "$(…)", "$((…))", "$1", …): its length, its value (or its text when
// unknown) and whether the value is known.
func (s *Script) dollar(t string) (int, string, bool) {
	if len(t) < 2 {
		return len(t), t, true
	}
	switch c := t[1]; {
	case c == '(':
		n := matchParen(t[1:]) + 1
		return n, t[:n], false
	case c == '{':
		j := strings.IndexByte(t, '}')
		if j < 0 {
			return len(t), t, false
		}
		name := t[2:j]
		if IsName(name) {
			if v, ok := s.lookup(name); ok {
				return j + 1, v, true
			}
		}
		return j + 1, t[:j+1], false
	case c == '\'':
		// $'…': ANSI-C quoting; kept as text.
		j := strings.IndexByte(t[2:], '\'')
		if j < 0 {
			return len(t), t, false
		}
		return j + 3, t[2 : j+2], false
	case secret.IsNameByte(c, false):
		k := 2
		for k < len(t) && secret.IsNameByte(t[k], true) {
			k++
		}
		if v, ok := s.lookup(t[1:k]); ok {
			return k, v, true
		}
		return k, t[:k], false
	case c >= '0' && c <= '9' || c == '@' || c == '*':
		if s.positional != "" && s.positional != "\x00" {
			return 2, s.positional + "/\x01", false
		}
		return 2, t[:2], false
	default:
		return 2, t[:2], false
	}
}

func (s *Script) lookup(name string) (string, bool) {
	switch name {
	case "HOME":
		return "~", true
	case "PWD":
		if s.Cwd != "" {
			return s.Cwd, true
		}
		return "", false
	}
	v, ok := s.Vars[name]
	if !ok || v == unresolved {
		return "", false
	}
	return v, true
}

// matchParen returns the index just past the parenthesis matching the one
// t starts with (or len(t)).
func matchParen(t string) int {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(t)
}
