package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/vocab"
)

// securityFile returns the word of path that says the file holds security
// policy or access rules (sudoers, pam.d, a firewall's rules, a network or
// IAM policy, sshd_config…), "" when none does. Whether an edit of such a
// file weakens what it guards depends on what it means, which the first
// pass does not judge: it passes every one on.
func (k *Knowledge) securityFile(path string) string {
	w := k.list("security_file_words")
	for _, part := range strings.Split(strings.ToLower(path), "/") {
		if w[part] {
			return part
		}
		for _, x := range argument.Words(part) {
			if w[x] {
				return x
			}
		}
	}
	return ""
}

// securityLine returns a line that the edit from old to text adds or
// removes and whose words are about security (privileges, access,
// credentials, encryption, exposure, auditing…), "" when there is none.
// Commenting a line out removes it. It is asked of configuration files
// only, after the settings the first pass can judge were judged.
func (k *Knowledge) securityLine(text, old string) string {
	w := k.list("security_line_words")
	before := lineSet(old)
	after := lineSet(text)
	afterOn := map[string]string{} // keys the new text sets to protect: their lines
	for _, st := range k.settings(text) {
		if st.on {
			afterOn[st.key] = st.line
		}
	}
	check := func(lines []string, other map[string]bool, added bool) string {
		for _, l := range lines {
			if other[l] || !hasWordIn(l, w) || k.notAboutSecurity(l) || k.knownBetter(l, added, afterOn) {
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

// hasWordIn reports whether a word of line is in w.
func hasWordIn(line string, w map[string]bool) bool {
	for _, x := range argument.Words(line) {
		if w[x] {
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
func (k *Knowledge) knownBetter(line string, added bool, afterOn map[string]string) bool {
	sts := k.settings(line)
	if len(sts) == 0 {
		return !added && k.removesProtection(line, "") != ""
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
func (k *Knowledge) notAboutSecurity(line string) bool {
	i := strings.IndexAny(line, ":=")
	if i <= 0 {
		return false
	}
	un := k.list("unprotective_key_words")
	for _, x := range argument.Words(line[:i]) {
		if un[x] {
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

// inPlaceConfigEdit judges an in-place edit (sed -i, perl -pi) of files
// by its expressions: for a configuration or security policy file, an
// expression not known before the command runs, one that deletes lines,
// or one about security that removes no protection the first pass can
// name is passed on (a protection removed is judged where the text is
// written).
func (s *sh) inPlaceConfigEdit(c *cmd, exprs, files []string) {
	config := false
	for _, f := range files {
		if f != "" && (configFile(f) || s.v.k.securityFile(f) != "") {
			config = true
			break
		}
	}
	if !config {
		return
	}
	unknown := false
	for i := 1; i < len(c.args) && i < len(c.known); i++ {
		if !c.known[i] {
			unknown = true
		}
	}
	w := s.v.k.list("security_line_words")
	for _, e := range exprs {
		switch {
		case unknown || strings.ContainsAny(e, "\x00\x01"):
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` edits a configuration file with an expression that is not known before it runs")
			return
		case sedDeletes(e):
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` deletes lines of a configuration file")
			return
		case hasWordIn(e, w) || s.v.k.securityKeyIn(e):
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes security settings of a configuration file with an expression the first pass does not judge")
			return
		}
	}
}

// securityKeyIn reports whether a word of text names a protection as a
// configuration key does (prevent_destroy, skip_final_snapshot).
func (k *Knowledge) securityKeyIn(text string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(f) > 3 && k.securityKey(f) {
			return true
		}
	}
	return false
}

// sedDeletes reports whether a sed script has a d (delete) command.
func sedDeletes(script string) bool {
	for _, part := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' }) {
		p := strings.TrimSpace(part)
		if strings.HasSuffix(p, "d") && (strings.HasSuffix(p, "/d") || strings.HasSuffix(p, "}d") || strings.TrimLeft(p, "0123456789,$") == "d") {
			return true
		}
	}
	return false
}
