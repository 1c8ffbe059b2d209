package protection

import (
	"strings"

	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/wordset"
)

// SecurityFile returns the word of path that says the file holds security
// policy or access rules (sudoers, pam.d, a firewall's rules, a network or
// IAM policy, sshd_config…), "" when none does. Whether an edit of such a
// file weakens what it guards depends on what it means, which the first
// pass does not judge: it passes every one on.
func SecurityFile(k Lists, path string) string {
	w := k.List("security_file_words")
	for _, part := range strings.Split(strings.ToLower(path), "/") {
		if w.Has(part) {
			return part
		}
		for _, x := range argument.Words(part) {
			if w.Has(x) {
				return x
			}
		}
	}
	return ""
}

// SecurityLine returns a line that the edit from old to text adds or
// removes and whose words are about security (privileges, access,
// credentials, encryption, exposure, auditing…), "" when there is none.
// Commenting a line out removes it. It is asked of configuration files
// only, after the settings the first pass can judge were judged.
func SecurityLine(k Lists, text, old string) string {
	w := k.List("security_line_words")
	before := lineSet(old)
	after := lineSet(text)
	afterOn := map[string]string{} // keys the new text sets to protect: their lines
	for _, st := range settings(k, text) {
		if st.on {
			afterOn[st.key] = st.line
		}
	}
	check := func(lines []string, other map[string]bool, added bool) string {
		for _, l := range lines {
			if other[l] || !HasWordIn(l, w) || notAboutSecurity(k, l) || knownBetter(k, l, added, afterOn) {
				continue
			}
			return textcut.Shorten(l, 80)
		}
		return ""
	}
	if l := check(lines(text), before, true); l != "" {
		return l
	}
	return check(lines(old), after, false)
}

// HasWordIn reports whether a word of line is in w.
func HasWordIn(line string, w *wordset.Set) bool {
	for _, x := range argument.Words(line) {
		if w.Has(x) {
			return true
		}
	}
	return false
}

// knownBetter reports whether the first pass knows a changed line to
// protect: one added that only sets protections on; one removed that set
// one off, or whose protections the new text sets on again (afterOn: a
// retention raised, another encryption key) without lowering a count
// (backups kept 3,650 days, now 1).
func knownBetter(k Lists, line string, added bool, afterOn map[string]string) bool {
	sts := settings(k, line)
	if len(sts) == 0 {
		return !added && RemovesProtection(k, line, "") != ""
	}
	for _, st := range sts {
		switch {
		case added && st.on, !added && st.off:
		case !added && st.on && afterOn[st.key] != "" && !lowered(st.line, afterOn[st.key]):
		default:
			return false
		}
	}
	return true
}

// notAboutSecurity reports whether line assigns a key whose words say
// debugging or output (debug_logging: false), not a protection.
func notAboutSecurity(k Lists, line string) bool {
	i := strings.IndexAny(line, ":=")
	if i <= 0 {
		return false
	}
	un := k.List("unprotective_key_words")
	for _, x := range argument.Words(line[:i]) {
		if un.Has(x) {
			return true
		}
	}
	return false
}

// lines returns the non-blank lines of text, trimmed, at most 2,000.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "+-")); l != "" {
			out = append(out, l)
			if len(out) == 2000 {
				break
			}
		}
	}
	return out
}

// lineSet is lines as a set.
func lineSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lines(text) {
		m[l] = true
	}
	return m
}

// lowered reports whether the number that ends the setting now is lower
// than the one that ended it before.
func lowered(before, now string) bool {
	b, okb := trailingNumber(before)
	n, okn := trailingNumber(now)
	return okb && okn && n < b
}

// trailingNumber returns the integer a setting's line ends with.
func trailingNumber(line string) (int, bool) {
	line = strings.TrimRight(line, " \t;,\"'}")
	i := len(line)
	for i > 0 && line[i-1] >= '0' && line[i-1] <= '9' {
		i--
	}
	if i == len(line) || len(line)-i > 9 {
		return 0, false
	}
	n := 0
	for _, d := range line[i:] {
		n = n*10 + int(d-'0')
	}
	return n, true
}

// SecurityKeyIn reports whether a word of text names a protection as a
// configuration key does (prevent_destroy, skip_final_snapshot).
func SecurityKeyIn(k Lists, text string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(f) > 3 && securityKey(k, f) {
			return true
		}
	}
	return false
}
