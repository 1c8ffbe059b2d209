package rules

import (
	"regexp"
	"strings"
	"sync"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// KnownSafe reports whether argv is a known-safe, read-only command: one
// that reads files or the repository and writes nothing but its standard
// output. It sees through the harmless wrappers (timeout, nice, nohup,
// stdbuf, time, command, xargs, bash -c with known-safe commands inside), so
// ["timeout","5","git","status"] and ["bash","-c","ls && cat go.mod"] are
// known safe.
//
// The curated set:
//
//	cat head tail wc nl tac rev cut tr paste column fold expand unexpand fmt
//	join comm cmp diff grep egrep fgrep ls pwd cd echo printf true false test [
//	which whereis type basename dirname realpath readlink file stat du df seq
//	sleep whoami id groups uname arch nproc uptime md5sum sha1sum sha256sum
//	sha512sum b2sum cksum jq od hexdump strings expr
//	hostname (no operand, no -F), date (no -s/--set, no operand setting it)
//	command -v/-V
//	find without -delete, -exec, -execdir, -ok, -okdir, -fprint, -fprint0,
//	     -fprintf, -fls
//	rg without --pre, --hostname-bin, -z/--search-zip
//	fd without -x/--exec, -X/--exec-batch
//	sort without -o/--output, --compress-program
//	uniq with at most one file operand (a second one is written)
//	tree without -o/--output
//	sed without -i/--in-place, -f, whose scripts only print, count or quit
//	     on line-number addresses (sed -n '1,20p')
//	git status, diff, log, show, blame, annotate, rev-parse, rev-list,
//	    ls-files, ls-tree, cat-file, describe, shortlog, merge-base, show-ref,
//	    count-objects, grep (without -O/--open-files-in-pager), version;
//	    branch and tag listing only; remote with no argument or -v; stash
//	    list/show; config --get/--get-all/--get-regexp/--list; worktree list;
//	    never with --output, -o, --ext-diff, --textconv, or the global
//	    options -c, --exec-path, -p/--paginate
//	go version, env (without -w/-u), list (without -toolexec), doc
//
// A program given by a relative path (./ls) is never known safe; an absolute
// path counts when it lies in a system directory (/bin, /usr/bin, …).
// Known-safe assumes the repository's own configuration is trusted (git
// runs configured hooks, pagers and filters).
func KnownSafe(argv []string) bool {
	sc := shell.FromArgs(argv)
	return scriptKnownSafe(sc)
}

func scriptKnownSafe(sc *shell.Script) bool {
	if sc.Opaque || len(sc.Commands) == 0 {
		return false
	}
	for i := range sc.Commands {
		if !commandKnownSafe(&sc.Commands[i]) {
			return false
		}
	}
	return true
}

// commandKnownSafe checks one simple command: literal words, no
// assignments, redirections only to /dev/null or the standard streams, a
// known-safe program and nothing dangerous.
func commandKnownSafe(c *shell.Command) bool {
	return undangerousKnownSafe(c) && dangerousCommand(c) == ""
}

// undangerousKnownSafe is commandKnownSafe without asking dangerousCommand,
// for a caller that has just asked it (judge).
func undangerousKnownSafe(c *shell.Command) bool {
	if len(c.Args) == 0 || len(c.Assigns) > 0 || !c.AllLiteral() {
		return false
	}
	for _, r := range c.Redirects {
		if r != "/dev/null" && r != "/dev/stdout" && r != "/dev/stderr" {
			return false
		}
	}
	if !systemProgram(c.Args[0]) {
		return false
	}
	if c.Unwrapped {
		return benignWrapper(c.Args)
	}
	if c.MoreArgs && !alwaysSafe[shell.Base(c.Args[0])] {
		return false // words read by xargs could make it anything
	}
	return safeArgv(c.Args)
}

var systemDirs = []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/"}

// systemProgram reports whether prog is a bare name or an absolute path in
// a system directory.
func systemProgram(prog string) bool {
	if strings.IndexByte(prog, '/') < 0 {
		return true
	}
	for _, d := range systemDirs {
		if rest, ok := strings.CutPrefix(prog, d); ok && rest != "" && strings.IndexByte(rest, '/') < 0 {
			return true
		}
	}
	return false
}

// benignWrapper reports whether a wrapper adds no risk of its own (what it
// runs is checked as its own command).
func benignWrapper(args []string) bool {
	name := shell.Base(args[0])
	switch name {
	case "timeout", "nice", "nohup", "stdbuf", "time", "command", "builtin", "xargs", "eval":
		return true
	}
	return shell.IsShell(name)
}

var alwaysSafe = map[string]bool{
	"cat": true, "head": true, "tail": true, "wc": true, "nl": true, "tac": true, "rev": true,
	"cut": true, "tr": true, "paste": true, "column": true, "fold": true, "expand": true,
	"unexpand": true, "fmt": true, "join": true, "comm": true, "cmp": true, "diff": true,
	"grep": true, "egrep": true, "fgrep": true, "ls": true, "pwd": true, "cd": true, "echo": true,
	"printf": true, "true": true, "false": true, "test": true, "[": true, "which": true,
	"whereis": true, "type": true, "basename": true, "dirname": true, "realpath": true,
	"readlink": true, "file": true, "stat": true, "du": true, "df": true, "seq": true,
	"sleep": true, "whoami": true, "id": true, "groups": true, "uname": true, "arch": true,
	"nproc": true, "uptime": true, "md5sum": true, "sha1sum": true, "sha256sum": true,
	"sha512sum": true, "b2sum": true, "cksum": true, "jq": true, "od": true, "hexdump": true,
	"strings": true, "expr": true,
}

func safeArgv(args []string) bool {
	name := shell.Base(args[0])
	if traitsOf(name).is(tAlwaysSafe) {
		return true
	}
	switch name {
	case "hostname":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") || a == "-F" || strings.HasPrefix(a, "--file") || a == "-b" || a == "--boot" {
				return false
			}
		}
		return true
	case "date":
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--set") || strings.Trim(a, "0123456789.") == "" {
				return false
			}
		}
		return true
	case "command":
		return shell.HasShort(args, 'v', "") || shell.HasShort(args, 'V', "")
	case "find":
		return !shell.HasWord(args, "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls")
	case "rg":
		return !shell.HasShort(args, 'z', "efgtTmAB") && !shell.HasLong(args, "search-zip", "pre", "pre-glob", "hostname-bin")
	case "fd", "fdfind":
		return !shell.HasShort(args, 'x', "eEtdS") && !shell.HasShort(args, 'X', "eEtdS") && !shell.HasLong(args, "exec", "exec-batch")
	case "sort":
		return !shell.HasShort(args, 'o', "ktTS") && !shell.HasLong(args, "output", "compress-program")
	case "uniq":
		return len(shell.Operands(args, "fsw", "skip-fields", "skip-chars", "check-chars")) <= 1
	case "tree":
		for _, a := range args[1:] {
			if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'o') >= 0 || strings.HasPrefix(a, "--output") {
				return false
			}
		}
		return true
	case "sed":
		return safeSed(args)
	case "git":
		return safeGit(args)
	case "go":
		return safeGo(args)
	}
	return false
}

// sedScript is a sed script that only prints, counts, deletes from the
// output or quits, on line-number addresses.
var sedScript = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*((\d+|\$)(\s*,\s*(\d+|\$))?)?\s*[pdq=]\s*$`)
})

// sedReadOnly are the options of sed that change neither files nor what
// its script may do.
var sedReadOnly = map[string]bool{"quiet": true, "regexp-extended": true, "separate": true,
	"null-data": true, "unbuffered": true, "posix": true, "expression": true}

func safeSed(args []string) bool {
	p, _ := command.Parse(args)
	if p.Unknown {
		return false
	}
	for _, o := range p.Options {
		if !sedReadOnly[o.Name] {
			return false // -i, -f, -l N, --debug, --sandbox, …
		}
	}
	scripts := p.Values("expression")
	if len(scripts) == 0 {
		if len(p.Operands) == 0 {
			return false
		}
		scripts = p.Operands[:1]
	}
	for _, s := range scripts {
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
			if !sedScript().MatchString(part) {
				return false
			}
		}
	}
	return true
}

func safeGit(args []string) bool {
	i := command.Subcommand(args)
	// Only global options that change where git looks, never what it
	// runs (-c, --exec-path, --config-env, -p …).
	if i > 1 { // global options
		g, _ := command.Lookup("git")
		globals := g.Parse(args[:i])
		if globals.Unknown {
			return false
		}
		for _, o := range globals.Options {
			switch o.Name {
			case "dir", "no-pager", "no-optional-locks", "literal-pathspecs", "no-replace-objects", "bare", "git-dir", "work-tree", "version", "help":
			default:
				return false
			}
		}
	}
	if i >= len(args) {
		return true // usage
	}
	sub, rest := args[i], args[i:]
	if shell.HasPrefixWord(rest, "--output", "--ext-diff", "--textconv", "--exec", "--upload-pack", "--receive-pack", "--open-files-in-pager") ||
		shell.HasWord(rest, "-o") {
		return false
	}
	switch sub {
	case "status", "diff", "log", "show", "blame", "annotate", "rev-parse", "rev-list", "ls-files",
		"ls-tree", "cat-file", "describe", "shortlog", "merge-base", "show-ref", "count-objects", "version",
		"whatchanged", "diff-tree", "diff-files", "diff-index", "for-each-ref", "name-rev", "check-ignore":
		return true
	case "grep":
		return !shell.HasPrefixWord(rest, "-O")
	case "branch":
		return listingOnly(rest, []string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
			"--show-current", "-i", "--ignore-case", "--column", "--no-column", "--omit-empty"},
			[]string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color", "--no-color", "--abbrev", "--no-abbrev"})
	case "tag":
		return listingOnly(rest, []string{"-n", "-i", "--ignore-case", "--column", "--no-column", "--omit-empty"},
			[]string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color", "--no-color"})
	case "remote":
		return len(rest) == 1 || len(rest) == 2 && (rest[1] == "-v" || rest[1] == "--verbose") ||
			len(rest) == 3 && rest[1] == "get-url"
	case "stash":
		return len(rest) >= 2 && (rest[1] == "list" || rest[1] == "show")
	case "config":
		return shell.HasWord(rest, "--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch") ||
			len(rest) >= 2 && rest[1] == "get" || len(rest) >= 2 && rest[1] == "list"
	case "worktree":
		return len(rest) >= 2 && rest[1] == "list"
	}
	return false
}

// listingOnly reports whether a git branch/tag command only lists: flags
// from flags, options with a value from valued (as --opt=value or the next
// word), and operands only when -l/--list is given.
func listingOnly(rest []string, flags, valued []string) bool {
	list := shell.HasWord(rest, "-l", "--list")
	for i := 1; i < len(rest); i++ {
		a := rest[i]
		if a == "-l" || a == "--list" {
			continue
		}
		if !strings.HasPrefix(a, "-") {
			if !list {
				return false
			}
			continue
		}
		if inList(a, flags) {
			continue
		}
		name, _, hasVal := strings.Cut(a, "=")
		if inList(name, valued) {
			if !hasVal && i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-") &&
				name != "--color" && name != "--no-color" && name != "--abbrev" && name != "--no-abbrev" &&
				name != "--merged" && name != "--no-merged" {
				i++
			}
			continue
		}
		return false
	}
	return true
}

func inList(s string, list []string) bool {
	for _, l := range list {
		if s == l {
			return true
		}
	}
	return false
}

func safeGo(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "version", "doc":
		return true
	case "env":
		return !shell.HasShort(args, 'w', "") && !shell.HasShort(args, 'u', "")
	case "list":
		return !shell.HasPrefixWord(args, "-toolexec", "--toolexec", "-exec", "-overlay")
	}
	return false
}
