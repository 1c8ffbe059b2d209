package command

import (
	"regexp"
	"strings"
	"sync"
)

// Inline is code an interpreter receives in its arguments.
type Inline struct {
	// Lang names the interpreter ("python", "perl", "awk", "vim", …).
	Lang string
	// Code is the code, several pieces joined by newlines.
	Code string
	// Known is false when some piece of the code is not in the words
	// (read from a file, such as awk -f or vim -S).
	Known bool
	// Words are the indices in argv of the words that hold the code, so
	// a caller can tell whether they are literal.
	Words []int
}

// InlineCode returns the code that argv (argv[0] is the program) passes
// to an interpreter: python -c, perl -e/-E, ruby -e, node/deno/bun -e or
// -p, php -r, lua -e, Rscript -e, pwsh -c, tclsh (none), awk's program,
// vim/ex -c/+cmd/--cmd. ok is false when argv passes no inline code.
func InlineCode(argv []string) (Inline, bool) { return inlineCode(argv) }

// Literal reports whether every word of the code is literal, by lit (per
// word of argv, as package shell reports it): code made by a
// substitution ($(curl …)) is not known before the command runs.
func (in Inline) Literal(lit []bool) bool {
	for _, i := range in.Words {
		if i < len(lit) && !lit[i] {
			return false
		}
	}
	return true
}

// inlineNames are the programs inlineCode reads, but for the names of
// any length of Python (python3.12, pypy3) and Lua (lua5.4), which start
// with p or l.
var inlineNames = []string{"perl", "ruby", "luajit", "Rscript", "node", "nodejs", "bun", "deno", "php", "pwsh", "powershell",
	"osascript", "awk", "gawk", "mawk", "nawk", "busybox-awk", "vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff", "rvim"}

// inlineFilter has a bit for the length and first byte of every name of
// inlineNames, so that most programs skip inlineCode's comparisons.
var inlineFilter = func() (f [32]uint32) {
	for _, n := range inlineNames {
		f[len(n)&31] |= 1 << (n[0] & 31)
	}
	return f
}()

// mayRunInline reports whether name may be a program inlineCode reads.
func mayRunInline(name string) bool {
	if name == "" {
		return false
	}
	if c := name[0]; c == 'p' || c == 'l' {
		return true
	}
	return inlineFilter[len(name)&31]&(1<<(name[0]&31)) != 0
}

func inlineCode(argv []string) (Inline, bool) {
	if len(argv) < 2 {
		return Inline{}, false
	}
	name := base(argv[0])
	if !mayRunInline(name) {
		return Inline{}, false
	}
	switch {
	case IsPython(name):
		return flagCode(argv, "python", "c", nil, true)
	case name == "perl" || name == "ruby" || name == "lua" || strings.HasPrefix(name, "lua5") || name == "luajit" || name == "Rscript":
		lang := name
		if strings.HasPrefix(name, "lua") {
			lang = "lua"
		}
		return flagCode(argv, lang, "eE", []string{"--eval", "--expr"}, false)
	case name == "node" || name == "nodejs" || name == "bun" || name == "deno":
		if name == "deno" && len(argv) > 2 && argv[1] == "eval" {
			return Inline{Lang: "node", Code: strings.Join(argv[2:], " "), Known: true, Words: []int{2}}, true
		}
		return flagCode(argv, "node", "ep", []string{"--eval", "--print"}, true)
	case name == "php":
		return flagCode(argv, "php", "rR", []string{"--run"}, true)
	case name == "pwsh" || name == "powershell":
		for i := 1; i+1 < len(argv); i++ {
			switch strings.ToLower(argv[i]) {
			case "-c", "-command", "-encodedcommand", "-ec", "-e":
				words := make([]int, 0, len(argv)-i-1)
				for k := i + 1; k < len(argv); k++ {
					words = append(words, k)
				}
				return Inline{Lang: "powershell", Code: strings.Join(argv[i+1:], " "), Known: !strings.HasPrefix(strings.ToLower(argv[i]), "-e"), Words: words}, true
			}
		}
	case name == "osascript":
		return flagCode(argv, "applescript", "e", nil, false)
	case isAwk(name):
		return awkCode(argv)
	case name == "vim" || name == "vi" || name == "nvim" || name == "ex" || name == "view" || name == "gvim" || name == "vimdiff" || name == "rvim":
		return vimCode(argv)
	}
	return Inline{}, false
}

// IsPython reports whether name is a Python interpreter (python,
// python3.12, pypy3, …).
func IsPython(name string) bool {
	if name == "python" || name == "python2" || name == "python3" || name == "pypy" || name == "pypy3" || name == "py" {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "python"); ok {
		return strings.Trim(rest, "0123456789.") == ""
	}
	return false
}

func isAwk(name string) bool {
	return name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "busybox-awk"
}

// flagCode collects the values of the code options (short letters, which
// may end a cluster as in perl -ne, and long names). With first set, the
// first code option ends the interpreter's own options (python -c CODE
// ARGS…).
func flagCode(argv []string, lang, letters string, long []string, first bool) (Inline, bool) {
	var parts []string
	var words []int
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, has := strings.Cut(a, "=")
			for _, l := range long {
				if name == l {
					if !has && i+1 < len(argv) {
						i++
						val = argv[i]
					}
					parts = append(parts, val)
					words = append(words, i)
				}
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(letters, a[j]) < 0 {
				continue
			}
			val := a[j+1:]
			if val == "" && i+1 < len(argv) {
				i++
				val = argv[i]
			}
			parts = append(parts, val)
			words = append(words, i)
			break
		}
		if first && len(parts) > 0 {
			break
		}
	}
	if len(parts) == 0 {
		return Inline{}, false
	}
	return Inline{Lang: lang, Code: strings.Join(parts, "\n"), Known: true, Words: words}, true
}

// awkCode returns awk's program: the first operand, unless -f names a
// program file (then the code is not known).
func awkCode(argv []string) (Inline, bool) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			if i+1 < len(argv) {
				return Inline{Lang: "awk", Code: argv[i+1], Known: true, Words: []int{i + 1}}, true
			}
			return Inline{}, false
		case a == "-f" || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "-f") && len(a) > 2:
			return Inline{Lang: "awk", Known: false}, true
		case a == "-v" || a == "-F" || a == "--assign" || a == "--field-separator":
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			return Inline{Lang: "awk", Code: a, Known: true, Words: []int{i}}, true
		}
	}
	return Inline{}, false
}

// vimCode returns the Ex commands vim runs from its arguments (-c CMD,
// +CMD, --cmd CMD); -S FILE and -s FILE make the code unknown.
func vimCode(argv []string) (Inline, bool) {
	in := Inline{Lang: "vim", Known: true}
	found := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			i = len(argv)
		case a == "-c" || a == "--cmd":
			if i+1 < len(argv) {
				i++
				in.Code += argv[i] + "\n"
				in.Words = append(in.Words, i)
				found = true
			}
		case strings.HasPrefix(a, "+") && len(a) > 1:
			if strings.Trim(a[1:], "0123456789") != "" {
				in.Code += a[1:] + "\n"
				in.Words = append(in.Words, i)
				found = true
			}
		case a == "-S" || a == "-s" || strings.HasPrefix(a, "-S"):
			in.Known, found = false, true
			if a == "-S" || a == "-s" {
				i++
			}
		}
	}
	if base(argv[0]) == "ex" && !found {
		// ex reads its commands from standard input when it has no
		// terminal; what it runs is not in the words.
		return Inline{Lang: "vim", Known: false}, true
	}
	return in, found
}

// Effects are what a piece of inline code may do, as far as its text
// shows.
type Effects struct {
	// Net: it uses the network.
	Net bool
	// Secret: it reads the environment or credential files.
	Secret bool
	// Exec: it starts other programs or evaluates code.
	Exec bool
	// Destroy: it deletes, moves or changes the mode of files, or kills
	// processes.
	Destroy bool
	// Write: it writes files.
	Write bool
	// Dynamic: it evaluates code or looks names up when it runs (eval,
	// getattr, __import__, importlib, send, a name pasted together from
	// strings, …), so what it runs need not be in its text.
	Dynamic bool
}

// Any reports whether the code does anything beyond computing.
func (e Effects) Any() bool { return e.Net || e.Secret || e.Exec || e.Destroy || e.Write }

// codeRegexps are the patterns CodeEffects and the awk and vim readers
// match inline code against.
type codeRegexps struct {
	codeNet, codeSecret, codeExec, codeDestroy, codeWrite, codeDynamic *regexp.Regexp
	awkExec, awkWrite, vimExec, vimWrite                               *regexp.Regexp
}

// codeRE compiles the patterns on first use, not when warden starts: a
// sandbox's helper is warden started again and never reads code.
var codeRE = sync.OnceValue(func() *codeRegexps {
	return &codeRegexps{
		codeNet:     regexp.MustCompile(`urllib|requests\.|http\.client|httpx|socket|urlopen|fetch\(|XMLHttpRequest|https?\.request|net\.connect|LWP|HTTP::|IO::Socket|Net::|smtplib|ftplib|paramiko|Net::HTTP|open-uri|curl_|fsockopen|Invoke-WebRequest|Invoke-RestMethod|WebClient|/inet/`),
		codeSecret:  regexp.MustCompile(`os\.environ|process\.env|%ENV|\$ENV\{|ENV\[|getenv|\.ssh/|\.aws/|/etc/shadow|\.env\b|id_rsa|id_ed25519|credentials|\.netrc|\.kube/config|keychain|Cookies|Login Data|Web Data|cookies\.sqlite|key4\.db|logins\.json|\.git-credentials|printenv`),
		codeExec:    regexp.MustCompile(`os\.system|subprocess|os\.popen|os\.exec|pty\.spawn|\bexec\s*\(|\beval\s*\(|\bsystem\s*\(|\bsystem\b|\bexec\b|child_process|spawn\(|` + "`" + `|qx[/{(]|Runtime\.getRuntime|Process\.Start|Start-Process|Invoke-Expression|\biex\b|os\.startfile|ctypes|__import__|\bpopen\b|shell_exec|passthru|proc_open|IO\.popen|%x[({]|\bopen\s*\([^)]*\|`),
		codeDestroy: regexp.MustCompile(`rmtree|os\.remove|\.rmSync|\.unlinkSync|\.rmdirSync|\.rm\(|os\.unlink|os\.rmdir|unlink\s*\(|rmdir\s*\(|rm_rf|fs\.rm|rimraf|shutil\.move|os\.chmod|chmod|os\.kill|truncate|Remove-Item|\bunlink\b|FileUtils\.rm|File\.delete|os\.rename`),
		codeDynamic: regexp.MustCompile(`getattr|setattr|methodcaller|attrgetter|__import__|__builtins__|__dict__|__class__|__subclasses__|__globals__|__getattribute__|__loader__|importlib|sys\.modules|\bglobals\s*\(|\bvars\s*\(|\bcompile\s*\(|\beval\b|\bexec\w*\s*\(|\bspawn\w*\s*\(|\bfork\s*\(|\bsend\s*\(|public_send|instance_eval|class_eval|\bFunction\s*\(|process\.binding|process\.dlopen|require\s*\(\s*[^'"\s)]|import\s*\(\s*[^'"\s)]|\bsubst\b|\buplevel\b|ctypes|\bcffi\b|dlopen|\bsyscall\b|import\s+\*|\w['"]\s*[+.]\s*['"]\w|fromCharCode`),
		codeWrite:   regexp.MustCompile(`open\([^)]*['"][wax]b?\+?['"]|write_text|write_bytes|writeFile|fs\.write|File\.write|>\s*\$|print\s*\{|open\s*\(\s*[A-Z$]\w*\s*,\s*['"]?[>+]|Set-Content|Out-File|file_put_contents|fopen\([^)]*['"][wax]`),
		// awk: system(), commands piped to or from (print | "cmd", "cmd" |
		// getline), output redirected to files (print > "f").
		awkExec:  regexp.MustCompile(`\bsystem\s*\(|\|\s*getline|\|&|\bprintf?\b[^;}]*\|`),
		awkWrite: regexp.MustCompile(`\bprintf?\b[^;}]*>`),
		// vim: shell commands (:!, :r !, :w !, system(), :terminal), script
		// languages, writes.
		vimExec:  regexp.MustCompile(`(^|[\s:|])(!|r(ead)?\s*!|w(rite)?\s*!|ter(minal)?\b|py(thon)?3?\b|pyx?\b|lua\b|perl\b|ruby\b|tcl\b|so(urce)?\b|call\b|exe(cute)?\b)|system\s*\(|systemlist\s*\(|libcall`),
		vimWrite: regexp.MustCompile(`(^|[\s:|])(w(rite)?|wq|x(it)?|sav(eas)?|up(date)?|wa(ll)?|wqa(ll)?|xa(ll)?)\b`),
	}
})

// CodeEffects reads what inline code may do from its text, in the
// interpreter's language.
func CodeEffects(in Inline) Effects {
	code := in.Code
	switch in.Lang {
	case "awk":
		return Effects{Exec: codeRE().awkExec.MatchString(code), Write: codeRE().awkWrite.MatchString(code), Net: codeRE().codeNet.MatchString(code)}
	case "vim":
		return Effects{Exec: codeRE().vimExec.MatchString(code), Write: codeRE().vimWrite.MatchString(code)}
	}
	return Effects{
		Net:     codeRE().codeNet.MatchString(code),
		Secret:  codeRE().codeSecret.MatchString(code),
		Exec:    codeRE().codeExec.MatchString(code),
		Destroy: codeRE().codeDestroy.MatchString(code),
		Write:   codeRE().codeWrite.MatchString(code),
		Dynamic: codeRE().codeDynamic.MatchString(code),
	}
}
