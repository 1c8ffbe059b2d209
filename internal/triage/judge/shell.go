package judge

import (
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/protection"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// JudgeShell judges a shell action.
func JudgeShell(v *Judgement, a *action.Action, set *rules.Set) {
	if len(a.Command) == 0 {
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "shell action without a command"})
		return
	}
	s := NewScript(v, set, a.Cwd)
	s.Escalated = a.Escalated()
	s.ReadOnly = a.Sandbox == "read-only"
	var sc *shell.Script
	if script, ok := shellScript(a.Command); ok {
		p, err := shell.Parse(script)
		if err != nil {
			v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "the script cannot be parsed: " + err.Error()})
			return
		}
		sc = p
		s.loopVars(sc.Loops)
		if strings.Contains(script, "${!") {
			// ${!name} reads the variable another variable names:
			// what it uses is not in the script's words.
			v.Add(Finding{vocab.Escalate, vocab.CredentialProbing, Medium, "the script uses indirect expansion (${!name}), which hides which variable it reads"})
		}
		if XargsRunsShell(script) {
			v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "the script has xargs run a shell on commands built from its input"})
		}
		if m := devtoolsCookies(script); m != "" {
			// The DevTools protocol's cookie and storage reads, sent
			// to a browser's debugging port by any client.
			v.Add(Finding{vocab.Escalate, vocab.CredentialProbing, High, "the script asks a browser's debugging protocol for its cookies or storage (" + m + ")"})
		}
	} else {
		sc = shell.FromArgs(a.Command)
	}
	s.usePrior(v.prior)
	s.script(sc)
	s.checkPrior(v.prior)
	s.heredocPatches(a, set)
	// The paths a blocked command asks to write (SPEC G2): judged where
	// they resolve, after what the script itself did.
	for _, p := range a.Paths {
		c := &Command{Text: textcut.Shorten(strings.Join(a.Command, " "), 160) + " (writing " + p + ")", Cwd: s.Cwd}
		s.Write(c, s.Where(p, s.Cwd), "")
	}
}

// loopVars gives the variables of loops over files (for f in *.txt, find
// … | while read f), as the shell syntax tree shows them, the directory
// they walk, so that "$f" is judged as a file found there.
func (s *Script) loopVars(loops []shell.Loop) {
	for _, l := range loops {
		s.loopVar(l.Var, l.Root)
	}
}

func (s *Script) loopVar(name, root string) {
	if s.Vars == nil {
		s.Vars = map[string]string{}
	}
	if root == "" {
		s.Vars[name] = unresolved
		return
	}
	if _, seen := s.Vars[name]; seen {
		s.Vars[name] = unresolved
		return
	}
	s.Vars[name] = strings.TrimSuffix(root, "/") + "/\x01"
}

// shellScript returns SCRIPT when argv is a shell running it with -c
// (["bash","-lc",SCRIPT]).
func shellScript(argv []string) (string, bool) {
	if len(argv) < 3 || !shell.IsShell(argv[0]) {
		return "", false
	}
	i := 1
	for ; i < len(argv)-1; i++ {
		a := argv[i]
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			break
		}
		if strings.IndexByte(a, 'c') > 0 {
			if i+1 < len(argv) {
				return argv[i+1], true
			}
		}
	}
	return "", false
}

// JudgeText judges text as a script that will run later in the
// directory cwd ("" when unknown): shell start-up lines, aliases.
func (s *Script) JudgeText(text, cwd string) Verdict {
	v, _ := s.judgeLater(text, cwd)
	return v
}

// judgeLater is judgeText, also reporting whether the text downloads code
// and runs it.
func (s *Script) judgeLater(text, cwd string) (Verdict, bool) {
	v := Judgement{K: s.V.K, fresh: s.V.fresh}
	if s.depth > 3 {
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "nested too deeply to judge"})
		return v.result(), false
	}
	sub := &Script{V: &v, set: s.set, Home: s.Home, Work: s.Work, Cwd: cwd, depth: s.depth + 1,
		Escalated: s.Escalated, links: s.links, state: s.state, stateSet: s.stateSet, workDisk: s.workDisk}
	sc, err := shell.Parse(text)
	if err != nil {
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "content cannot be parsed as shell"})
		return v.result(), false
	}
	sub.script(sc)
	return v.result(), sub.fetchRun
}

// script judges a parsed script.
func (s *Script) script(sc *shell.Script) {
	if len(sc.Commands) == 0 {
		if sc.Opaque {
			s.Esc(vocab.Routine, Medium, "the script cannot be analysed: "+strings.Join(sc.Reasons, "; "))
			return
		}
		s.Allow("empty script")
		return
	}
	matches := rules.MatchAll(s.set, sc)
	s.collectVars(sc.Commands)
	s.Cmds = s.commands(len(sc.Commands))
	cwd := s.Cwd
	for i := range sc.Commands {
		c := &s.Cmds[i]
		c.Sc = &sc.Commands[i]
		c.Cwd = cwd
		s.prepare(c)
		// cd changes the directory of the commands after it.
		if c.Name == "cd" || c.Name == "pushd" {
			cwd = s.chdir(c)
		}
	}
	for _, m := range matches {
		c := &s.Cmds[m.Command]
		if m.Possible {
			c.rule = c.rule.Stricter(rules.Prompt)
		} else {
			c.rule = c.rule.Stricter(m.Rule.Decision)
			c.ruleSeen = true
		}
		if m.Rule.Decision.Strictness() > 0 && c.ruleWhy == "" {
			c.ruleWhy = m.Rule.String()
			if m.Rule.Justification != "" {
				c.ruleWhy += " (" + m.Rule.Justification + ")"
			}
		}
	}
	for i := range s.Cmds {
		s.command(&s.Cmds[i])
	}
	s.flows()
	if sc.Opaque {
		s.Esc(vocab.Routine, Medium, "part of the script cannot be analysed: "+strings.Join(sc.Reasons, "; "))
	}
}

// prepare expands the words of c.
func (s *Script) prepare(c *Command) {
	sc := c.Sc
	c.Text = textcut.Shorten(sc.Text, 160)
	if len(sc.Args) == 0 {
		return
	}
	c.Args, c.Known = s.words(len(sc.Args))
	saved := s.Cwd
	s.Cwd = c.Cwd
	s.positional = ""
	if n := len(sc.Wrappers); n > 1 {
		// sh -c '… "$1" …' run by find -exec or xargs: the positional
		// parameters are the items found.
		for k := n - 2; k >= 0; k-- {
			w := sc.Wrappers[k]
			if strings.HasPrefix(w, "find ") || w == "xargs" {
				if strings.HasSuffix(sc.Wrappers[k+1], " -c") {
					if w == "xargs" {
						s.positional = s.xargsRoot(c)
					} else {
						s.positional = s.lastFindRoot()
					}
				}
				break
			}
		}
	}
	for i, w := range sc.Args {
		if sc.Literal[i] {
			c.Args[i], c.Known[i] = w, true
			continue
		}
		c.Args[i], c.Known[i] = s.expand(w)
	}
	s.Cwd = saved
	s.positional = ""
	c.Name = shell.Base(c.Args[0])
	if n := len(sc.Wrappers); n > 0 {
		switch w := sc.Wrappers[n-1]; {
		case strings.HasPrefix(w, "find "):
			c.items = s.lastFindRoot()
		case w == "xargs":
			c.items = s.xargsRoot(c)
		}
		if c.items != "" {
			for i := 1; i < len(c.Args); i++ {
				if strings.Contains(c.Args[i], "{}") {
					c.Args[i] = strings.ReplaceAll(c.Args[i], "{}", c.items+"/\x01")
					c.Known[i] = false
				}
			}
			if sc.Wrappers[n-1] == "xargs" && !hasReplace(c) {
				c.Args = append(c.Args, c.items+"/\x01")
				c.Known = append(c.Known, false)
			}
		}
	}
	if c.Name == "find" {
		roots := command.FindRoots(c.Args)
		if len(roots) > 0 {
			root := roots[0]
			// find . -name __pycache__ -exec rm -rf {} +: the items are
			// named by the one -name pattern.
			if name := findName(c.Args); name != "" && !strings.ContainsAny(root, "$`") {
				root = strings.TrimSuffix(root, "/") + "/" + name
			}
			s.findRoots = append(s.findRoots[:0], root)
		}
	}
}

// findName returns the file name pattern of a find with exactly one
// -name (or -iname) test and no alternatives, "" otherwise.
func findName(args []string) string {
	name := ""
	for i := 1; i < len(args); i++ {
		switch args[i] {
		case "-o", "-or", "-not", "!", "-path", "-ipath", "-regex", "-iregex", "-wholename":
			return ""
		case "-name", "-iname":
			if name != "" || i+1 >= len(args) || strings.ContainsAny(args[i+1], "/$`") {
				return ""
			}
			name = args[i+1]
		}
	}
	return name
}

// hasReplace reports whether an xargs-run command took its input through a
// replacement string ({} was substituted).
func hasReplace(c *Command) bool {
	for _, a := range c.Args[1:] {
		if strings.Contains(a, "\x01") {
			return true
		}
	}
	return false
}

func (s *Script) lastFindRoot() string {
	if len(s.findRoots) == 0 {
		return "\x00"
	}
	return s.findRoots[0]
}

// xargsRoot finds where the items xargs reads come from: the root of a
// find, fd, ls or git ls-files earlier in the same pipeline.
func (s *Script) xargsRoot(c *Command) string {
	if c.Sc.Pipeline == 0 {
		return "\x00"
	}
	for i := range s.Cmds {
		d := &s.Cmds[i]
		if d.Sc == c.Sc {
			break
		}
		if d.Sc == nil || d.Sc.Pipeline != c.Sc.Pipeline || d.Sc.Stage >= c.Sc.Stage || len(d.Args) == 0 {
			continue
		}
		switch d.Name {
		case "find":
			if r := command.FindRoots(d.Args); len(r) > 0 {
				return r[0]
			}
		case "ls", "fd", "fdfind", "git", "grep", "rg", "locate":
			ops := shell.Operands(d.Args, "")
			for _, o := range ops {
				if strings.HasPrefix(o, "/") || strings.HasPrefix(o, "~") {
					return o
				}
			}
			if d.Name == "locate" {
				return "/"
			}
			return "."
		}
	}
	return "\x00"
}

// chdir returns the directory after c (cd or pushd).
func (s *Script) chdir(c *Command) string {
	ops := shell.Operands(c.Args, "")
	if len(ops) == 0 {
		if s.Home != "" {
			return s.Home
		}
		return ""
	}
	t := ops[0]
	if t == "-" || strings.Contains(t, "$") || strings.Contains(t, "`") {
		return ""
	}
	pl := s.Where(t, c.Cwd)
	if pl.Abs == "" || strings.HasPrefix(pl.Abs, "~") {
		return ""
	}
	return pl.Abs
}

// Findings.

// command judges one simple command.
func (s *Script) command(c *Command) {
	sc := c.Sc
	for _, a := range sc.Assigns {
		s.envAssign(c, a)
	}
	for _, r := range sc.Redirects {
		t, _ := s.expand(r)
		s.Write(c, s.Where(t, c.Cwd), c.Content())
	}
	for _, r := range sc.Inputs {
		// What the command reads on its input goes where its output
		// goes (ssh host cat < ~/.ssh/id_rsa).
		t, _ := s.expand(r)
		s.Read(c, t, c.Name != "wc" && !strings.HasSuffix(c.Name, "sum"))
	}
	if len(c.Args) == 0 {
		if len(sc.Assigns) > 0 || len(sc.Redirects) > 0 {
			s.Allow("assignment")
		}
		return
	}
	if strings.Contains(sc.Text, "WARDEN_HOME") || strings.Contains(sc.Text, "WARDEN_MANAGED_CONFIG") {
		s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` touches warden's own state")
	}
	if c.rule == rules.Forbidden && c.ruleSeen {
		s.Deny(vocab.Routine, "`"+c.Text+"` is forbidden by the exec rule "+c.ruleWhy)
		return
	}
	if c.rule.Strictness() >= rules.Prompt.Strictness() {
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` needs approval by the exec rule "+c.ruleWhy)
	}
	if !c.Known[0] {
		s.Esc(vocab.Routine, Medium, "the program `"+c.Args[0]+"` is not known before the script runs")
		return
	}
	if sc.Unwrapped {
		s.wrapper(c)
		return
	}
	if sc.Func != "" && c.Name == sc.Func {
		s.Esc(vocab.Destructive, High, "`"+c.Text+"`: the function "+sc.Func+" calls itself (a fork bomb when it runs in the background)")
		return
	}
	if c.Name == "echo" || c.Name == "printf" {
		for _, w := range sc.Args[1:] {
			if vs := secret.Vars(w); len(vs) > 0 {
				s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` prints the secret $"+vs[0])
				break
			}
		}
	}
	if r, ok := command.RunsOther(c.Args); ok && c.Known[0] {
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"`: "+r+", whose effect is not in the request")
	}
	in, ok := command.InlineCode(c.Args)
	if ok && in.Code != "" {
		if w := codeSecret(in.Code); w != "" {
			s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` runs "+in.Lang+" code that reads "+w)
		} else if w := protection.BrowserScriptSecret(s.V.K, in.Code); w != "" {
			s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` runs "+in.Lang+" code that handles "+w)
		}
	}
	if ok && !in.Literal(c.Known) {
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` runs "+in.Lang+" code made when the command runs, which the request does not show")
	} else if ok && (!in.Known || in.Lang == "awk" || in.Lang == "vim") {
		if e := command.CodeEffects(in); !in.Known || e.Exec {
			s.Esc(vocab.Routine, Medium, "`"+c.Text+"` runs "+in.Lang+" code that starts other programs, or that the request does not show")
		} else if e.Write && in.Lang == "vim" {
			s.Esc(vocab.Routine, Low, "`"+c.Text+"` writes files from vim commands")
		}
	}
	if s.Escalated && command.IsPython(c.Name) && pythonImportsCwd(c.Args) {
		// python -m and -c put the working directory first on sys.path:
		// outside the sandbox, a json.py or sitecustomize.py the agent
		// wrote in the workspace runs instead of the standard module.
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` imports modules from the working directory, which the agent can write")
	}
	if s.Escalated && (c.Name == "node" || c.Name == "nodejs" || c.Name == "bun") && nodeLoadsModules(c.Args) {
		// require and import look in the working directory's
		// node_modules first, which the agent can write.
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` loads modules from the working directory, which the agent can write")
	}
	if c.Name == "make" || c.Name == "gmake" {
		if r := command.MakefileFromInput(c.Args); r != "" {
			s.Esc(vocab.Routine, Medium, "`"+c.Text+"`: "+r)
		}
	}
	s.reach(c)
	if r := optionEffect(c); r != "" {
		s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` "+r)
	}
	if writesText(c) {
		text := sc.Text
		if sc.Doc != "" {
			text += "\n" + sc.Doc
		}
		if r := protection.RemovesProtection(s.V.K, text, ""); r != "" {
			s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` writes `"+r+"`, which removes a protection")
		}
	}
	before := *s.V
	if commandJudge == nil {
		// A first pass assembled without its judges of programs (package
		// triage imports them) passes every command on.
		s.Esc(vocab.Routine, Medium, "no judge of programs is registered to judge `"+c.Text+"`")
	} else {
		commandJudge(s, c)
	}
	if c.ruleSeen && c.rule == rules.Allow && s.V.Worst.Dec == vocab.Escalate && before.Worst.Rank() < s.V.Worst.Rank() &&
		s.V.Worst.Class == vocab.Routine {
		// An exec rule allows what triage only found unclear.
		*s.V = before
		s.Allow("`" + c.Text + "` is allowed by an exec rule")
	}
}

// wrapper judges a command that runs another (the one it runs is its own
// entry).
func (s *Script) wrapper(c *Command) {
	switch c.Name {
	case "trap":
		if shell.HasWord(c.Args, "DEBUG", "RETURN", "ERR") {
			s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` runs code before every command (a command logger)")
			return
		}
		s.Allow("trap")
	case "sudo", "doas", "pkexec", "su", "runuser":
		s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` runs with elevated privileges")
	case "chroot":
		s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` runs in another root")
	case "find":
		s.judgeNamed("find", c)
	case "watch":
		s.Allow("watch")
	default:
		// env, nice, timeout, nohup, xargs, bash -c, eval, exec, time, …
		for _, a := range c.Sc.Assigns {
			s.envAssign(c, a)
		}
		if c.Name == "env" {
			for _, a := range c.Args[1:] {
				if IsAssignWord(a) {
					s.envAssign(c, a)
				}
			}
		}
		s.Allow(c.Name)
	}
}

// IsAssignWord reports whether the word w is a variable assignment (NAME=value).
func IsAssignWord(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && IsName(name)
}

// envAssign judges NAME=value given to one command.
func (s *Script) envAssign(c *Command, a string) {
	name, val, _ := strings.Cut(a, "=")
	v, _ := s.expand(val)
	if r := TlsOffVar(name, v); r != "" {
		s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` "+r+" for this command")
	}
	if r := HistoryOff(name, v); r != "" {
		s.Esc(vocab.SecurityWeakening, High, r)
	}
	if name == "LD_PRELOAD" || name == "DYLD_INSERT_LIBRARIES" {
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` preloads a library ("+name+")")
	} else if CodeVar(name) {
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` sets "+name+", which chooses what code runs")
	}
}

// CodeVar reports whether an environment variable chooses which code a
// program runs (where it finds programs, start-up files, libraries,
// interpreter options, git's configuration and helpers): a command given
// one runs code whose text is not in the request.
func CodeVar(name string) bool {
	switch name {
	case "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH",
		"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PERL5LIB", "PERLLIB", "PERL5OPT",
		"RUBYLIB", "RUBYOPT", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
		"CLASSPATH", "LD_LIBRARY_PATH", "LD_AUDIT", "GCONV_PATH", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR",
		"PAGER", "EDITOR", "VISUAL", "MANPAGER", "MANOPT", "LESSOPEN", "LESSCLOSE", "BROWSER", "SUDO_ASKPASS", "SSH_ASKPASS",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_ASKPASS", "GIT_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF",
		"GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_SEQUENCE_EDITOR":
		return true
	}
	return strings.HasPrefix(name, "GIT_CONFIG") || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_")
}

// TlsOffVar describes an environment variable setting that turns TLS
// verification off.
func TlsOffVar(name, v string) string {
	switch name {
	case "NODE_TLS_REJECT_UNAUTHORIZED":
		if v == "0" {
			return "turns TLS certificate verification off (NODE_TLS_REJECT_UNAUTHORIZED=0)"
		}
	case "GIT_SSL_NO_VERIFY", "PYTHONHTTPSVERIFY", "CURL_INSECURE":
		if name == "PYTHONHTTPSVERIFY" && v == "0" || name != "PYTHONHTTPSVERIFY" && v != "" && v != "0" && v != "false" {
			return "turns TLS certificate verification off (" + name + ")"
		}
	case "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE":
		if v == "*" {
			return "turns Go module verification off (" + name + ")"
		}
	case "GOSUMDB":
		if v == "off" {
			return "turns Go module verification off (GOSUMDB=off)"
		}
	}
	return ""
}

// HistoryOff says how assigning v to the variable name turns shell history
// off (command.HistoryAssign), "" when it does not.
func HistoryOff(name, v string) string {
	switch command.HistoryAssign(name, v) {
	case command.HistoryDisabled:
		if name == "HISTFILE" {
			return "disables shell history (" + name + ")"
		}
		return "disables shell history (" + name + "=" + v + ")"
	case command.HistoryHidden:
		return "hides commands from shell history (" + name + ")"
	}
	return ""
}

// pythonImportsCwd reports whether a Python command line puts the working
// directory on sys.path: -m, -c, or code read from standard input (-I and
// -P keep it off).
func pythonImportsCwd(args []string) bool {
	for _, a := range args[1:] {
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return a == "-" || a == "--"
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if strings.ContainsAny(a[1:], "IP") {
			return false
		}
		if strings.ContainsAny(a[1:], "mc") {
			return true
		}
	}
	return true // the interactive interpreter, or a script on standard input
}

// nodeLoadsModules reports whether a node command line runs inline code
// that loads modules (require, import) or reads code from standard input.
func nodeLoadsModules(args []string) bool {
	for i, a := range args[1:] {
		switch {
		case a == "-e" || a == "-p" || a == "--eval" || a == "--print" || a == "-pe":
			if i+2 < len(args) {
				code := args[i+2]
				return strings.Contains(code, "require") || strings.Contains(code, "import")
			}
			return true
		case strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--print="):
			return strings.Contains(a, "require") || strings.Contains(a, "import")
		case a == "-" || a == "--":
			return true
		case a == "-r" || a == "--require" || a == "--import" || strings.HasPrefix(a, "--require=") || strings.HasPrefix(a, "--import="):
			return true
		case !strings.HasPrefix(a, "-"):
			return false
		}
	}
	return len(args) == 1
}

// XargsRunsShell reports whether the script has xargs run a shell with a
// command built from its input: the word xargs, then, before the next |,
// ;, & or newline, the word sh, bash, zsh, dash or ksh followed by
// blanks and -c. It reads as the regular expression
// \bxargs\b[^|;&\n]*\b(sh|bash|zsh|dash|ksh)\s+-c\b does (a test
// compares them), in one pass instead of backtracking.
func XargsRunsShell(script string) bool {
	for i := 0; ; {
		j := strings.Index(script[i:], "xargs")
		if j < 0 {
			return false
		}
		start := i + j
		end := start + len("xargs")
		i = end
		if !wordEdge(script, start) || !wordEdge(script, end) {
			continue
		}
		stop := len(script)
		if k := strings.IndexAny(script[end:], "|;&\n"); k >= 0 {
			stop = end + k
		}
		for p := end; p < stop; p++ {
			if !wordEdge(script, p) {
				continue
			}
			for _, sh := range [...]string{"sh", "bash", "zsh", "dash", "ksh"} {
				if strings.HasPrefix(script[p:], sh) && p+len(sh) <= stop && dashCAfter(script, p+len(sh)) {
					return true
				}
			}
		}
	}
}

// dashCAfter reports whether s[i:] is one or more blanks (\s), then -c
// ending a word.
func dashCAfter(s string, i int) bool {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\f' || s[j] == '\r') {
		j++
	}
	return j > i && strings.HasPrefix(s[j:], "-c") && wordEdge(s, j+2)
}

// wordEdge reports whether i is a word boundary of s, as \b is for ASCII
// word characters.
func wordEdge(s string, i int) bool {
	isWord := func(k int) bool {
		if k < 0 || k >= len(s) {
			return false
		}
		c := s[k]
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return isWord(i-1) != isWord(i)
}

// devtoolsMethods are the DevTools protocol's methods that return a
// browser's cookies or stored data.
var devtoolsMethods = []string{"Network.getAllCookies", "Network.getCookies", "Storage.getCookies", "DOMStorage.getDOMStorageItems",
	"IndexedDB.requestData", "Storage.getStorageKeyForFrame"}

// devtoolsCookies returns the first DevTools method of script that reads
// cookies or storage, "" when there is none.
func devtoolsCookies(script string) string {
	if !strings.Contains(script, "Storage") && !strings.Contains(script, "Cookies") && !strings.Contains(script, "IndexedDB") {
		return ""
	}
	for _, m := range devtoolsMethods {
		if strings.Contains(script, m) {
			return m
		}
	}
	return ""
}

// heredocPatches judges the diffs the script gives git apply or patch as
// here-documents as the file edits they make (a protection a diff removes
// is the same whichever tool applies it).
func (s *Script) heredocPatches(a *action.Action, set *rules.Set) {
	for i := range s.Cmds {
		c := &s.Cmds[i]
		if c.Sc == nil || c.Sc.Doc == "" || len(c.Args) == 0 {
			continue
		}
		if c.Name != "patch" && !(c.Name == "git" && shell.HasWord(c.Args, "apply", "am")) {
			continue
		}
		for _, p := range diffFiles(c.Sc.Doc) {
			dir := c.Cwd
			if dir == "" {
				dir = a.Cwd
			}
			edit := action.Action{Kind: action.FileEdit, Path: p, Operation: "apply_patch", Patch: c.Sc.Doc, Cwd: dir,
				Sandbox: a.Sandbox, SandboxPermissions: a.SandboxPermissions}
			actionJudges[action.FileEdit](s.V, &edit, set)
		}
	}
}

// diffFiles returns the files a unified diff or an apply_patch text
// changes (at most 16), without a/ and b/ prefixes.
func diffFiles(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		var p string
		switch {
		case strings.HasPrefix(l, "+++ "):
			p = strings.TrimPrefix(strings.Fields(l[4:] + " ")[0], "b/")
		case strings.HasPrefix(l, "*** Update File: "), strings.HasPrefix(l, "*** Add File: "):
			p = strings.TrimSpace(l[strings.Index(l, ":")+1:])
		default:
			continue
		}
		if p != "" && p != "/dev/null" && len(out) < 16 {
			out = append(out, p)
		}
	}
	return out
}
