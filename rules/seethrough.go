package rules

import (
	"slices"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// Exec rules see through indirection (SPEC G14, issue 18): package shell
// finds the commands that wrappers, aliases, xargs, parallel and embedded
// scripts run; what it cannot see, seeThrough judges here. A command
// whose words reach a prompt or forbidden rule only when it runs — more
// words read from input, words it passes on to a program it starts, a
// program it reads from a file or its input, inline code that starts
// programs, a git alias or helper defined elsewhere — makes the rule a
// possible match (at least prompt): with a forbidden rule in the set,
// such a command is never allowed. Under a set of allow rules only,
// nothing changes.

// maxLineDepth bounds how deep command lines given as words to command
// lines given as words are read.
const maxLineDepth = 3

// seeThrough appends to out the possible matches of the prompt and
// forbidden rules of set that the command c (index i of sc) may run
// without its words showing them. n is where c's own matches start in
// out; depth counts the command lines given as words c is in.
func seeThrough(set *Set, sc *shell.Script, i, n int, out []Match, depth int) []Match {
	c := &sc.Commands[i]
	if len(c.Args) == 0 || set.strictCount() == 0 {
		return out
	}
	add := func(r *Rule, reason string) {
		if !hasRule(out[n:], r) {
			out = append(out, Match{Rule: r, Command: i, Possible: true, Reason: reason})
		}
	}
	name := shell.Base(c.Args[0])
	traits := traitsOf(name)
	if c.MoreArgs {
		roots := findPaths(sc, c)
		a, b := set.candidates(c.Args[0])
		for _, list := range [2][]*Rule{a, b} {
			for _, r := range list {
				if r.strict() && r.moreMayMatch(c.Args, roots) {
					add(r, name+" gets more words from what xargs or parallel reads")
				}
			}
		}
	}
	input := inputOf(sc, c)
	if reason := hiddenCode(c, name, traits, input); reason != "" {
		add(set.strictest(), reason+"; any prompt or forbidden rule may match what it runs")
	}
	out = assignedCommands(set, c, i, n, out, depth)
	if c.Unwrapped || traits.is(tLeavesWordsAlone) {
		return out
	}
	start := 1
	if g, ok := command.Lookup(name); ok && g.HasSubcommands() {
		start = command.Subcommand(c.Args) + 1
	}
	for k := start; k < len(c.Args); k++ {
		word := c.Args[k]
		for _, r := range wordsMatch(set, c.Args[k:], c.Literal[k:], nil) {
			add(r, name+" is given the words "+shell.Join(c.Args[k:])+", which it may run")
		}
		if k < len(c.Literal) && !c.Literal[k] {
			continue // its text only: $DIR/rm may be rm
		}
		if prog := shell.Base(word); traitsOf(prog).is(tHidesCode) {
			tail := shell.Command{Args: c.Args[k:], Literal: c.Literal[k:]}
			pt := traitsOf(prog)
			if pt.is(tShell) {
				tail.Unwrapped = shell.FromArgs(tail.Args).Commands[0].Unwrapped
			}
			if reason := hiddenCode(&tail, prog, pt, input); reason != "" {
				add(set.strictest(), name+" is given "+shell.Join(tail.Args)+", which it may run: "+reason)
			}
		}
		for _, r := range commandLineMatches(set, word, depth) {
			add(r, name+" is given the command line "+shell.Quote(word)+", which it may run")
		}
	}
	return out
}

// assignedCommands appends the possible matches of the rules matching a
// command line held by an assignment to the command c (index i):
// GIT_SSH_COMMAND='git push' git fetch, PAGER=…, EDITOR=….
func assignedCommands(set *Set, c *shell.Command, i, n int, out []Match, depth int) []Match {
	for _, a := range c.Assigns {
		parts, err := shell.Split(a)
		if err != nil || len(parts) != 1 {
			continue
		}
		for _, r := range commandLineMatches(set, parts[0], depth) {
			if !hasRule(out[n:], r) {
				out = append(out, Match{Rule: r, Command: i, Possible: true, Reason: "the assignment " + a + " holds a command line that may run"})
			}
		}
	}
	return out
}

func hasRule(ms []Match, r *Rule) bool {
	for _, m := range ms {
		if m.Rule == r {
			return true
		}
	}
	return false
}

// wordsMatch appends to out the prompt and forbidden rules that match,
// or may match, the words args (lit says which are literal).
func wordsMatch(set *Set, args []string, lit []bool, out []*Rule) []*Rule {
	a, b := set.candidates(args[0])
	var parsed *command.Parsed
	for _, list := range [2][]*Rule{a, b} {
		for _, r := range list {
			if r.Decision == Allow {
				continue
			}
			if certain, possible := r.mayMatch(args, lit, &parsed); certain || possible {
				out = append(out, r)
			}
		}
	}
	return out
}

// commandLineMatches returns the prompt and forbidden rules matching a
// command of the script line, which a program was given as one word (or
// of VALUE, for a word NAME=VALUE).
func commandLineMatches(set *Set, line string, depth int) []*Rule {
	if depth >= maxLineDepth {
		return nil
	}
	if k, v, ok := strings.Cut(line, "="); ok && (isName(k) || strings.HasPrefix(k, "-")) {
		line = v // NAME=VALUE, --option=VALUE
	} else if !lineMetas.in(line) {
		return nil // one plain word: judged as words passed on
	}
	// Parse only a line that may name a rule's program or one that hides
	// code, its quotes and backslashes removed (g''it, g\it are git); an
	// ANSI-C string ($'\x67it') may hold any name.
	plain := unquoter.Replace(line)
	if !strings.Contains(line, "$'") && !set.mentions(plain) &&
		!slices.ContainsFunc(strings.FieldsFunc(plain, isMeta), func(f string) bool { return hidesCode(shell.Base(f)) }) {
		return nil
	}
	sc, err := shell.Parse(line)
	if err != nil {
		return nil
	}
	var out []*Rule
	for i := range sc.Commands {
		c := &sc.Commands[i]
		if len(c.Args) > 0 && !c.Literal[0] && strings.HasPrefix(c.Args[0], "$'") {
			// $'\x67it': a program named in escapes, which may be any.
			out = append(out, set.strictest())
			continue
		}
		// What the line runs is judged as a command of the script would
		// be (sed's e command, 1e git push, passes git push on).
		for _, m := range seeThrough(set, sc, i, 0, ruleMatches(set, c, i, nil), depth+1) {
			if m.Rule.strict() {
				out = append(out, m.Rule)
			}
		}
	}
	return out
}

// lineMetas are the characters that make a word a command line rather
// than one plain word.
var lineMetas = newByteSet(" \t\n;|&()<>`$")

// byteSet is a set of bytes.
type byteSet [256]bool

func newByteSet(chars string) (b byteSet) {
	for i := 0; i < len(chars); i++ {
		b[chars[i]] = true
	}
	return b
}

// in reports whether s holds a byte of the set.
func (b *byteSet) in(s string) bool {
	for i := 0; i < len(s); i++ {
		if b[s[i]] {
			return true
		}
	}
	return false
}

// unquoter removes the quotes and backslashes of a command line.
var unquoter = strings.NewReplacer("'", "", `"`, "", `\`, "")

// isMeta reports whether r separates words in a command line.
func isMeta(r rune) bool { return strings.ContainsRune(" \t\n;|&()<>`$={}!", r) }

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// leavesWordsAlone are programs known not to run their operands as
// commands: the known-safe ones (see KnownSafe), those that act on the
// files they name, and those that only describe a program by its name.
var leavesWordsAlone = func() map[string]bool {
	m := map[string]bool{}
	for k := range alwaysSafe {
		m[k] = true
	}
	for k := range destroyers {
		m[k] = true
	}
	for _, k := range []string{"cp", "ln", "mkdir", "touch", "tee", "install", "info", "whatis", "apropos",
		"help", "hash", "type", "which", "whereis", "command", "tldr", "uniq", "find"} {
		m[k] = true
	}
	return m
}()

// hiddenCode returns why the command c (its program's base name is name,
// with the traits t; its standard input comes from input, see inputOf)
// runs code that the script does not show, "" when it does not: a shell
// running a script file, a shell or an interpreter reading its program
// from a file or a pipe, or from a here-document that starts programs,
// inline code that starts programs or evaluates code, environment that
// loads code or names a program, a git command that is an alias or a
// helper found in the configuration or PATH, ed running commands from its
// input. An
// interpreter running a script file is like a program run by its path
// (./run.sh, make): judged by its words.
func hiddenCode(c *shell.Command, name string, t trait, input string) string {
	for _, a := range c.Assigns {
		n, v, _ := strings.Cut(a, "=")
		if codeVars[n] {
			return name + " is given " + a + ", which loads code the script does not show"
		}
		if programVars[n] && strings.ContainsAny(v, "/$`") {
			return name + " is given " + a + ", a program the script does not show"
		}
		if (n == "BASH_ENV" || n == "ENV") && t.is(tShell) {
			return name + " runs the start-up file " + a + ", whose commands are not in the script"
		}
		if n == "PATH" && !systemPath(v) {
			return name + " is looked up in " + a + ", where a program of that name may be any"
		}
	}
	if t.is(tShell) && (shell.HasWord(c.Args, "--rcfile") || shell.HasWord(c.Args, "--init-file")) {
		return name + " runs a start-up file, whose commands are not in the script"
	}
	if !t.is(tHidesCode) && !strings.HasPrefix(name, "lua") {
		return ""
	}
	if name == "git" {
		return gitHidden(c) // git runs no inline code (command.InlineCode)
	}
	if in, ok := command.InlineCode(c.Args); ok {
		switch {
		case !in.Literal(c.Literal):
			return name + " runs code made when the command runs"
		case !in.Known:
			return name + " runs code from a file or its input"
		}
		if e := command.CodeEffects(in); e.Exec || e.Dynamic {
			return name + " runs inline code that starts other programs or evaluates code"
		}
		return ""
	}
	shellLike := t.is(tShell)
	switch {
	case name == "ed" || name == "red":
		if input != "" || strings.Contains(c.Doc, "!") {
			return name + " reads commands from " + or(input, "a here-document") + " (! runs shell commands)"
		}
	case t.is(tShell | tInterpreter | tPython | tScriptInterpreter):
		if c.Unwrapped || infoOnly(c.Args) || t.is(tPython) && shell.HasWord(c.Args, "-m") {
			return ""
		}
		if f := runsFile(c); f != "" || c.MoreArgs {
			if shellLike {
				return name + " runs the script " + or(f, "named by what xargs reads") + ", whose commands are not in the script"
			}
			return ""
		}
		if c.Doc != "" && len(c.Inputs) == 0 {
			if strings.ContainsAny(c.Doc, "$`") {
				return name + " runs code from a here-document or here-string with expansions"
			}
			if e := command.CodeEffects(command.Inline{Lang: name, Code: c.Doc, Known: true}); e.Exec || e.Dynamic {
				return name + " runs code from a here-document or here-string that starts other programs or evaluates code"
			}
			return ""
		}
		if input != "" {
			return name + " runs a program read from " + input
		}
	}
	return ""
}

// systemPath reports whether a PATH value looks programs up first in the
// inherited PATH or in system directories (/usr/bin, /usr/local/go/bin):
// the first entry decides what a name finds.
func systemPath(v string) bool {
	parts, err := shell.Split(v)
	if err == nil && len(parts) == 1 {
		v = parts[0]
	}
	first, _, _ := strings.Cut(v, ":")
	if first == "$PATH" || first == "${PATH}" {
		return true
	}
	for _, d := range []string{"/usr/", "/bin", "/sbin", "/opt/", "/snap/", "/nix/"} {
		if strings.HasPrefix(first, d) {
			return true
		}
	}
	return false
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inputOf says where the standard input of the command c of sc comes
// from as far as the script shows — a file, a pipe, words xargs reads —
// "" when from none (the tool's, which is empty).
func inputOf(sc *shell.Script, c *shell.Command) string {
	if len(c.Inputs) > 0 {
		return "the file " + c.Inputs[0]
	}
	if c.Pipeline > 0 && c.Stage > 0 {
		return "a pipe"
	}
	for i := range sc.Commands {
		if x := &sc.Commands[i]; len(x.Args) == 1 && x.Args[0] == "exec" && len(x.Inputs) > 0 {
			return "the file " + x.Inputs[0] + " (exec <)"
		}
	}
	return ""
}

// findPaths returns the starting points of the find whose output c reads
// through xargs or parallel (find . -print0 | xargs -0 rm): the words read
// are paths under them. It returns nil when the input is anything else.
func findPaths(sc *shell.Script, c *shell.Command) []string {
	if c.Pipeline == 0 || c.Stage == 0 {
		return nil
	}
	for i := range sc.Commands {
		f := &sc.Commands[i]
		if f.Pipeline != c.Pipeline || f.Stage != c.Stage-1 || len(f.Wrappers) > 0 || len(f.Args) == 0 ||
			shell.Base(f.Args[0]) != "find" || !f.AllLiteral() {
			continue
		}
		for _, a := range f.Args[1:] {
			if strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok") || strings.HasPrefix(a, "-printf") ||
				strings.HasPrefix(a, "-fprint") || a == "-ls" || a == "-fls" {
				return nil // prints what is not a path
			}
		}
		roots := command.FindRoots(f.Args)
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for _, r := range roots {
			if r == "" || strings.HasPrefix(r, "-") {
				return nil
			}
		}
		return roots
	}
	return nil
}

// moreMayMatch reports whether the rule may match a command whose words
// args are followed by more words read from input: the words it has agree
// with the pattern (word for word, or by meaning: git -C r may yet be git
// -C r push, git branch -d not), and the words read — paths under roots
// when they come from find (nil: any words), operands after "--" — may
// be the pattern's.
func (r *Rule) moreMayMatch(args []string, roots []string) bool {
	rest := r.Pattern[min(len(args), len(r.Pattern)):]
	if roots != nil && !mayBePath(rest, roots) {
		return false
	}
	if slices.Contains(args[1:], "--") {
		operand := false
		for _, alts := range rest {
			for _, tok := range alts {
				operand = operand || !strings.HasPrefix(tok, "-")
			}
		}
		if !operand {
			return false
		}
	}
	literal := true
	for p := 1; p < len(args) && p < len(r.Pattern); p++ {
		literal = literal && tokenMatches(p, r.Pattern[p], args[p])
	}
	if literal {
		return true
	}
	parsed, ok := command.Parse(args)
	if !ok {
		return false
	}
	for _, f := range r.forms {
		k := min(len(f.Path), len(parsed.Path))
		if slices.Equal(f.Path[:k], parsed.Path[:k]) {
			return true
		}
	}
	return false
}

// mayBePath reports whether a token of the pattern positions pat could be
// a path under one of roots (a word xargs read from find).
func mayBePath(pat [][]string, roots []string) bool {
	for _, alts := range pat {
		for _, tok := range alts {
			for _, r := range roots {
				if strings.HasPrefix(tok, r) {
					return true
				}
			}
		}
	}
	return false
}

// codeVars are environment variables that make a program load code:
// libraries, modules, start-up files.
var codeVars = map[string]bool{
	"LD_PRELOAD": true, "LD_AUDIT": true, "LD_LIBRARY_PATH": true, "NODE_OPTIONS": true, "PERL5OPT": true,
	"RUBYOPT": true, "PYTHONSTARTUP": true, "GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_CONFIG_GLOBAL": true,
	"GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true,
}

// programVars are environment variables naming a program (or a command
// line) that programs run: a path or an expansion there is a program the
// script does not show. A command line is judged by its words (see
// assignedCommands).
var programVars = map[string]bool{
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "GIT_EDITOR": true,
	"GIT_SEQUENCE_EDITOR": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "PAGER": true, "MANPAGER": true,
	"EDITOR": true, "VISUAL": true, "LESSOPEN": true, "BROWSER": true, "SHELL": true, "PROMPT_COMMAND": true,
}

// hidesCode reports whether hiddenCode may find code that the words of
// the program name do not show.
func hidesCode(name string) bool { return traitsOf(name).is(tHidesCode) }

// codeHiders are the programs, beyond shells and Python, that run code
// their words need not show: git (aliases, helpers), ed, awk, vim, the
// interpreters of the download-and-execute check and scriptInterpreters.
var codeHiders = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{"git", "ed", "red", "awk", "gawk", "mawk", "nawk", "busybox-awk", "vim", "vi", "nvim", "ex",
		"view", "gvim", "rvim", "vimdiff", "Rscript", "pwsh", "powershell", "osascript"} {
		m[n] = true
	}
	for n := range interpreters {
		m[n] = true
	}
	for n := range scriptInterpreters {
		m[n] = true
	}
	return m
}()

// scriptInterpreters are interpreters, beyond those of the
// download-and-execute check, that read a program from a file or their
// input.
var scriptInterpreters = map[string]bool{
	"expect": true, "wish": true, "jimsh": true, "php-cgi": true, "pypy3": true, "perl5": true,
	"jruby": true, "luajit": true, "gawk": true, "escript": true, "guile": true, "racket": true,
	"sbcl": true, "clisp": true, "qjs": true, "ts-node": true, "tsx": true,
}

// gitHidden returns why a git command runs what the script does not show:
// a subcommand that is not git's own is an alias or a git-NAME program
// from the configuration or PATH (or, with --exec-path or GIT_EXEC_PATH,
// any subcommand that is not built in).
func gitHidden(c *shell.Command) string {
	if c.Unwrapped {
		return "" // an alias the script defines, seen through
	}
	for _, kv := range command.GitConfigs(c.Args) {
		k, _, _ := strings.Cut(kv, "=")
		if k = strings.ToLower(k); command.GitConfigRunsCommand(k) && !strings.HasPrefix(k, "alias.") {
			return "git -c " + k + " runs a program the configuration names"
		}
		if k == "include.path" || strings.HasPrefix(k, "includeif.") {
			return "git -c " + k + " reads configuration (aliases, programs to run) the script does not show"
		}
	}
	sub := command.Subcommand(c.Args)
	if sub >= len(c.Args) || sub < len(c.Literal) && !c.Literal[sub] {
		return ""
	}
	s := c.Args[sub]
	if command.GitBuiltin(s) {
		return ""
	}
	execPath := false
	for _, a := range c.Assigns {
		execPath = execPath || strings.HasPrefix(a, "GIT_EXEC_PATH=")
	}
	for _, a := range c.Args[1:sub] {
		execPath = execPath || strings.HasPrefix(a, "--exec-path=")
	}
	if command.GitCommand(s) && !execPath {
		return ""
	}
	return "git " + s + " runs an alias or a git-" + s + " program from the configuration or PATH"
}

// infoOnly reports whether args only ask a program for its version or
// help.
func infoOnly(args []string) bool {
	if len(args) < 2 {
		return false
	}
	for _, a := range args[1:] {
		switch a {
		case "--version", "-V", "--help", "-h", "-v", "-version", "-help":
		default:
			return false
		}
	}
	return true
}

// mentions reports whether s contains the program token of a prompt or
// forbidden rule.
func (s *Set) mentions(text string) bool {
	for _, r := range s.rules {
		if r.Decision == Allow {
			continue
		}
		for _, tok := range r.Pattern[0] {
			if strings.Contains(text, shell.Base(tok)) {
				return true
			}
		}
	}
	return false
}

// strictCount returns the number of prompt and forbidden rules.
func (s *Set) strictCount() int {
	if s == nil {
		return 0
	}
	return s.strict
}

// strictest returns the first forbidden rule of the set, else the first
// prompt rule, nil when there is none.
func (s *Set) strictest() *Rule {
	var best *Rule
	for _, r := range s.rules {
		if best == nil && r.strict() || best != nil && r.Decision.Strictness() > best.Decision.Strictness() {
			best = r
		}
	}
	return best
}
