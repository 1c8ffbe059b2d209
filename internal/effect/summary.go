package effect

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultSummaryBudget bounds a summary in bytes when its caller gives no
// budget: enough for a few clauses of a few paths each.
const DefaultSummaryBudget = 1200

// maxListed is how many paths, programs or destinations one clause of a
// summary names; the rest are counted.
const maxListed = 4

// maxItem bounds one path, argv or destination in a summary.
const maxItem = 160

// Summary returns a compact account of what r observed, for the automatic
// reviewer and the person (SPEC G17): one clause per kind of effect, the
// ones outside the writable roots first, such as "would delete 3 files
// outside the writable roots: /home/u/a, /home/u/b, /home/u/c; would look
// up exfil.example; would run: python3 -c …; exited 0". A path under one
// of roots (or one of them) is "in the writable roots". The output is not
// in it: callers show it apart, as untrusted data. The summary is at most
// budget bytes (DefaultSummaryBudget when budget <= 0), cut at its end
// with "…". Paths, programs and names are the command's own, unescaped:
// whoever shows the summary escapes it as it escapes the command.
func (r Report) Summary(roots []string, budget int) string {
	if budget <= 0 {
		budget = DefaultSummaryBudget
	}
	var clauses []string
	add := func(verb string, paths []string) {
		var out, in []string
		for _, p := range paths {
			if Within(roots, p) {
				in = append(in, p)
			} else {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			clauses = append(clauses, fmt.Sprintf("would %s %s outside the writable roots: %s", verb, count(len(out), "file"), list(out)))
		}
		if len(in) > 0 {
			clauses = append(clauses, fmt.Sprintf("would %s %s in the writable roots: %s", verb, count(len(in), "file"), list(in)))
		}
	}
	add("delete", r.Deletes)
	add("change", r.Writes)
	add("create", r.Creates)
	if len(r.Renames) > 0 {
		items := make([]string, len(r.Renames))
		for i, m := range r.Renames {
			items[i] = m.From + " → " + m.To
		}
		clauses = append(clauses, "would rename "+list(items))
	}
	if len(r.Chmods) > 0 {
		items := make([]string, len(r.Chmods))
		for i, c := range r.Chmods {
			items[i] = c.Path + chmodNote(c)
		}
		clauses = append(clauses, "would change the mode, owner or attributes of "+list(items))
	}
	if len(r.Reads) > 0 {
		clauses = append(clauses, "would open the credential store "+list(r.Reads))
	}
	var lookups, connects []string
	for _, d := range r.Network {
		if d.Op == "lookup" {
			lookups = append(lookups, d.Name)
		} else {
			connects = append(connects, d.Op+" "+d.Target())
		}
	}
	if len(lookups) > 0 {
		clauses = append(clauses, "would look up "+list(lookups))
	}
	if len(connects) > 0 {
		clauses = append(clauses, "would try the network: "+list(connects))
	}
	if len(r.Execs) > 0 {
		items := make([]string, len(r.Execs))
		for i, e := range r.Execs {
			items[i] = strings.Join(e.Argv, " ")
			if len(e.Argv) == 0 {
				items[i] = e.Path
			}
		}
		clauses = append(clauses, "would run: "+list(items))
	}
	if r.Empty() {
		clauses = append(clauses, "changed no file and tried no network")
	}
	switch {
	case r.TimedOut:
		clauses = append(clauses, "was still running at the end of its budget and was stopped")
	default:
		clauses = append(clauses, "exited "+strconv.Itoa(r.Exit))
	}
	return cut(strings.Join(clauses, "; "), budget)
}

// Empty reports whether r observed no effect at all: no file changed,
// created, deleted, renamed or changed in metadata, no credential store
// opened and no network tried (programs started do not count).
func (r Report) Empty() bool {
	return len(r.Writes) == 0 && len(r.Creates) == 0 && len(r.Deletes) == 0 && len(r.Renames) == 0 &&
		len(r.Chmods) == 0 && len(r.Reads) == 0 && len(r.Network) == 0
}

// Target renders where d went: the name looked up, a socket path, or an
// address and port.
func (d Dest) Target() string {
	switch {
	case d.Op == "lookup" || (d.Address == "" && d.Name != ""):
		return d.Name
	case d.Family == "unix" || d.Port == 0:
		return d.Address
	case strings.Contains(d.Address, ":"):
		return "[" + d.Address + "]:" + strconv.Itoa(d.Port)
	}
	return d.Address + ":" + strconv.Itoa(d.Port)
}

// Within reports whether the absolute path p is one of roots or under one
// of them, lexically.
func Within(roots []string, p string) bool {
	p = clean(p)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if r = clean(r); r == "/" || strings.HasPrefix(p, r) && (len(p) == len(r) || p[len(r)] == '/') {
			return true
		}
	}
	return false
}

// clean returns filepath.Clean(p), without its cost for a path that is
// clean already (most are).
func clean(p string) string {
	if len(p) > 1 && (p[len(p)-1] == '/' || strings.Contains(p, "/.") || strings.Contains(p, "//")) || p == "" || p[0] != '/' {
		return filepath.Clean(p)
	}
	return p
}

// chmodNote renders a metadata change: " (0644 → 0755)", an owner change,
// the extended attributes set.
func chmodNote(c Chmod) string {
	var parts []string
	switch {
	case c.Mode != "" && c.Was != "":
		parts = append(parts, c.Was+" → "+c.Mode)
	case c.Mode != "":
		parts = append(parts, "mode "+c.Mode)
	}
	if c.UID != nil {
		parts = append(parts, "owner "+strconv.Itoa(*c.UID))
	}
	if c.GID != nil {
		parts = append(parts, "group "+strconv.Itoa(*c.GID))
	}
	if len(c.Xattrs) > 0 {
		parts = append(parts, "attributes "+strings.Join(c.Xattrs, " "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// count renders n things: "1 file", "3 files".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// list renders the first maxListed items, each cut, and how many more.
func list(items []string) string {
	n := min(len(items), maxListed)
	shown := make([]string, n)
	for i := range n {
		shown[i] = cut(oneLine(items[i]), maxItem)
	}
	s := strings.Join(shown, ", ")
	if more := len(items) - n; more > 0 {
		s += fmt.Sprintf(" (and %d more)", more)
	}
	return s
}

// oneLine folds line breaks and tabs into spaces, so that an item stays on
// its clause's line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)
}

// cut returns s cut to n bytes at a character boundary, ending in "…"
// when it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	mark := "…"
	if n < len(mark) {
		mark = ""
	}
	end := max(n-len(mark), 0)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + mark
}
