package rules

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// Broad returns a warning for each allow rule that allows far more than it
// seems: one whose pattern names a shell or an interpreter (bash, sh,
// python3, node, perl, …) and nothing after it but options. Such a program
// runs whatever code it is given — `python3 -c '…'`, `bash -c '…'`, any
// script file — so the rule allows every command it could run, the
// dangerous ones included, and removes the boundary that the sandbox and
// auto-review keep (Codex's documentation warns of `["python"]` alike).
// Each warning reads "SOURCE: warning: …" and suggests an exact prefix.
// A nil *Set has none.
func (s *Set) Broad() []string {
	var out []string
	for _, r := range s.all() {
		if r.Decision != Allow || !onlyOptions(r.Pattern[1:]) {
			continue
		}
		for _, tok := range r.Pattern[0] {
			if !runsAnyCode(shell.Base(tok)) {
				continue
			}
			src := r.Source
			if src == "" {
				src = "rule"
			}
			out = append(out, fmt.Sprintf("%s: warning: the allow rule %s allows every %s command: %s runs whatever code it is given (%s), "+
				"so this rule allows far more than it seems, dangerous commands included; allow an exact prefix instead, such as %s",
				src, r, tok, tok, codeExample(shell.Base(tok)), exactExample(shell.Base(tok))))
		}
	}
	return out
}

// onlyOptions reports whether every alternative of every position is an
// option (a word starting with "-"): a pattern that names no script,
// module or subcommand after its program.
func onlyOptions(rest [][]string) bool {
	for _, alts := range rest {
		for _, a := range alts {
			if !strings.HasPrefix(a, "-") {
				return false
			}
		}
	}
	return true
}

// runsAnyCode reports whether the program named name (a base name) is a
// shell or an interpreter: it runs code from its arguments, a file or its
// input.
func runsAnyCode(name string) bool {
	return shell.IsShell(name) || interpreters[name] || command.IsPython(name) || scriptInterpreters[name]
}

// codeExample shows how the program named name runs code its words carry.
func codeExample(name string) string {
	switch {
	case shell.IsShell(name):
		return name + " -c '…', any script file, a script piped to it"
	case command.IsPython(name):
		return name + " -c '…', any script or module"
	}
	return name + " -e '…' or any script file"
}

// exactExample is a narrow prefix for the program named name.
func exactExample(name string) string {
	switch {
	case shell.IsShell(name):
		return fmt.Sprintf(`["%s", "scripts/test.sh"]`, name)
	case command.IsPython(name):
		return fmt.Sprintf(`["%s", "-m", "pytest"]`, name)
	}
	return fmt.Sprintf(`["%s", "scripts/build"]`, name)
}
