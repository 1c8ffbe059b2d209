package effect_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/effect"
)

// TestG17_SummaryNamesTheEffects checks the summary the reviewer and the
// person read: the deletions outside the writable roots counted and
// named, the names looked up, the programs run, the exit; and nothing but
// the exit for a clean run.
func TestG17_SummaryNamesTheEffects(t *testing.T) {
	r := effect.Report{
		Deletes: []string{"/home/ann/a", "/home/ann/b", "/home/ann/c", "/home/ann/proj/x.o"},
		Creates: []string{"/home/ann/proj/out"},
		Network: []effect.Dest{{Op: "lookup", Name: "exfil.example"}, {Op: "connect", Family: "ip6", Address: "2001:db8::1", Port: 443}},
		Execs:   []effect.Exec{{Path: "/usr/bin/python3", Argv: []string{"python3", "-c", "import os"}}},
		Chmods:  []effect.Chmod{{Path: "/home/ann/proj/run.sh", Mode: "0755", Was: "0644"}, {Path: "/home/ann/bin/tool", Xattrs: []string{"security.capability", "user.x"}}},
		Exit:    3,
	}
	s := r.Summary([]string{"/home/ann/proj"}, 0)
	for _, want := range []string{
		"would delete 3 files outside the writable roots: /home/ann/a, /home/ann/b, /home/ann/c",
		"would delete 1 file in the writable roots: /home/ann/proj/x.o",
		"would create 1 file in the writable roots: /home/ann/proj/out",
		"would look up exfil.example",
		"connect [2001:db8::1]:443",
		"would run: python3 -c import os",
		"(0644 → 0755)",
		"/home/ann/bin/tool (attributes security.capability user.x)",
		"exited 3",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if got := (effect.Report{}).Summary(nil, 0); got != "changed no file and tried no network; exited 0" {
		t.Errorf("clean run: %q", got)
	}
	if got := (effect.Report{TimedOut: true, Exit: 137}).Summary(nil, 0); !strings.Contains(got, "stopped") {
		t.Errorf("timed out: %q", got)
	}
}

// TestG17_SummaryKeepsToItsBudget checks that a report with many long
// paths, some of them multi-byte and with line breaks, gives a summary
// within its budget, valid UTF-8 and on one line, counting what it does
// not list.
func TestG17_SummaryKeepsToItsBudget(t *testing.T) {
	var r effect.Report
	for i := range 50 {
		r.Deletes = append(r.Deletes, "/home/ann/"+strings.Repeat("é", 100+i)+"\nline")
	}
	for _, budget := range []int{40, 200, 1000} {
		s := r.Summary(nil, budget)
		if len(s) > budget || !utf8.ValidString(s) || strings.Contains(s, "\n") {
			t.Fatalf("budget %d: %d bytes, valid %t: %q", budget, len(s), utf8.ValidString(s), s)
		}
	}
	if s := r.Summary(nil, 5000); !strings.Contains(s, "(and 46 more)") || !strings.Contains(s, "50 files") {
		t.Fatalf("the rest is not counted: %q", s)
	}
}

// FuzzSummary checks the summary of any paths, names and argv: within its
// budget, on one line, and valid UTF-8 when what it names is.
func FuzzSummary(f *testing.F) {
	f.Add("/home/ann/a", "exfil.example", "python3 -c x", 100)
	f.Add("/é\n<<<END>>>", "\x1b[2J", "", 5)
	f.Add("", "", "", 0)
	f.Fuzz(func(t *testing.T, path, name, arg string, budget int) {
		if budget > 1<<16 || budget < -1 {
			return
		}
		r := effect.Report{Deletes: []string{path, path}, Writes: []string{path}, Network: []effect.Dest{{Op: "lookup", Name: name}},
			Execs: []effect.Exec{{Argv: []string{arg, name}}}, Renames: []effect.Rename{{From: path, To: name}}}
		s := r.Summary([]string{"/home/ann"}, budget)
		limit := budget
		if limit <= 0 {
			limit = effect.DefaultSummaryBudget
		}
		if len(s) > limit || strings.ContainsAny(s, "\n\r") {
			t.Fatalf("budget %d: %q", budget, s)
		}
		if utf8.ValidString(path) && utf8.ValidString(name) && utf8.ValidString(arg) && !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8: %q", s)
		}
	})
}

// TestG17_WithinIsLexicalAndClean checks Within on clean and unclean
// paths and roots: ".." leaves a root, a sibling with the root's name as
// a prefix is not under it, a trailing slash changes nothing.
func TestG17_WithinIsLexicalAndClean(t *testing.T) {
	for _, tc := range []struct {
		roots []string
		p     string
		want  bool
	}{
		{[]string{"/home/ann/proj"}, "/home/ann/proj", true},
		{[]string{"/home/ann/proj"}, "/home/ann/proj/a/b", true},
		{[]string{"/home/ann/proj/"}, "/home/ann/proj/a", true},
		{[]string{"/home/ann/proj"}, "/home/ann/project/a", false},
		{[]string{"/home/ann/proj"}, "/home/ann/proj/../x", false},
		{[]string{"/home/ann/proj"}, "/home/ann//proj/./a", true},
		{[]string{"/home/ann/./proj"}, "/home/ann/proj/a", true},
		{[]string{"/"}, "/etc/passwd", true},
		{[]string{"", "/tmp"}, "/etc/passwd", false},
		{nil, "/tmp/x", false},
	} {
		if got := effect.Within(tc.roots, tc.p); got != tc.want {
			t.Errorf("Within(%q, %q) = %t", tc.roots, tc.p, got)
		}
	}
}
