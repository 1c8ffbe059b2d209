package triage

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

// sh is the state of judging one shell script.
type sh struct {
	v     *verdict
	set   *rules.Set
	home  string   // the user's home directory, "" when unknown ("~" paths stay as they are)
	work  string   // the workspace root
	roots []string // the configured writable roots, resolved: judged as the workspace
	cwd   string   // the current directory, "" when unknown
	depth int      // nesting of judged content (rc file lines, aliases)

	escalated bool              // the command runs outside the sandbox if approved
	readOnly  bool              // the sandbox is read-only: no write is routine
	mcpHome   bool              // an MCP call: its server's roots, not warden's sandbox, bound its writes
	links     map[string]string // symbolic links the script makes: resolved link path → target
	state     []string          // warden's own state: $WARDEN_HOME, ~/.warden, the managed config (see wardenDirs)
	stateSet  bool              // state is computed
	workDisk  bool              // the workspace exists on this machine, so links in it are looked up

	vars     map[string]string
	mentions []string // literal values assigned anywhere in the script
	cmds     []cmd

	// found while judging, for the flows between commands
	positional  string            // what $1… stand for while expanding a command ("" unknown)
	remoteSink  bool              // a command sends data to a remote host
	fetchRun    bool              // a download is piped into a shell
	tainted     map[string]int    // files the script filled with secrets (copies, archives)
	wrote       []string          // files the script writes, resolved
	secretAlias map[string]string // variables assigned from a secret variable: name → secret
	findRoots   []string
}

// cmd is one simple command of the script, with its words expanded.
type cmd struct {
	sc    *shell.Command
	name  string   // base name of the program
	args  []string // the words, expanded as far as possible
	known []bool   // whether each word is fully known
	text  string   // the command as written, shortened, for messages
	cwd   string   // the directory it runs in ("" unknown)
	items string   // the root of the paths find -exec or xargs feed it ("" none, "\x00" unknown)

	out     int    // the secret level of what it prints
	outWhat string // and what that is
	sink    bool   // it sends its standard input to a remote host

	rule     rules.Decision // strictest decision of the exec rules that matched it
	ruleSeen bool           // an exec rule matched it with certainty
	ruleWhy  string
}

// virtualWork stands for the workspace when the action does not say where
// it runs.
const virtualWork = "/.workspace"

func newSh(v *verdict, set *rules.Set, cwd string) *sh {
	s := &sh{v: v, set: set}
	if cwd == "" {
		s.work, s.cwd = virtualWork, virtualWork
		s.writableRoots()
		return s
	}
	cwd = cleanPath(cwd)
	if r, exists, ok := v.k.resolveWork(cwd); ok {
		cwd, s.workDisk = r, exists
	}
	s.home = homeOf(cwd)
	s.cwd = cwd
	s.work = cwd
	// A workspace at / or at a system directory is no workspace at all.
	if noWorkspace(cwd) {
		s.work = virtualWork
	}
	s.writableRoots()
	return s
}

// writableRoots sets s.roots from the run's configured writable roots,
// resolved, leaving out those that bound nothing.
func (s *sh) writableRoots() {
	if s.v.k == nil {
		return
	}
	for _, r := range s.v.k.roots {
		r = cleanPath(r)
		if !strings.HasPrefix(r, "/") {
			continue
		}
		if got, ok := s.v.k.resolveDir(r); ok {
			r = got
		}
		if !noWorkspace(r) && r != s.home {
			s.roots = append(s.roots, r)
		}
	}
}

// noWorkspace reports whether a directory is too broad to be a workspace or
// a writable root judged as one: the file system, a top-level or critical
// system directory, a directory of homes, the shared temporary directory.
func noWorkspace(dir string) bool {
	return dir == "/" || topLevel[dir] || criticalSystemPath(dir) || dir == "/home" || dir == "/Users" || dir == "/tmp"
}

// judgeShell judges a shell action.
func judgeShell(v *verdict, a *action.Action, set *rules.Set) {
	if len(a.Command) == 0 {
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "shell action without a command"})
		return
	}
	s := newSh(v, set, a.Cwd)
	s.escalated = a.Escalated()
	s.readOnly = a.Sandbox == "read-only"
	var sc *shell.Script
	if script, ok := shellScript(a.Command); ok {
		p, err := shell.Parse(script)
		if err != nil {
			v.add(finding{vocab.Escalate, vocab.Routine, medium, "the script cannot be parsed: " + err.Error()})
			return
		}
		sc = p
		s.loopVars(sc.Loops)
		if strings.Contains(script, "${!") {
			// ${!name} reads the variable another variable names:
			// what it uses is not in the script's words.
			v.add(finding{vocab.Escalate, vocab.CredentialProbing, medium, "the script uses indirect expansion (${!name}), which hides which variable it reads"})
		}
		if xargsRunsShell(script) {
			v.add(finding{vocab.Escalate, vocab.Routine, medium, "the script has xargs run a shell on commands built from its input"})
		}
		if m := devtoolsCookies(script); m != "" {
			// The DevTools protocol's cookie and storage reads, sent
			// to a browser's debugging port by any client.
			v.add(finding{vocab.Escalate, vocab.CredentialProbing, high, "the script asks a browser's debugging protocol for its cookies or storage (" + m + ")"})
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
		c := &cmd{text: textcut.Shorten(strings.Join(a.Command, " "), 160) + " (writing " + p + ")", cwd: s.cwd}
		s.write(c, s.where(p, s.cwd), "")
	}
}

// loopVars gives the variables of loops over files (for f in *.txt, find
// … | while read f), as the shell syntax tree shows them, the directory
// they walk, so that "$f" is judged as a file found there.
func (s *sh) loopVars(loops []shell.Loop) {
	for _, l := range loops {
		s.loopVar(l.Var, l.Root)
	}
}

func (s *sh) loopVar(name, root string) {
	if s.vars == nil {
		s.vars = map[string]string{}
	}
	if root == "" {
		s.vars[name] = unresolved
		return
	}
	if _, seen := s.vars[name]; seen {
		s.vars[name] = unresolved
		return
	}
	s.vars[name] = strings.TrimSuffix(root, "/") + "/\x01"
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

// judgeText judges text as a script that will run later in the
// directory cwd ("" when unknown): shell start-up lines, aliases.
func (s *sh) judgeText(text, cwd string) Verdict {
	v, _ := s.judgeLater(text, cwd)
	return v
}

// judgeLater is judgeText, also reporting whether the text downloads code
// and runs it.
func (s *sh) judgeLater(text, cwd string) (Verdict, bool) {
	v := verdict{k: s.v.k}
	if s.depth > 3 {
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "nested too deeply to judge"})
		return v.result(), false
	}
	sub := &sh{v: &v, set: s.set, home: s.home, work: s.work, cwd: cwd, depth: s.depth + 1,
		escalated: s.escalated, links: s.links, state: s.state, stateSet: s.stateSet, workDisk: s.workDisk}
	sc, err := shell.Parse(text)
	if err != nil {
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "content cannot be parsed as shell"})
		return v.result(), false
	}
	sub.script(sc)
	return v.result(), sub.fetchRun
}

// script judges a parsed script.
func (s *sh) script(sc *shell.Script) {
	if len(sc.Commands) == 0 {
		if sc.Opaque {
			s.esc(vocab.Routine, medium, "the script cannot be analysed: "+strings.Join(sc.Reasons, "; "))
			return
		}
		s.allow("empty script")
		return
	}
	matches := rules.MatchAll(s.set, sc)
	s.collectVars(sc.Commands)
	s.cmds = make([]cmd, len(sc.Commands))
	cwd := s.cwd
	for i := range sc.Commands {
		c := &s.cmds[i]
		c.sc = &sc.Commands[i]
		c.cwd = cwd
		s.prepare(c)
		// cd changes the directory of the commands after it.
		if c.name == "cd" || c.name == "pushd" {
			cwd = s.chdir(c)
		}
	}
	for _, m := range matches {
		c := &s.cmds[m.Command]
		if m.Possible {
			c.rule = max(c.rule, rules.Prompt)
		} else {
			c.rule = max(c.rule, m.Rule.Decision)
			c.ruleSeen = true
		}
		if m.Rule.Decision > rules.Allow && c.ruleWhy == "" {
			c.ruleWhy = m.Rule.String()
			if m.Rule.Justification != "" {
				c.ruleWhy += " (" + m.Rule.Justification + ")"
			}
		}
	}
	for i := range s.cmds {
		s.command(&s.cmds[i])
	}
	s.flows()
	if sc.Opaque {
		s.esc(vocab.Routine, medium, "part of the script cannot be analysed: "+strings.Join(sc.Reasons, "; "))
	}
}

// prepare expands the words of c.
func (s *sh) prepare(c *cmd) {
	sc := c.sc
	c.text = textcut.Shorten(sc.Text, 160)
	if len(sc.Args) == 0 {
		return
	}
	c.args = make([]string, len(sc.Args))
	c.known = make([]bool, len(sc.Args))
	saved := s.cwd
	s.cwd = c.cwd
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
			c.args[i], c.known[i] = w, true
			continue
		}
		c.args[i], c.known[i] = s.expand(w)
	}
	s.cwd = saved
	s.positional = ""
	c.name = shell.Base(c.args[0])
	if n := len(sc.Wrappers); n > 0 {
		switch w := sc.Wrappers[n-1]; {
		case strings.HasPrefix(w, "find "):
			c.items = s.lastFindRoot()
		case w == "xargs":
			c.items = s.xargsRoot(c)
		}
		if c.items != "" {
			for i := 1; i < len(c.args); i++ {
				if strings.Contains(c.args[i], "{}") {
					c.args[i] = strings.ReplaceAll(c.args[i], "{}", c.items+"/\x01")
					c.known[i] = false
				}
			}
			if sc.Wrappers[n-1] == "xargs" && !hasReplace(c) {
				c.args = append(c.args, c.items+"/\x01")
				c.known = append(c.known, false)
			}
		}
	}
	if c.name == "find" {
		roots := command.FindRoots(c.args)
		if len(roots) > 0 {
			root := roots[0]
			// find . -name __pycache__ -exec rm -rf {} +: the items are
			// named by the one -name pattern.
			if name := findName(c.args); name != "" && !strings.ContainsAny(root, "$`") {
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
func hasReplace(c *cmd) bool {
	for _, a := range c.args[1:] {
		if strings.Contains(a, "\x01") {
			return true
		}
	}
	return false
}

func (s *sh) lastFindRoot() string {
	if len(s.findRoots) == 0 {
		return "\x00"
	}
	return s.findRoots[0]
}

// xargsRoot finds where the items xargs reads come from: the root of a
// find, fd, ls or git ls-files earlier in the same pipeline.
func (s *sh) xargsRoot(c *cmd) string {
	if c.sc.Pipeline == 0 {
		return "\x00"
	}
	for i := range s.cmds {
		d := &s.cmds[i]
		if d.sc == c.sc {
			break
		}
		if d.sc == nil || d.sc.Pipeline != c.sc.Pipeline || d.sc.Stage >= c.sc.Stage || len(d.args) == 0 {
			continue
		}
		switch d.name {
		case "find":
			if r := command.FindRoots(d.args); len(r) > 0 {
				return r[0]
			}
		case "ls", "fd", "fdfind", "git", "grep", "rg", "locate":
			ops := shell.Operands(d.args, "")
			for _, o := range ops {
				if strings.HasPrefix(o, "/") || strings.HasPrefix(o, "~") {
					return o
				}
			}
			if d.name == "locate" {
				return "/"
			}
			return "."
		}
	}
	return "\x00"
}

// chdir returns the directory after c (cd or pushd).
func (s *sh) chdir(c *cmd) string {
	ops := shell.Operands(c.args, "")
	if len(ops) == 0 {
		if s.home != "" {
			return s.home
		}
		return ""
	}
	t := ops[0]
	if t == "-" || strings.Contains(t, "$") || strings.Contains(t, "`") {
		return ""
	}
	pl := s.where(t, c.cwd)
	if pl.abs == "" || strings.HasPrefix(pl.abs, "~") {
		return ""
	}
	return pl.abs
}

// Findings.

func (s *sh) allow(reason string) { s.v.add(finding{vocab.Allow, vocab.Routine, low, reason}) }

func (s *sh) esc(class vocab.Class, risk int, reason string) {
	s.v.add(finding{vocab.Escalate, class, risk, reason})
}

func (s *sh) deny(class vocab.Class, reason string) {
	s.v.add(finding{vocab.Deny, class, critical, reason})
}

// command judges one simple command.
func (s *sh) command(c *cmd) {
	sc := c.sc
	for _, a := range sc.Assigns {
		s.envAssign(c, a)
	}
	for _, r := range sc.Redirects {
		t, _ := s.expand(r)
		s.write(c, s.where(t, c.cwd), c.content())
	}
	for _, r := range sc.Inputs {
		// What the command reads on its input goes where its output
		// goes (ssh host cat < ~/.ssh/id_rsa).
		t, _ := s.expand(r)
		s.read(c, t, c.name != "wc" && !strings.HasSuffix(c.name, "sum"))
	}
	if len(c.args) == 0 {
		if len(sc.Assigns) > 0 || len(sc.Redirects) > 0 {
			s.allow("assignment")
		}
		return
	}
	if strings.Contains(sc.Text, "WARDEN_HOME") || strings.Contains(sc.Text, "WARDEN_MANAGED_CONFIG") {
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` touches warden's own state")
	}
	if c.rule == rules.Forbidden && c.ruleSeen {
		s.deny(vocab.Routine, "`"+c.text+"` is forbidden by the exec rule "+c.ruleWhy)
		return
	}
	if c.rule >= rules.Prompt {
		s.esc(vocab.Routine, medium, "`"+c.text+"` needs approval by the exec rule "+c.ruleWhy)
	}
	if !c.known[0] {
		s.esc(vocab.Routine, medium, "the program `"+c.args[0]+"` is not known before the script runs")
		return
	}
	if sc.Unwrapped {
		s.wrapper(c)
		return
	}
	if sc.Func != "" && c.name == sc.Func {
		s.esc(vocab.Destructive, high, "`"+c.text+"`: the function "+sc.Func+" calls itself (a fork bomb when it runs in the background)")
		return
	}
	if c.name == "echo" || c.name == "printf" {
		for _, w := range sc.Args[1:] {
			if vs := secret.Vars(w); len(vs) > 0 {
				s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints the secret $"+vs[0])
				break
			}
		}
	}
	if r, ok := command.RunsOther(c.args); ok && c.known[0] {
		s.esc(vocab.Routine, medium, "`"+c.text+"`: "+r+", whose effect is not in the request")
	}
	in, ok := command.InlineCode(c.args)
	if ok && in.Code != "" {
		if w := codeSecret(in.Code); w != "" {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` runs "+in.Lang+" code that reads "+w)
		} else if w := protection.BrowserScriptSecret(s.v.k, in.Code); w != "" {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` runs "+in.Lang+" code that handles "+w)
		}
	}
	if ok && !in.Literal(c.known) {
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs "+in.Lang+" code made when the command runs, which the request does not show")
	} else if ok && (!in.Known || in.Lang == "awk" || in.Lang == "vim") {
		if e := command.CodeEffects(in); !in.Known || e.Exec {
			s.esc(vocab.Routine, medium, "`"+c.text+"` runs "+in.Lang+" code that starts other programs, or that the request does not show")
		} else if e.Write && in.Lang == "vim" {
			s.esc(vocab.Routine, low, "`"+c.text+"` writes files from vim commands")
		}
	}
	if s.escalated && isPython(c.name) && pythonImportsCwd(c.args) {
		// python -m and -c put the working directory first on sys.path:
		// outside the sandbox, a json.py or sitecustomize.py the agent
		// wrote in the workspace runs instead of the standard module.
		s.esc(vocab.Routine, medium, "`"+c.text+"` imports modules from the working directory, which the agent can write")
	}
	if s.escalated && (c.name == "node" || c.name == "nodejs" || c.name == "bun") && nodeLoadsModules(c.args) {
		// require and import look in the working directory's
		// node_modules first, which the agent can write.
		s.esc(vocab.Routine, medium, "`"+c.text+"` loads modules from the working directory, which the agent can write")
	}
	if c.name == "make" || c.name == "gmake" {
		if r := command.MakefileFromInput(c.args); r != "" {
			s.esc(vocab.Routine, medium, "`"+c.text+"`: "+r)
		}
	}
	s.reach(c)
	if r := optionEffect(c); r != "" {
		s.esc(vocab.CredentialProbing, high, "`"+c.text+"` "+r)
	}
	if writesText(c) {
		text := sc.Text
		if sc.Doc != "" {
			text += "\n" + sc.Doc
		}
		if r := protection.RemovesProtection(s.v.k, text, ""); r != "" {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes `"+r+"`, which removes a protection")
		}
	}
	before := *s.v
	commandJudge(s, c)
	if c.ruleSeen && c.rule == rules.Allow && s.v.worst.dec == vocab.Escalate && before.worst.rank() < s.v.worst.rank() &&
		s.v.worst.class == vocab.Routine {
		// An exec rule allows what triage only found unclear.
		*s.v = before
		s.allow("`" + c.text + "` is allowed by an exec rule")
	}
}

// content returns what an echo or printf writes, "" otherwise.
func (c *cmd) content() string {
	switch c.name {
	case "echo", "printf":
		var parts []string
		for i := 1; i < len(c.args); i++ {
			if c.name == "echo" && i == 1 && strings.HasPrefix(c.args[i], "-") {
				continue
			}
			parts = append(parts, c.args[i])
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// wrapper judges a command that runs another (the one it runs is its own
// entry).
func (s *sh) wrapper(c *cmd) {
	switch c.name {
	case "trap":
		if shell.HasWord(c.args, "DEBUG", "RETURN", "ERR") {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` runs code before every command (a command logger)")
			return
		}
		s.allow("trap")
	case "sudo", "doas", "pkexec", "su", "runuser":
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` runs with elevated privileges")
	case "chroot":
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` runs in another root")
	case "find":
		s.judgeNamed("find", c)
	case "watch":
		s.allow("watch")
	default:
		// env, nice, timeout, nohup, xargs, bash -c, eval, exec, time, …
		for _, a := range c.sc.Assigns {
			s.envAssign(c, a)
		}
		if c.name == "env" {
			for _, a := range c.args[1:] {
				if isAssignWord(a) {
					s.envAssign(c, a)
				}
			}
		}
		s.allow(c.name)
	}
}

func isAssignWord(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && isName(name)
}

// envAssign judges NAME=value given to one command.
func (s *sh) envAssign(c *cmd, a string) {
	name, val, _ := strings.Cut(a, "=")
	v, _ := s.expand(val)
	if r := tlsOffVar(name, v); r != "" {
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` "+r+" for this command")
	}
	if r := historyOff(name, v); r != "" {
		s.esc(vocab.SecurityWeakening, high, r)
	}
	if name == "LD_PRELOAD" || name == "DYLD_INSERT_LIBRARIES" {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` preloads a library ("+name+")")
	} else if codeVar(name) {
		s.esc(vocab.Routine, medium, "`"+c.text+"` sets "+name+", which chooses what code runs")
	}
}

// codeVar reports whether an environment variable chooses which code a
// program runs (where it finds programs, start-up files, libraries,
// interpreter options, git's configuration and helpers): a command given
// one runs code whose text is not in the request.
func codeVar(name string) bool {
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

// tlsOffVar describes an environment variable setting that turns TLS
// verification off.
func tlsOffVar(name, v string) string {
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

func historyOff(name, v string) string {
	switch name {
	case "HISTFILE":
		if v == "" || v == "/dev/null" {
			return "disables shell history (" + name + ")"
		}
	case "HISTSIZE", "HISTFILESIZE", "SAVEHIST":
		if v == "0" || v == "" {
			return "disables shell history (" + name + "=" + v + ")"
		}
	case "HISTCONTROL", "HISTIGNORE":
		if strings.Contains(v, "ignorespace") || strings.Contains(v, "ignoreboth") || strings.Contains(v, "*") {
			return "hides commands from shell history (" + name + ")"
		}
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

// xargsRunsShell reports whether the script has xargs run a shell with a
// command built from its input: the word xargs, then, before the next |,
// ;, & or newline, the word sh, bash, zsh, dash or ksh followed by
// blanks and -c. It reads as the regular expression
// \bxargs\b[^|;&\n]*\b(sh|bash|zsh|dash|ksh)\s+-c\b does (a test
// compares them), in one pass instead of backtracking.
func xargsRunsShell(script string) bool {
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
func (s *sh) heredocPatches(a *action.Action, set *rules.Set) {
	for i := range s.cmds {
		c := &s.cmds[i]
		if c.sc == nil || c.sc.Doc == "" || len(c.args) == 0 {
			continue
		}
		if c.name != "patch" && !(c.name == "git" && shell.HasWord(c.args, "apply", "am")) {
			continue
		}
		for _, p := range diffFiles(c.sc.Doc) {
			dir := c.cwd
			if dir == "" {
				dir = a.Cwd
			}
			edit := action.Action{Kind: action.FileEdit, Path: p, Operation: "apply_patch", Patch: c.sc.Doc, Cwd: dir,
				Sandbox: a.Sandbox, SandboxPermissions: a.SandboxPermissions}
			actionJudges[action.FileEdit](s.v, &edit, set)
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
