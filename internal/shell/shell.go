// Package shell splits a shell script into the simple commands it would run,
// for exec rules and risk checks (SPEC G14).
//
// Parse walks the syntax tree of mvdan.cc/sh/v3/syntax (bash dialect): the
// operands of &&, ||, ;, & and pipes, subshells, { } blocks, if/while/for/case
// bodies, function bodies, alias definitions, command and process substitutions wherever they
// appear (arguments, assignments, redirections, unquoted here-documents, test
// and arithmetic expressions) each yield their simple commands.
//
// It also sees through wrappers, commands that run another command:
//
//	sudo, doas, pkexec, env (also env -S), nice, ionice, timeout, nohup, setsid,
//	stdbuf, chroot, busybox, command (not -v/-V), builtin, exec, time (keyword
//	and program), xargs, find -exec/-execdir/-ok/-okdir, watch, su -c,
//	alias NAME=VALUE (VALUE is walked as the script the alias runs),
//	bash/sh/zsh/dash/ksh/… -c STRING (also -lc, -ec, …), a shell reading a
//	literal here-document or here-string, eval of literal words, trap STRING,
//	the runners of runners.go (dbus-run-session, unshare, nsenter, setpriv, …),
//	parallel and sem, at/batch here-documents, git aliases and git-NAME
//	helpers, uses of shell aliases the script defines.
//
// A wrapper is reported twice: first as itself, with all its words (so a rule
// on sudo still matches, and Unwrapped is set), then the command it runs,
// with the wrapper's name appended to Wrappers. `sudo rm -rf /` yields
// ["sudo" "rm" "-rf" "/"] and then ["rm" "-rf" "/"] with Wrappers ["sudo"].
//
// What cannot be analysed makes the script Opaque, with a reason: eval of a
// non-literal argument, a shell -c whose script is not literal, a program name
// that is not literal ($CMD args, $(which rm) x), source or . of a file, a
// shell reading its script from a pipe, nesting beyond a fixed depth, and
// anything bash could read differently from the parser, or run from data
// (SPEC G16, see agree.go): a carriage return or NUL byte, a comment ending
// in a backslash, hash -p, set -k, arithmetic over values the script does
// not set to numbers, variable names with subscripts. Aliases the script
// defines are expanded where used.
package shell

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command found in a script.
type Command struct {
	// Args are the words, program first, as the shell would pass them when
	// literal; a word that is not literal (has $expansions, globs, ~ or
	// substitutions) is kept as its source text.
	Args []string
	// Literal says, per word, whether the word is fully literal.
	Literal []bool
	// Wrappers are the wrappers seen through to reach this command, outermost
	// first, e.g. ["sudo" "env"], ["bash -c"], ["find -exec"] or ["xargs"].
	Wrappers []string
	// Text is the source text of the command (for a wrapped command, its
	// words as written, joined by spaces).
	Text string

	// Assigns are the NAME=value assignments in effect for this command only
	// (`FOO=1 cmd`, or those given to env or sudo), as source text. A
	// statement of assignments alone yields a Command with no Args.
	Assigns []string
	// Redirects are the targets of the output redirections that apply to
	// the command (>, >>, >|, &>, <>, including those on an enclosing
	// compound command), as source text. Duplications such as 2>&1 are not
	// listed. A statement of redirections alone yields a Command with no
	// Args.
	Redirects []string
	// Inputs are the files the command reads through input redirections
	// (<, <>, <&file, including those on an enclosing compound command),
	// as source text. Here-documents and here-strings are not listed.
	Inputs []string
	// Doc is the source text of the here-document or here-string the
	// command reads on its standard input ("" for none), expansions
	// unexpanded (<<< "$TOKEN" gives "$TOKEN" with its quotes).
	Doc string
	// Func is the name of the shell function whose body holds the command,
	// "" outside functions.
	Func string
	// Pipeline is the 1-based number of the outermost pipeline holding the
	// command, 0 when it is in none; Stage is the index of the pipeline
	// stage holding it.
	Pipeline, Stage int
	// Unwrapped is true when the command is a wrapper Parse saw through: the
	// commands it runs follow as their own entries.
	Unwrapped bool
	// MoreArgs is true when the command gets more words than Args when it
	// runs, read from an input the script does not show (xargs, parallel
	// with no literal arguments): a rule longer than Args may match it.
	MoreArgs bool
}

// Program returns the program name: the first word, "" when there is none.
func (c *Command) Program() string {
	if len(c.Args) == 0 {
		return ""
	}
	return c.Args[0]
}

// AllLiteral reports whether every word of the command is literal.
func (c *Command) AllLiteral() bool {
	for _, l := range c.Literal {
		if !l {
			return false
		}
	}
	return true
}

// Script is a parsed script.
type Script struct {
	// Commands are the simple commands, in the order the shell would start
	// them (substitutions before the command that uses them; a wrapper
	// before the command it runs).
	Commands []Command
	// Loops are the loops whose variable stands for files (for f in *.txt,
	// find … | while read f), in the order they appear.
	Loops []Loop
	// Opaque is true when some part cannot be analysed: the script must be
	// judged as a whole.
	Opaque bool
	// Reasons say why the script is opaque.
	Reasons []string
}

// Limits on the analysis; beyond them the script is opaque.
const (
	maxDepth    = 16   // nested wrappers and embedded scripts
	maxNesting  = 500  // syntax tree nesting
	maxCommands = 5000 // simple commands in one script
)

// pooledParser is a parser with the reader it reads a script through.
type pooledParser struct {
	p *syntax.Parser
	r strings.Reader
}

var parsers = sync.Pool{New: func() any {
	// Comments are kept for checkComment (agree.go).
	return &pooledParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))}
}}

func parseFile(src string) (*syntax.File, error) {
	pp := parsers.Get().(*pooledParser)
	pp.r.Reset(src)
	f, err := pp.p.Parse(&pp.r, "")
	pp.r.Reset("")
	parsers.Put(pp)
	return f, err
}

// Parse parses src as a bash script and returns the simple commands it would
// run. A syntax error is returned as an error printing "line:col: message"
// (a syntax.ParseError or syntax.LangError). Parse never panics.
func Parse(src string) (*Script, error) {
	src = bashEnd(src)
	f, err := parseFile(src)
	if err != nil {
		return nil, err
	}
	w := &walker{s: &Script{Commands: make([]Command, 0, commandsHint(f))}, firstArena: wordsHint(src)}
	w.checkSource(src)
	w.scanTree(f, src)
	w.stmts(f.Stmts, ctx{src: src})
	w.finish()
	return w.s, nil
}

// commandsHint guesses how many simple commands f holds, so that the
// slice of them grows once at most for common scripts: one per statement,
// plus one per pipeline stage and list member, plus one for a wrapper's
// command.
func commandsHint(f *syntax.File) int {
	n := 0
	for _, st := range f.Stmts {
		n++
		for cmd := st.Cmd; cmd != nil; {
			b, ok := cmd.(*syntax.BinaryCmd)
			if !ok {
				break
			}
			n++
			cmd = b.X.Cmd
		}
	}
	return min(n+1, 32)
}

// FromArgs returns the commands an argv would run when executed directly
// (not through a shell): the argv itself as one literal command, then,
// when its program is a wrapper, the commands it wraps (so
// ["bash","-lc","git status && rm x"] yields the bash command, git status and
// rm x).
func FromArgs(argv []string) *Script {
	if len(argv) == 0 {
		return &Script{}
	}
	w := &walker{s: &Script{}}
	words := make([]word, len(argv))
	for i, a := range argv {
		words[i] = word{val: a, lit: true, text: Quote(a)}
	}
	w.emit(words, ctx{}, nil, nil, stdin{}, joinText(words))
	w.finish()
	return w.s
}

// Quote returns s quoted for a POSIX shell when it needs quoting, s itself
// otherwise: mvdan.cc/sh/v3/syntax.Quote for the POSIX dialect (which also
// quotes keywords, assignments, globs, braces and tildes). Text that
// dialect has no escape sequence for (control characters, a newline,
// invalid UTF-8) goes in single quotes, which keep every byte literally; a
// single quote inside is written '\”. Split and bash read every result
// back as the one word s (TestG14_QuoteRoundTrips, FuzzG14_QuoteBash).
func Quote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil {
		return q
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word with Quote and joins them with spaces.
func Join(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(a))
	}
	return b.String()
}
