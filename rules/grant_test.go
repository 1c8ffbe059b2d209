package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/shell/shelltest"
	"github.com/wardenhq/warden/rules"
)

// prefixAttacks are scripts an agent could send after an operator allowed
// the exact prefix `git status` (or `ls`) for its run. Run by bash in a
// directory, each deletes its subdirectory victim or creates a file
// there; none may be covered by the prefixes.
var prefixAttacks = []string{
	"git status; rm -rf victim",
	"ls && rm -rf victim",
	"git status || rm -rf victim",
	"git status & rm -rf victim",
	"git status\nrm -rf victim",
	"git status | rm -rf victim",
	"rm -rf victim | git status",
	"git status $(rm -rf victim)",
	"git status `rm -rf victim`",
	"git status \"$(rm -rf victim)\"",
	"git status <<EOF\n$(rm -rf victim)\nEOF",
	"git status <<< \"$(rm -rf victim)\"",
	"git status > new",
	"git status >> new",
	"git status >| new",
	"git status &> new",
	"git status 2> new",
	">new git status",
	"git status 1>new 2>&1",
	"{ git status; } > new",
	"(git status) > new",
	"git status | tee new",
	"git status; > new",
	"git status; touch new",
	"X=$(rm -rf victim) git status",
	"git() { rm -rf victim; }; git status",
	"eval 'rm -rf victim'; git status",
	"git status; eval \"$(echo rm -rf victim)\"",
	"bash -c 'rm -rf victim'; git status",
	"git status -- $(rm -rf victim)",
	"./git status",
	"rm -rf victim",
	"git status\r; rm -rf victim",
	"for f in victim; do rm -rf $f; done; git status",
	"exec rm -rf victim",
	"git status; sh -c \"rm -rf victim\"",
}

// TestS4_PrefixRuleCoversOnlyItsPrefix: an exact prefix an operator
// allowed for a run covers only commands that start with it and do
// nothing else. Each attack is first run by bash to show it has its effect
// (the victim deleted, or a file made), then must not be covered; the
// scripts the prefix does cover, run by bash, leave everything as it was.
func TestS4_PrefixRuleCoversOnlyItsPrefix(t *testing.T) {
	prefixes := [][]string{{"git", "status"}, {"ls"}, {"rm", "-rf"}}
	attacks := append(slices.Clone(prefixAttacks), shelltest.Attacks...)
	for _, script := range attacks {
		t.Run(script, func(t *testing.T) {
			dir := t.TempDir()
			victim := shelltest.Victim(t, dir)
			if err := os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\nrm -rf victim\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			shelltest.Run(t, dir, script)
			if shelltest.Exists(victim) && !shelltest.Exists(filepath.Join(dir, "new")) {
				t.Fatalf("run by bash, %q neither deleted the victim nor made a file: not an attack", script)
			}
			if _, err := rules.CoveredByPrefixes(script, prefixes); err == nil {
				t.Errorf("%q is covered by the prefixes %q", script, prefixes)
			}
		})
	}
	covered := []string{
		"git status",
		"git status --short",
		"'git' \"status\" -s",
		"git status; git status -s",
		"git status && ls -la",
		"git status 2>&1",
		"git status | git status",
		"(git status)",
		"ls victim",
	}
	for _, script := range covered {
		t.Run("covers "+script, func(t *testing.T) {
			if _, err := rules.CoveredByPrefixes(script, prefixes); err != nil {
				t.Fatalf("%q: %v, want covered", script, err)
			}
			dir := t.TempDir()
			victim := shelltest.Victim(t, dir)
			shelltest.Run(t, dir, script)
			entries, _ := os.ReadDir(dir)
			if !shelltest.Exists(filepath.Join(victim, "keep")) || len(entries) != 1 {
				t.Errorf("%q changed the directory: %d entries", script, len(entries))
			}
		})
	}
	// Refused too, though their effect is not certain when bash runs them
	// (a process substitution runs in the background) or needs a program
	// the test cannot count on.
	for _, script := range []string{
		"git status >(rm -rf victim)", "ls <(rm -rf victim)", "git status *", "git status ~", "git status $HOME", "git status ${X:-x}",
		"env git status", "command git status", "nohup git status", "sudo git status", "time git status", "xargs git status",
		"git status <input", "git status 0<>new", "f() { :; }; git status", "alias git=ls; git status", "git status ((",
	} {
		if _, err := rules.CoveredByPrefixes(script, prefixes); err == nil {
			t.Errorf("%q is covered by the prefixes %q", script, prefixes)
		}
	}
	if _, err := rules.CoveredByPrefixes("git status", nil); err == nil {
		t.Error("no prefixes cover a script")
	}
}

// TestS4_PrefixesOffered: the prefixes an operator may allow from a call
// they approve are those of its one plain command, two words or more,
// never a bare shell or interpreter.
func TestS4_PrefixesOffered(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   string // prefixes joined by " | ", or "error"
	}{
		{"git status --short", "git status | git status --short"},
		{"git status", "git status"},
		{"ls", "ls"},
		{"make test", "make test"},
		{"python3 -m pytest tests", "python3 -m pytest | python3 -m pytest tests"},
		{"python3 -c 'print(1)'", "python3 -c print(1)"},
		{"bash", "error"},
		{"bash -x", "error"},
		{"python3", "error"},
		{"git status; ls", "error"},
		{"git status > out", "error"},
		{"git status $X", "error"},
		{"rm -rf build", "error"},
		{"sudo git status", "error"},
		{"bash -c 'git status'", "error"},
		{"FOO=1 make", "error"},
		{"", "error"},
		{"git status (", "error"},
	} {
		ps, err := rules.PrefixesOf(tc.script)
		got := "error"
		if err == nil {
			var parts []string
			for _, p := range ps {
				parts = append(parts, strings.Join(p, " "))
			}
			got = strings.Join(parts, " | ")
		}
		if got != tc.want {
			t.Errorf("PrefixesOf(%q) = %q (%v), want %q", tc.script, got, err, tc.want)
		}
		for _, p := range ps {
			if _, err := rules.CoveredByPrefixes(tc.script, [][]string{p}); err != nil {
				t.Errorf("the call %q is not covered by its own prefix %q: %v", tc.script, p, err)
			}
		}
	}
}

// FuzzCoveredByPrefixes: whatever the script, CoveredByPrefixes never
// panics, and a script it covers is one the exec rules find fully
// analysed and not dangerous, whose every command starts with a prefix.
func FuzzCoveredByPrefixes(f *testing.F) {
	for _, s := range append(slices.Clone(prefixAttacks), "git status", "git status -s; ls", "ls | ls -l", "git status 2>&1") {
		f.Add(s)
	}
	prefixes := [][]string{{"git", "status"}, {"ls"}}
	f.Fuzz(func(t *testing.T, script string) {
		if _, err := rules.CoveredByPrefixes(script, prefixes); err != nil {
			return
		}
		res := rules.Evaluate(nil, script)
		if res.Opaque || len(res.Dangerous) > 0 || res.Err != nil {
			t.Fatalf("%q is covered, but the exec rules find it opaque or dangerous: %+v", script, res)
		}
		for _, c := range res.Commands {
			if len(c.Args) == 0 || !(c.Args[0] == "ls" || len(c.Args) > 1 && c.Args[0] == "git" && c.Args[1] == "status") {
				t.Fatalf("%q is covered, but runs %q", script, c.Args)
			}
			if len(c.Redirects)+len(c.Assigns)+len(c.Inputs) > 0 || c.Doc != "" || !c.AllLiteral() {
				t.Fatalf("%q is covered, but a command redirects, assigns or is not literal: %+v", script, c)
			}
		}
	})
}
