package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = registerJudges(map[string]func(*sh, *cmd){
	"alias":         judgeAlias,
	"awk":           judgeAwk,
	"base64":        judgeBase64,
	"date":          judgeDate,
	"dig":           judgeDig,
	"dmesg":         judgeDmesg,
	"env":           judgeEnv,
	"export":        judgeExport,
	"fd":            judgeFd,
	"find":          judgeFind,
	"getent":        judgeGetent,
	"grep":          judgeGrep,
	"hash":          judgeHash,
	"history":       judgeHistory,
	"hostname":      judgeHostname,
	"ifconfig":      judgeIfconfig,
	"ip":            judgeIP,
	"journal":       judgeJournal,
	"kill":          judgeKill,
	"locate":        judgeLocate,
	"multiplexer":   judgeMultiplexer,
	"printenv":      judgePrintenv,
	"route":         judgeRoute,
	"script_cmd":    judgeScriptCmd,
	"sed":           judgeSed,
	"set":           judgeSet,
	"shell_program": judgeShellProgram,
	"sort":          judgeSort,
	"source":        judgeSource,
	"tee":           judgeTee,
	"tree":          judgeTree,
	"uniq":          judgeUniq,
	"unset":         judgeUnset,
	"xxd":           judgeXxd,
})

// programJudge returns the judge of program name, if the programs file
// gives it one (see knowledge.go and programs.yaml).
func (s *sh) programJudge(name string) (func(*sh, *cmd), bool) { return s.v.k.judgeOf(name) }

var _ = registerCommandJudge(judgeProgram)

// judgeProgram judges a command that is not a wrapper.
func judgeProgram(s *sh, c *cmd) {
	if s.v.k.has(c.name, factRunsProject) {
		if s.escalated {
			s.esc(vocab.Routine, medium, "`"+c.text+"` builds or runs the project's code, whose text is not in the request, outside the sandbox")
		}
		if pl := s.where(".", c.cwd); pl.zone != zWork {
			s.esc(vocab.Routine, medium, "`"+c.text+"` builds or runs the code of "+orName(pl.abs, "a directory")+", outside the workspace")
		}
	} else if s.escalated && (strings.HasPrefix(c.name, "pip") || s.v.k.has(c.name, factInstalls) || isPython(c.name) && shell.HasWord(c.args, "pip")) {
		s.esc(vocab.Routine, medium, "`"+c.text+"` installs packages, whose install code is not in the request, outside the sandbox")
	}
	if s.v.k.has(c.name, factRunsProject) || s.v.k.isRunner(strings.ToLower(c.name)) {
		// A secret given to code whose text is not in the request (go
		// run ./dump.go ~/.ssh/id_ed25519).
		for _, op := range shell.Operands(c.args[1:], "") {
			if !strings.HasPrefix(op, "/") && !strings.HasPrefix(op, "~") {
				continue
			}
			if l, what := s.secret(s.where(op, c.cwd)); l > secret.None {
				s.esc(vocab.CredentialProbing, high, "`"+c.text+"` gives "+what+" to code whose text is not in the request")
				break
			}
		}
	}
	if w := revealOption(c); w != "" {
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` asks to show stored secrets ("+w+")")
	}
	if f, ok := s.programJudge(c.name); ok {
		f(s, c)
		return
	}
	switch {
	case strings.HasPrefix(c.name, "mkfs") || strings.HasPrefix(c.name, "newfs") || strings.HasPrefix(c.name, "mke2fs"):
		judgeMkfs(s, c)
		return
	case isPython(c.name):
		judgePython(s, c)
		return
	case strings.HasPrefix(c.name, "pip3") || strings.HasPrefix(c.name, "pip"):
		judgePip(s, c, 1)
		return
	}
	if strings.IndexByte(c.args[0], '/') >= 0 {
		judgeLocalProgram(s, c)
		return
	}
	judgeUnknown(s, c)
}

// classOfRule maps the class prefix of a rules.Dangerous reason.
func classOfRule(r string) vocab.Class {
	switch {
	case strings.HasPrefix(r, "destructive:"):
		return vocab.Destructive
	case strings.HasPrefix(r, "exfiltration:"):
		return vocab.Exfiltration
	case strings.HasPrefix(r, "credentials:"):
		return vocab.CredentialProbing
	case strings.HasPrefix(r, "security:"):
		return vocab.SecurityWeakening
	}
	return vocab.Routine
}

// judgeLocalProgram judges a program given by a path: a system directory
// names the program itself; the workspace holds the project's scripts;
// anything else is passed on.
func judgeLocalProgram(s *sh, c *cmd) {
	p := c.args[0]
	for _, d := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/"} {
		if strings.HasPrefix(p, d) {
			c2 := *c
			c2.args = append([]string{c.name}, c.args[1:]...)
			if _, ok := s.programJudge(c.name); ok {
				judgeProgram(s, &c2)
				return
			}
		}
	}
	pl := s.where(p, c.cwd)
	for _, d := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/"} {
		if strings.HasPrefix(pl.abs, d) {
			// A link to a system program (.venv/bin/python): judged
			// as the program it is called as.
			if _, ok := s.programJudge(c.name); ok || isPython(c.name) {
				c2 := *c
				c2.args = append([]string{c.name}, c.args[1:]...)
				judgeProgram(s, &c2)
				return
			}
		}
	}
	if pl.zone == zWork {
		// A tool installed in the project (.venv/bin/pip, node_modules/.bin/x,
		// ./gradlew, ./mvnw) is judged by its name.
		switch {
		case isPython(c.name) || strings.HasPrefix(c.name, "pip"):
			c2 := *c
			c2.args = append([]string{c.name}, c.args[1:]...)
			judgeProgram(s, &c2)
			return
		case c.name == "gradlew" || c.name == "mvnw":
			judgeBuildTool(s, c)
			return
		case strings.Contains(p, "node_modules/.bin/") || strings.Contains(p, ".venv/bin/") || strings.Contains(p, "venv/bin/"):
			if _, ok := s.programJudge(c.name); ok {
				c2 := *c
				c2.args = append([]string{c.name}, c.args[1:]...)
				judgeProgram(s, &c2)
				return
			}
		}
		if t := offensiveScript(p); t != "" {
			s.deny(vocab.CredentialProbing, "`"+c.text+"` runs "+t+", a credential dumping or attack tool")
			return
		}
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs "+p+", whose code is not in the request")
		return
	}
	s.esc(vocab.Routine, medium, "`"+c.text+"` runs "+p+" from "+pl.zone.String())
}

func judgeXxd(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "clgsoC")
	if shell.HasShort(c.args, 'r', "clgsoC") && len(ops) > 1 {
		s.write(c, s.where(ops[1], c.cwd), "")
	}
	if len(ops) > 0 {
		s.read(c, ops[0], true)
	}
	s.allow("xxd")
}

func judgeBase64(s *sh, c *cmd) {
	for _, p := range shell.Operands(c.args, "w") {
		s.read(c, p, true)
	}
	s.allow("base64")
}

func judgeSort(s *sh, c *cmd) {
	for _, o := range shell.OptValues(c.args, "-o", "output") {
		s.write(c, s.where(o, c.cwd), "")
	}
	if shell.HasLong(c.args, "compress-program") {
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs a compression program")
	}
	for _, p := range shell.Operands(c.args, "kotTS", "key", "output", "field-separator", "temporary-directory", "buffer-size") {
		s.read(c, p, true)
	}
	s.allow("sort")
}

func judgeUniq(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "fsw", "skip-fields", "skip-chars", "check-chars")
	if len(ops) > 0 {
		s.read(c, ops[0], true)
	}
	if len(ops) > 1 {
		s.write(c, s.where(ops[1], c.cwd), "")
	}
	s.allow("uniq")
}

func judgeTree(s *sh, c *cmd) {
	for _, o := range shell.OptValues(c.args, "-o", "output") {
		s.write(c, s.where(o, c.cwd), "")
	}
	for _, p := range shell.Operands(c.args, "LIPoH", "filelimit", "timefmt", "sort", "charset") {
		s.read(c, p, false)
	}
	s.allow("tree")
}

// credentialPattern reports whether a search pattern looks for secrets;
// credentialSearch tries it.
var credentialPattern = pattern.Lazy(`(?i)pass(wd|word)?\b|passw|secret|token|api[_-]?key|apikey|private[ _-]?key|` +
	`BEGIN .*PRIVATE|authtoken|auth_token|aws_secret|access[_-]?key|credential|AKIA|id_rsa|id_ed25519|\.pem\b|ghp_|xox[abp]-|sk_live`)

// credentialHints are the letters every match of credentialPattern holds,
// lower-cased: an ASCII text with none of them cannot match.
var credentialHints = []string{"pass", "secret", "token", "api", "private", "begin", "access", "credential", "akia",
	"id_rsa", "id_ed25519", "pem", "ghp_", "xox", "sk_live"}

// credentialSearch reports whether a search pattern looks for secrets
// (credentialPattern), trying the expression only on text that holds one
// of its words. Text with non-ASCII bytes always goes to the expression:
// its case folding knows letters such as the Kelvin sign.
func credentialSearch(p string) bool {
	ascii := true
	for i := 0; i < len(p); i++ {
		if p[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		l := strings.ToLower(p)
		hint := false
		for _, w := range credentialHints {
			if strings.Contains(l, w) {
				hint = true
				break
			}
		}
		if !hint {
			return false
		}
	}
	return credentialPattern.MatchString(p)
}

// broadRoot reports whether a search root covers the whole system, the
// home directory or other users.
func (s *sh) broadRoot(c *cmd, root string) bool {
	pl := s.where(root, c.cwd)
	if s.broadPath(pl) != "" {
		return true
	}
	switch pl.abs {
	case "/etc", "/var", "/opt", "/srv", "/mnt", "/media", "/Volumes", "/private", "/root":
		return true
	}
	return pl.abs == "~" || pl.abs == s.home && s.home != ""
}

func judgeGrep(s *sh, c *cmd) {
	argShort, argLong := "efmABCdDX", []string{"regexp", "file", "max-count", "after-context", "before-context",
		"context", "devices", "directories", "include", "exclude", "exclude-dir", "label", "color", "colour"}
	if c.name == "rg" || c.name == "ag" || c.name == "ack" {
		argShort = "efgtTmABCMjEr"
		argLong = append(argLong, "glob", "type", "type-not", "max-columns", "threads", "replace", "encoding", "sort", "pre", "pre-glob")
		if shell.HasLong(c.args, "pre", "search-zip") || shell.HasShort(c.args, 'z', argShort) {
			s.esc(vocab.Routine, medium, "`"+c.text+"` runs a preprocessor")
		}
	}
	ops := shell.Operands(c.args, argShort, argLong...)
	patterns := append(shell.OptValues(c.args, "-e", "regexp"), shell.OptValues(c.args, "", "pattern")...)
	if len(patterns) == 0 && len(shell.OptValues(c.args, "-f", "file")) == 0 && len(ops) > 0 {
		patterns, ops = ops[:1], ops[1:]
	}
	recursive := c.name == "rg" || c.name == "ag" || c.name == "ack" || shell.HasShort(c.args, 'r', argShort) ||
		shell.HasShort(c.args, 'R', argShort) || shell.HasLong(c.args, "recursive", "dereference-recursive")
	credential := false
	for _, p := range patterns {
		if credentialSearch(p) {
			credential = true
		}
	}
	if credential && recursive {
		roots := ops
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for _, r := range roots {
			if s.broadRoot(c, r) {
				s.deny(vocab.CredentialProbing, "`"+c.text+"` searches "+r+" for passwords, tokens or keys")
				return
			}
		}
		s.esc(vocab.CredentialProbing, low, "`"+c.text+"` searches for passwords, tokens or keys")
	}
	for _, p := range ops {
		s.read(c, p, !shell.HasShort(c.args, 'l', argShort) && !shell.HasShort(c.args, 'c', argShort) && !shell.HasShort(c.args, 'q', argShort))
	}
	s.allow(c.name)
}

// sedWrites finds the w and e commands of sed scripts, and the w and e
// flags of s commands.
var sedWrites = pattern.Lazy(`(^|[;\n{}]|\d|\$|/)\s*[we]\s|s(.).*?(.).*?(.)[gpIi0-9]*[we]`)

func judgeSed(s *sh, c *cmd) {
	argShort := "efl"
	inPlace := shell.HasShort(c.args, 'i', argShort) || shell.HasLong(c.args, "in-place")
	ops := shell.Operands(c.args, argShort, "expression", "file", "line-length")
	scripts := shell.OptValues(c.args, "-e", "expression")
	if len(scripts) == 0 && len(shell.OptValues(c.args, "-f", "file")) == 0 && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	// -i may take an attached suffix (-i.bak), which operandsOf keeps
	// apart; a bare "" after -i (BSD) is an operand: drop empty words.
	for _, sc := range scripts {
		if strings.ContainsAny(sc, "we") && sedWrites.MatchString(sc) && sedRunsOrWrites(sc) {
			s.esc(vocab.Routine, medium, "`"+c.text+"` has a sed script that writes files or runs commands")
		}
	}
	if inPlace {
		s.inPlaceConfigEdit(c, scripts, ops)
	}
	for _, p := range ops {
		if p == "" {
			continue
		}
		if inPlace {
			s.write(c, s.where(p, c.cwd), "")
		} else {
			s.read(c, p, true)
		}
	}
	s.allow("sed")
}

// sedRunsOrWrites looks closer at a script the quick pattern matched: a w
// or e command at the start of a command, or as a flag of an s command.
func sedRunsOrWrites(script string) bool {
	for _, part := range strings.FieldsFunc(script, func(r rune) bool { return r == ';' || r == '\n' }) {
		p := strings.TrimSpace(part)
		p = strings.TrimLeft(p, "0123456789,$! ")
		if strings.HasPrefix(p, "w ") || strings.HasPrefix(p, "e ") || p == "e" || strings.HasPrefix(p, "W ") {
			return true
		}
		if strings.HasPrefix(p, "s") && len(p) > 1 {
			d := p[1]
			if d == '\\' || d == '\n' || d == ' ' {
				continue
			}
			fields := splitUnescaped(p[2:], d)
			if len(fields) >= 3 {
				flags := fields[2]
				if i := strings.IndexAny(flags, "we"); i >= 0 && !strings.ContainsAny(flags[:i], " ") {
					return true
				}
			}
		}
	}
	return false
}

func splitUnescaped(s string, d byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == d {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var (
	awkRuns   = pattern.Lazy(`system\s*\(|\|\s*getline|\|&|print[^;}]*\|\s*"`)
	awkWrites = pattern.Lazy(`print[f]?[^;}>|]*>>?\s*("([^"]*)"|[A-Za-z_$(])`)
)

func judgeAwk(s *sh, c *cmd) {
	argShort := "fvFW"
	ops := shell.Operands(c.args, argShort, "file", "assign", "field-separator")
	var prog string
	if len(shell.OptValues(c.args, "-f", "file")) == 0 && len(ops) > 0 {
		prog, ops = ops[0], ops[1:]
	}
	if awkRuns.MatchString(prog) {
		s.esc(vocab.Routine, medium, "`"+c.text+"` has an awk program that runs commands")
	}
	for _, m := range awkWrites.FindAllStringSubmatch(prog, -1) {
		if m[2] != "" || strings.HasPrefix(m[1], "\"") {
			s.write(c, s.where(m[2], c.cwd), "")
		} else {
			s.esc(vocab.Routine, low, "`"+c.text+"` has an awk program that writes files it names at run time")
		}
	}
	for _, p := range ops {
		if isAssignWord(p) {
			continue
		}
		s.read(c, p, true)
	}
	s.allow("awk")
}

// secretNamePattern reports whether a file name pattern looks for
// credentials: 2 when it names key or credential files outright (id_rsa,
// *.pem, credentials, .netrc), 1 when it only may (secret, token, .env),
// 0 otherwise.
func secretNamePattern(p string) int {
	l := strings.ToLower(strings.Trim(p, `*"'`))
	if l == "" {
		return 0
	}
	switch {
	case strings.HasPrefix(l, "id_") || strings.Contains(l, "id_rsa") || strings.Contains(l, "id_ed25519") || strings.Contains(l, "id_dsa") || strings.Contains(l, "id_ecdsa"):
		return 2
	case l == ".pem" || l == ".key" || l == "pem" || l == "key" || l == ".p12" || l == ".pfx" || l == ".ppk" || l == ".kdbx" || l == ".keychain" || l == ".keychain-db":
		return 2
	}
	for _, w := range []string{"credentials", "password", "passwd", "shadow", ".netrc", ".pgpass", ".git-credentials",
		"wallet.dat", "access_tokens", "accesstokens", "msal_token", ".gnupg", ".aws", "login data", "logins.json", "key4.db", "cookies.sqlite"} {
		if strings.Contains(l, w) {
			return 2
		}
	}
	for _, w := range []string{"credential", "secret", "token", "authorized_keys", "known_hosts", "keystore", "private",
		".env", "cookies", "history", ".ssh", "vault"} {
		if strings.Contains(l, w) {
			return 1
		}
	}
	return 0
}

func judgeFind(s *sh, c *cmd) {
	roots := command.FindRoots(c.args)
	strength := 0
	for i := 1; i+1 < len(c.args); i++ {
		switch c.args[i] {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
			strength = max(strength, secretNamePattern(c.args[i+1]))
		}
	}
	secretNames := strength > 0
	broad := false
	for _, r := range roots {
		if s.broadRoot(c, r) {
			broad = true
		}
		pl := s.where(r, c.cwd)
		if level, what := s.secret(pl); level > secret.None {
			if secretNames {
				s.deny(vocab.CredentialProbing, "`"+c.text+"` searches "+what+" for credentials")
				return
			}
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` searches "+what)
		}
	}
	if secretNames {
		if broad && strength == 2 {
			s.deny(vocab.CredentialProbing, "`"+c.text+"` searches the file system for keys or credentials")
			return
		}
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` searches for keys or credentials")
	}
	for i := 1; i < len(c.args); i++ {
		switch c.args[i] {
		case "-delete":
			for _, r := range roots {
				s.remove(c, strings.TrimSuffix(r, "/")+"/\x01", true)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(c.args) {
				s.write(c, s.where(c.args[i+1], c.cwd), "")
			}
		}
	}
	s.allow("find")
}

func judgeFd(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "eEtdSxXjc", "exec", "exec-batch", "extension", "exclude", "type", "max-depth", "size", "changed-within", "changed-before")
	if len(ops) > 0 && secretNamePattern(ops[0]) > 0 {
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` searches for keys or credentials")
	}
	s.allow(c.name)
}

func judgeLocate(s *sh, c *cmd) {
	for _, p := range shell.Operands(c.args, "dlnr") {
		if secretNamePattern(p) == 2 {
			s.deny(vocab.CredentialProbing, "`"+c.text+"` searches the file system for keys or credentials")
			return
		}
	}
	s.allow(c.name)
}

func judgeGetent(s *sh, c *cmd) {
	if shell.HasWord(c.args, "shadow", "gshadow") {
		s.deny(vocab.CredentialProbing, "`"+c.text+"` reads password hashes")
		return
	}
	if shell.HasWord(c.args, "passwd", "group") && len(c.args) == 2 {
		s.esc(vocab.CredentialProbing, low, "`"+c.text+"` lists the system's accounts")
		return
	}
	s.allow("getent")
}

// envDump describes a command that prints the whole environment (with its
// tokens), "" for any other.
func envDump(c *cmd) string {
	switch c.name {
	case "env", "printenv":
		if c.name == "env" && (shell.HasShort(c.args, 'i', "uCS") || shell.HasWord(c.args, "-", "--ignore-environment")) {
			return "" // an empty environment
		}
		if len(shell.Operands(c.args, "u")) == 0 && !c.sc.Unwrapped {
			return "the whole environment"
		}
	case "set", "export", "declare", "typeset":
		if len(c.args) == 1 || len(c.args) == 2 && (c.args[1] == "-p" || c.args[1] == "-x") {
			return "every variable"
		}
	case "compgen":
		if shell.HasShort(c.args, 'v', "") || shell.HasShort(c.args, 'e', "") {
			return "every variable name"
		}
	}
	return ""
}

func judgePrintenv(s *sh, c *cmd) {
	if envDump(c) != "" {
		s.envDumpUse(c)
		return
	}
	for _, v := range shell.Operands(c.args, "") {
		if secret.IsVarName(v) {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints the secret "+v)
			return
		}
	}
	s.allow("printenv")
}

func judgeEnv(s *sh, c *cmd) {
	if envDump(c) != "" {
		s.envDumpUse(c)
		return
	}
	s.allow("env")
}

// passesLines reports whether the stages of a pipeline strictly between
// from and to only reorder or pass on lines (sort, uniq, cat), so that the
// stage to sees what stage from prints.
func (s *sh) passesLines(pipeline, from, to int) bool {
	for i := range s.cmds {
		d := &s.cmds[i]
		if d.sc.Pipeline != pipeline || d.sc.Stage <= from || d.sc.Stage >= to {
			continue
		}
		switch d.name {
		case "sort", "uniq", "cat", "tac":
		default:
			return false
		}
	}
	return true
}

// envDumpUse judges printing the environment: piping it to a search for
// secrets is probing, to a harmless search routine, anything else is
// passed on.
func (s *sh) envDumpUse(c *cmd) {
	c.out, c.outWhat = secret.Critical, "the whole environment"
	if c.sc.Pipeline > 0 {
		for i := range s.cmds {
			d := &s.cmds[i]
			if d.sc.Pipeline != c.sc.Pipeline || d.sc.Stage <= c.sc.Stage || len(d.args) == 0 || !s.passesLines(c.sc.Pipeline, c.sc.Stage, d.sc.Stage) {
				continue
			}
			switch d.name {
			case "grep", "egrep", "fgrep", "rg":
				pats := shell.OptValues(d.args, "-e", "regexp")
				if len(pats) == 0 {
					if ops := shell.Operands(d.args, "efmABCdD"); len(ops) > 0 {
						pats = ops[:1]
					}
				}
				for _, p := range pats {
					if credentialSearch(p) || strings.Contains(strings.ToLower(p), "key") {
						s.deny(vocab.CredentialProbing, "`"+c.text+" | "+d.text+"` searches the environment for secrets")
						return
					}
				}
				if len(pats) > 0 && !shell.HasShort(d.args, 'v', "efmABCdD") {
					s.allow("searches the environment")
					return
				}
			case "wc", "sort", "cut", "head":
			}
		}
	}
	c.out, c.outWhat = secret.Critical, "the whole environment"
	s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` prints "+envDump(c)+", tokens included")
}

func judgeSet(s *sh, c *cmd) {
	if envDump(c) != "" {
		s.envDumpUse(c)
		return
	}
	for i := 1; i+1 < len(c.args); i++ {
		if c.args[i] == "+o" && c.args[i+1] == "history" {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` disables shell history")
			return
		}
	}
	s.allow("set")
}

// judgeHash judges hash: -p NAME binds a command name to a file of the
// caller's choosing, so later commands of that name run other code.
func judgeHash(s *sh, c *cmd) {
	for _, a := range c.args[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "p") {
			s.esc(vocab.Routine, medium, "`"+c.text+"` binds a command name to another program")
			return
		}
	}
	s.allow("hash")
}

func judgeExport(s *sh, c *cmd) {
	if envDump(c) != "" {
		s.envDumpUse(c)
		return
	}
	for _, a := range c.args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		if r := historyOff(name, val); r != "" {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` "+r)
		}
		if r := tlsOffVar(name, val); r != "" {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` "+r+" for this shell")
		}
		if name == "LD_PRELOAD" || name == "PROMPT_COMMAND" || name == "BASH_ENV" || name == "ENV" {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` sets "+name+", which runs code")
		} else if codeVar(name) {
			s.esc(vocab.Routine, medium, "`"+c.text+"` sets "+name+", which chooses what code later commands run")
		}
	}
	s.allow(c.name)
}

func judgeAlias(s *sh, c *cmd) {
	for _, a := range c.args[1:] {
		name, val, ok := strings.Cut(a, "=")
		if !ok || strings.HasPrefix(a, "-") {
			continue
		}
		sub := s.judgeText(val, "")
		if sub.Decision == vocab.Deny {
			s.deny(sub.Class, "`"+c.text+"` defines the alias "+name+" as harmful code: "+sub.Reason)
			return
		}
		if sub.Decision == vocab.Escalate {
			s.esc(sub.Class, medium, "`"+c.text+"` defines the alias "+name+": "+sub.Reason)
		}
		switch name {
		case "sudo", "su", "ls", "cd", "cp", "rm", "git", "ssh", "cat", "grep", "find", "chmod", "chown", "apt-get", "apt", "mv":
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` redefines "+name)
		}
	}
	s.allow("alias")
}

func judgeUnset(s *sh, c *cmd) {
	if shell.HasWord(c.args, "HISTFILE", "HISTSIZE", "HISTFILESIZE") {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` disables shell history")
		return
	}
	s.allow("unset")
}

func judgeHistory(s *sh, c *cmd) {
	if shell.HasShort(c.args, 'c', "d") || shell.HasShort(c.args, 'd', "") || shell.HasShort(c.args, 'w', "") || shell.HasShort(c.args, 'r', "") {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` rewrites shell history")
		return
	}
	s.allow("history")
}

func judgeDate(s *sh, c *cmd) {
	for _, a := range c.args[1:] {
		if strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--set") {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` sets the system clock")
			return
		}
	}
	s.allow("date")
}

func judgeHostname(s *sh, c *cmd) {
	for _, a := range c.args[1:] {
		if !strings.HasPrefix(a, "-") || a == "-F" || strings.HasPrefix(a, "--file") || a == "-b" || a == "--boot" {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes the host name")
			return
		}
	}
	s.allow("hostname")
}

// judgeDig: a name built at run time can carry data out through DNS.
func judgeDig(s *sh, c *cmd) {
	for i, a := range c.args[1:] {
		if !c.known[i+1] && (strings.Contains(a, "$(") || strings.Contains(a, "`")) {
			s.esc(vocab.Exfiltration, high, "`"+c.text+"` looks up a name built from command output (DNS can carry data out)")
			return
		}
		if !c.known[i+1] && strings.Contains(a, "$") {
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` looks up a name that is not known before it runs (DNS can carry data out)")
			return
		}
	}
	s.allow(c.name)
}

func judgeKill(s *sh, c *cmd) {
	k := command.Kill(c.args)
	if k.List {
		s.allow("kill -l")
		return
	}
	signal, pids := k.Signal, k.Targets
	if signal == "0" {
		s.allow("kill -0")
		return
	}
	for _, a := range pids {
		switch {
		case a == "-1" || a == "1" || a == "0":
			s.deny(vocab.Destructive, "`"+c.text+"` signals every process or init")
			return
		case strings.HasPrefix(a, "%"):
		case a != "" && strings.Trim(a, "0123456789") == "":
		default:
			s.esc(vocab.Destructive, medium, "`"+c.text+"` signals processes chosen at run time")
			return
		}
	}
	s.allow("kill")
}

func judgeMultiplexer(s *sh, c *cmd) {
	if c.name == "tmux" {
		i := sub(c.args, "-S", "-L", "-f", "-c", "-T")
		if i >= len(c.args) {
			s.esc(vocab.Routine, low, "`"+c.text+"` starts an interactive terminal multiplexer")
			return
		}
		switch v := c.args[i]; v {
		case "new-session", "new", "new-window", "neww", "split-window", "splitw", "run-shell", "run", "respawn-pane", "respawn-window":
			ops := shell.Operands(c.args[i:], "tnscxyeFlp", "")
			if len(ops) == 0 {
				s.allow("tmux " + v)
				return
			}
			s.later(c, strings.Join(ops, " "), "tmux "+v)
		case "send-keys", "send":
			var keys []string
			for _, k := range shell.Operands(c.args[i:], "tN") {
				if k != "C-m" && k != "Enter" && k != "C-c" && k != "KPEnter" {
					keys = append(keys, k)
				}
			}
			s.later(c, strings.Join(keys, " "), "tmux send-keys")
		default:
			s.allow("tmux " + v)
		}
		return
	}
	// screen: -X sends screen commands; an operand is a program to run.
	if xs := shell.OptValues(c.args, "-X", ""); len(xs) > 0 || shell.HasShort(c.args, 'X', "SpctLlhe") {
		j := strings.Join(c.args, " ")
		if strings.Contains(j, " stuff") || strings.Contains(j, " exec") || strings.Contains(j, "-X screen") {
			s.esc(vocab.Routine, medium, "`"+c.text+"` types or runs commands in a screen session")
			return
		}
		s.allow("screen -X")
		return
	}
	ops := shell.Operands(c.args, "SpctLlhecTs")
	if shell.HasShort(c.args, 'r', "SpctLlhecTs") || shell.HasShort(c.args, 'x', "SpctLlhecTs") || shell.HasShort(c.args, 'R', "SpctLlhecTs") ||
		shell.HasWord(c.args, "-ls", "-list", "-wipe", "-v", "-V") {
		s.allow("screen (re)attach")
		return
	}
	if len(ops) == 0 {
		s.allow("screen")
		return
	}
	s.laterArgv(c, ops, "screen")
}

// later judges a command line that a wrapper (tmux, screen, …) will run.
func (s *sh) later(c *cmd, script, via string) {
	if strings.TrimSpace(script) == "" {
		s.allow(via)
		return
	}
	sub := s.judgeText(script, c.cwd)
	s.v.add(finding{sub.Decision, sub.Class, riskLevel(sub.Risk), "`" + c.text + "` runs through " + via + ": " + sub.Reason})
}

// laterArgv judges an argv that a wrapper will run.
func (s *sh) laterArgv(c *cmd, argv []string, via string) {
	s.later(c, shell.Join(argv), via)
}

func judgeTee(s *sh, c *cmd) {
	content := s.pipedContent(c)
	for _, p := range shell.Operands(c.args, "") {
		s.write(c, s.where(p, c.cwd), content)
	}
	s.allow(c.name)
}

// pipedContent returns what an echo or printf earlier in the same
// pipeline writes to c, "" when unknown.
func (s *sh) pipedContent(c *cmd) string {
	if c.sc.Pipeline == 0 {
		return ""
	}
	for i := range s.cmds {
		d := &s.cmds[i]
		if d.sc.Pipeline == c.sc.Pipeline && d.sc.Stage == c.sc.Stage-1 {
			return d.content()
		}
	}
	return ""
}

func judgeScriptCmd(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "cEIOBT", "command", "log-in", "log-out", "log-io", "log-timing")
	for _, p := range ops {
		s.write(c, s.where(p, c.cwd), "")
	}
	s.allow("script")
}

func judgeIfconfig(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "")
	if len(ops) <= 1 {
		s.allow("ifconfig")
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes a network interface")
}

func judgeIP(s *sh, c *cmd) {
	i := sub(c.args, "-n", "-netns", "-f", "-family")
	if i >= len(c.args) {
		s.allow("ip")
		return
	}
	rest := c.args[i+1:]
	if len(rest) == 0 {
		s.allow("ip")
		return
	}
	switch rest[0] {
	case "show", "list", "ls", "lst", "get", "help":
		s.allow("ip")
		return
	}
	if c.args[i] == "neigh" || c.args[i] == "monitor" {
		s.allow("ip")
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes the network configuration")
}

func judgeRoute(s *sh, c *cmd) {
	if shell.HasWord(c.args, "add", "del", "delete", "flush", "change", "-d", "-s") {
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes the network configuration")
		return
	}
	s.allow(c.name)
}

func judgeJournal(s *sh, c *cmd) {
	if shell.HasLong(c.args, "vacuum-size", "vacuum-time", "vacuum-files", "rotate", "flush") {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` deletes or rotates system logs")
		return
	}
	s.allow("journalctl")
}

func judgeDmesg(s *sh, c *cmd) {
	if shell.HasShort(c.args, 'c', "") || shell.HasShort(c.args, 'C', "") || shell.HasLong(c.args, "clear", "read-clear") {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` clears the kernel log")
		return
	}
	s.allow("dmesg")
}

func judgeSource(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "")
	if len(ops) == 0 {
		s.allow("source")
		return
	}
	pl := s.where(ops[0], c.cwd)
	if level, what := s.secret(pl); level > secret.None {
		s.esc(vocab.CredentialProbing, low, "`"+c.text+"` loads "+what+" into the shell")
		return
	}
	if pl.zone == zWork && (strings.HasSuffix(ops[0], "activate") || strings.HasSuffix(ops[0], ".sh") || strings.HasSuffix(ops[0], "env")) {
		s.allow("source")
		return
	}
	base := shell.Base(ops[0])
	if pl.zone == zHome && (base == ".bashrc" || base == ".profile" || base == ".zshrc" || base == ".bash_profile" || strings.HasSuffix(ops[0], "env")) {
		s.allow("source")
		return
	}
	s.esc(vocab.Routine, low, "`"+c.text+"` runs a script file whose content the first pass does not read")
}

// judgeShellProgram judges a shell that is not running a -c string (those
// are seen through): one running a script file, or an interactive one.
func judgeShellProgram(s *sh, c *cmd) {
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "--rcfile" || a == "--init-file" || a == "-o" || a == "+o" || a == "-O" || a == "+O":
			if a == "--rcfile" || a == "--init-file" {
				s.esc(vocab.Routine, low, "`"+c.text+"` starts a shell with its own start-up file")
				return
			}
			i++
		case a == "--version" || a == "--help":
			s.allow(c.name)
			return
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			s.runsFile(c, a)
			return
		}
	}
	if c.sc.Pipeline > 0 && c.sc.Stage > 0 {
		return // reads its program from a pipe: judged with the pipeline
	}
	s.esc(vocab.Routine, low, "`"+c.text+"` starts an interactive shell")
}

// revealOption returns the option of c that asks its program to show the
// secrets it stores (nmcli --show-secrets), "" when there is none.
func revealOption(c *cmd) string {
	args := c.args
	for _, a := range args[1:] {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--show-secrets", "--reveal", "--show-password", "--show-passwords", "--unmask", "--reveal-secrets":
			return name
		}
	}
	if c.name == "nmcli" && shell.HasShort(args, 's', "") {
		return "-s"
	}
	return ""
}
