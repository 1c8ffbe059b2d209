package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
)

// This file holds the exact prefixes an operator allows for one run when
// approving a call ("allow this exact prefix for this run", issue 21 item
// 4): a later shell call of that run runs without asking only when every
// simple command it runs starts with an allowed prefix, word for word, and
// the script does nothing else — no other program, no redirection, no
// substitution, no assignment, no wrapper, no function or alias, nothing
// the parser cannot see, nothing the danger detector flags.

// minPrefixWords is the fewest words an offered prefix has when the
// command has that many: a bare program (["git"]) allows every subcommand.
const minPrefixWords = 2

// PrefixesOf returns the exact prefixes an operator may allow from the
// shell script of a call they approve, shortest first: the words of its
// one simple command, from two words (one when it has one) up to all of
// them, leaving out the prefixes that name a shell or an interpreter and
// nothing after it but options (see Set.Broad). An error says why the
// script offers none: it is not a single plain command that
// CoveredByPrefixes would allow under its own words.
func PrefixesOf(script string) ([][]string, error) {
	sc, err := plainScript(script)
	if err != nil {
		return nil, err
	}
	if len(sc.Commands) != 1 {
		return nil, fmt.Errorf("the script runs %d commands; a prefix is offered for a single command", len(sc.Commands))
	}
	args := sc.Commands[0].Args
	var out [][]string
	for n := min(minPrefixWords, len(args)); n <= len(args); n++ {
		p := args[:n:n]
		if broadPrefix(p) {
			continue
		}
		out = append(out, slices.Clone(p))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s runs whatever code it is given: no prefix of %s is narrow enough", args[0], shell.Join(args))
	}
	return out, nil
}

// CoveredByPrefixes reports, with a nil error, that the shell script runs nothing but
// commands that start with one of prefixes, word for word: every simple
// command the parser finds (wrappers, substitutions and pipelines seen
// through) has only literal words, starts with a prefix (its program
// spelled exactly so: ./git is not git), has no redirection of its input
// or output (a duplication such as 2>&1 is allowed), no assignment, no
// here-document, no wrapper, and is not dangerous; the script is fully
// analysed, defines no function and feeds no download to an interpreter.
// It returns, for each simple command, the index in prefixes of the first
// prefix it starts with. Otherwise the error says which command is not
// covered and why: the script must be asked about.
func CoveredByPrefixes(script string, prefixes [][]string) ([]int, error) {
	if len(prefixes) == 0 {
		return nil, errors.New("no prefix is allowed")
	}
	sc, err := plainScript(script)
	if err != nil {
		return nil, err
	}
	by := make([]int, len(sc.Commands))
	for i := range sc.Commands {
		c := &sc.Commands[i]
		by[i] = slices.IndexFunc(prefixes, func(p []string) bool { return hasPrefix(c.Args, p) })
		if by[i] < 0 {
			return nil, fmt.Errorf("command %d (%s) starts with no allowed prefix", i+1, c.Text)
		}
	}
	return by, nil
}

// plainScript parses script and checks that each of its simple commands
// is plain: literal words and nothing around them (see CoveredByPrefixes).
func plainScript(script string) (*shell.Script, error) {
	sc, err := shell.Parse(script)
	if err != nil {
		return nil, fmt.Errorf("the script does not parse: %w", err)
	}
	if sc.Opaque {
		return nil, fmt.Errorf("the script cannot be fully analysed: %s", strings.Join(sc.Reasons, "; "))
	}
	if len(sc.Commands) == 0 {
		return nil, errors.New("the script runs no command")
	}
	if len(sc.Loops) > 0 {
		return nil, errors.New("the script loops over files")
	}
	for i := range sc.Commands {
		if why := notPlain(&sc.Commands[i]); why != "" {
			return nil, fmt.Errorf("command %d (%s): %s", i+1, sc.Commands[i].Text, why)
		}
	}
	if d := pipelineDangers(sc); len(d) > 0 {
		return nil, fmt.Errorf("the script is dangerous: %s", d[0])
	}
	return sc, nil
}

// notPlain says why the command c is not a plain command, "" when it is.
func notPlain(c *shell.Command) string {
	switch {
	case len(c.Args) == 0:
		return "a statement without a program (an assignment or a redirection alone)"
	case !c.AllLiteral():
		return "a word is not literal (an expansion, a substitution, a glob or ~)"
	case len(c.Assigns) > 0:
		return "it sets variables (" + strings.Join(c.Assigns, " ") + ")"
	case len(c.Redirects) > 0:
		return "it redirects its output (" + strings.Join(c.Redirects, " ") + ")"
	case len(c.Inputs) > 0 || c.Doc != "":
		return "it reads a file or a here-document on its input"
	case c.Unwrapped || len(c.Wrappers) > 0:
		return "it runs through a wrapper or runs another command"
	case c.MoreArgs:
		return "it gets words from its input"
	case c.Func != "":
		return "it is in the shell function " + c.Func
	}
	if why := dangerousCommand(c); why != "" {
		return "it is dangerous: " + why
	}
	return ""
}

// hasPrefix reports whether args starts with prefix, word for word.
func hasPrefix(args, prefix []string) bool {
	return len(prefix) > 0 && len(args) >= len(prefix) && slices.Equal(args[:len(prefix)], prefix)
}

// broadPrefix reports whether the prefix names a shell or an interpreter
// and nothing after it but options (see Set.Broad).
func broadPrefix(p []string) bool {
	if !runsAnyCode(shell.Base(p[0])) {
		return false
	}
	for _, w := range p[1:] {
		if !strings.HasPrefix(w, "-") {
			return false
		}
	}
	return true
}
