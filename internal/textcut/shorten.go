package textcut

import "strings"

// Shorten returns s with its runs of white space folded into single
// spaces, cut to n bytes with a final "…" when it is longer: a command or
// a line as a message quotes it.
func Shorten(s string, n int) string {
	if !spacedOnce(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// spacedOnce reports whether s is ASCII text whose words are already
// separated by single spaces, with none around them: what
// strings.Join(strings.Fields(s), " ") would return unchanged.
func spacedOnce(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c > ' ' && c < 0x80 {
			continue
		} else if c != ' ' || s[i+1] == ' ' {
			// Other white space, a run of spaces or a non-ASCII byte.
			return false
		}
	}
	return true
}
