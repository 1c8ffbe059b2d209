package command

import (
	"strings"
)

// RunsOther reports whether argv makes its program run another command or
// program that the words give only as an option value or operand — rsync
// -e, ssh -o ProxyCommand, tar --checkpoint-action=exec, zip -TT, gdb -ex
// '!…', sqlite3 .shell, strace PROGRAM, script -c, socat EXEC:, at,
// systemd-run, … — and describes how. Wrappers that package shell sees
// through (sudo, env, xargs, find -exec, bash -c, …) are not listed here.
func RunsOther(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	name := base(argv[0])
	has := func(prefixes ...string) string {
		for _, a := range argv[1:] {
			for _, p := range prefixes {
				if strings.HasPrefix(a, p) {
					return a
				}
			}
		}
		return ""
	}
	switch name {
	case "rsync":
		if a := has("-e", "--rsh", "--rsync-path"); a != "" && a != "--rsh=ssh" {
			return "rsync runs the remote shell command it is given (" + a + ")", true
		}
	case "ssh", "scp", "sftp":
		for i, a := range argv {
			l := strings.ToLower(a)
			if strings.Contains(l, "proxycommand") || strings.Contains(l, "localcommand") || strings.Contains(l, "knownhostscommand") {
				return name + " runs a local command (" + a + ")", true
			}
			if name != "ssh" && a == "-S" && i+1 < len(argv) {
				return name + " runs the program " + argv[i+1] + " as its transport", true
			}
		}
	case "tar", "gtar", "bsdtar":
		if a := has("--checkpoint-action", "--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script", "-F"); a != "" {
			return "tar runs a command it is given (" + a + ")", true
		}
	case "zip":
		if a := has("-TT", "--unzip-command"); a != "" {
			return "zip runs a command it is given (" + a + ")", true
		}
	case "gdb", "lldb", "valgrind", "strace", "ltrace", "perf", "rr", "uftrace", "bpftrace":
		return name + " runs a program, or commands, under its control", true
	case "sqlite3":
		if a := has(".shell", ".system", "-cmd"); a != "" {
			return "sqlite3 runs a shell command", true
		}
		for _, a := range argv[1:] {
			if strings.Contains(a, ".shell") || strings.Contains(a, ".system") {
				return "sqlite3 runs a shell command", true
			}
		}
	case "mysql", "mariadb", "psql":
		for _, a := range argv[1:] {
			if strings.Contains(a, `\!`) || strings.Contains(strings.ToLower(a), "system ") {
				return name + " runs a shell command", true
			}
		}
	case "script":
		return "script starts a shell, or runs the command it is given, and records it", true
	case "expect", "socat", "flock", "taskset", "setarch", "unshare", "nsenter", "chrt", "systemd-run",
		"at", "batch", "start-stop-daemon", "run-parts", "daemonize", "faketime", "firejail", "prlimit", "cgexec":
		if name == "socat" && has("exec:", "EXEC:", "system:", "SYSTEM:") == "" {
			return "", false
		}
		return name + " runs a program or commands it is given", true
	case "git":
		for _, kv := range GitConfigs(argv) {
			k, v, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(strings.ToLower(k), "alias.") && strings.HasPrefix(strings.TrimSpace(v), "!") ||
				strings.HasPrefix(strings.ToLower(k), "core.") && (strings.HasSuffix(strings.ToLower(k), "command") || strings.HasSuffix(strings.ToLower(k), "pager") ||
					strings.HasSuffix(strings.ToLower(k), "editor") || strings.HasSuffix(strings.ToLower(k), "hookspath") || strings.HasSuffix(strings.ToLower(k), "fsmonitor")) {
				return "git -c " + k + " runs a command", true
			}
		}
		return gitRunsOther(argv)
	case "man":
		p, _ := Parse(argv)
		for _, o := range []string{"pager", "html"} {
			if v := p.Values(o); len(v) > 0 {
				return "man runs the program it is given as its " + o + " (" + v[0] + ")", true
			}
		}
	}
	return "", false
}

// gitRunsByOption are the git subcommands that run the command or program
// an option gives: its long name and its short letter, and what it does.
var gitRunsByOption = map[string]struct{ long, short, does string }{
	"difftool": {"extcmd", "x", "runs the command it is given for each file"},
	"grep":     {"open-files-in-pager", "O", "opens the files in the program it is given"},
	"rebase":   {"exec", "x", "runs the command it is given after each commit"},
}

// gitRunsBySubcommand are the git subcommands whose own subcommand word
// runs the command given after it, and what it does.
var gitRunsBySubcommand = map[string]struct{ word, does string }{
	"bisect":    {"run", "runs the command it is given at every step, on other checkouts of the code"},
	"submodule": {"foreach", "runs the command it is given in each submodule"},
}

// gitRunsOther reports the git subcommands that run a command or program
// their words give: difftool -x, bisect run, grep -O, rebase -x, submodule
// foreach, and the upload-pack, receive-pack or archive helper that fetch,
// pull, clone, ls-remote, push and archive run for a local repository.
func gitRunsOther(argv []string) (string, bool) {
	p, _ := Parse(argv)
	if len(p.Path) < 2 {
		return "", false
	}
	sub := p.Path[1]
	named := func(opts ...string) string {
		for _, o := range opts {
			if v := p.Values(o); len(v) > 0 {
				return "--" + o + "=" + v[0]
			}
		}
		return ""
	}
	// unknownHas reports an unknown short cluster holding the letter: git
	// may read it there, this grammar stopped reading.
	unknownHas := func(letter string) bool {
		for _, o := range p.Options {
			if len(o.Name) > 1 && o.Name[0] == '-' && o.Name[1] != '-' && strings.Contains(o.Name, letter) {
				return true
			}
		}
		return false
	}
	if r, ok := gitRunsByOption[sub]; ok {
		if o := named(r.long); o != "" || unknownHas(r.short) {
			return "git " + sub + " " + r.does + " (" + o + ")", true
		}
	}
	if r, ok := gitRunsBySubcommand[sub]; ok && len(p.Path) > 2 && p.Path[2] == r.word {
		return "git " + sub + " " + r.word + " " + r.does, true
	}
	switch sub {
	case "fetch", "pull", "clone", "ls-remote", "push", "archive":
		if o := named("upload-pack", "receive-pack", "exec"); o != "" {
			return "git " + sub + " runs the program it is given as the other side (" + o + ")", true
		}
	}
	return "", false
}
