package program

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = judge.RegisterJudges(map[string]func(*judge.Script, *judge.Command){
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
func programJudge(s *judge.Script, name string) (func(*judge.Script, *judge.Command), bool) {
	return s.V.K.JudgeOf(name)
}

var _ = judge.RegisterCommandJudge(judgeProgram)

// judgeProgram judges a command that is not a wrapper.
func judgeProgram(s *judge.Script, c *judge.Command) {
	if s.V.K.Has(c.Name, judge.FactRunsProject) {
		if s.Escalated {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` builds or runs the project's code, whose text is not in the request, outside the sandbox")
		}
		if pl := s.Where(".", c.Cwd); pl.Zone != judge.ZWork {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` builds or runs the code of "+judge.OrName(pl.Abs, "a directory")+", outside the workspace")
		}
	} else if s.Escalated && (strings.HasPrefix(c.Name, "pip") || s.V.K.Has(c.Name, judge.FactInstalls) || command.IsPython(c.Name) && shell.HasWord(c.Args, "pip")) {
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` installs packages, whose install code is not in the request, outside the sandbox")
	}
	if s.V.K.Has(c.Name, judge.FactRunsProject) || s.V.K.IsRunner(strings.ToLower(c.Name)) {
		// A secret given to code whose text is not in the request (go
		// run ./dump.go ~/.ssh/id_ed25519).
		for _, op := range shell.Operands(c.Args[1:], "") {
			if !strings.HasPrefix(op, "/") && !strings.HasPrefix(op, "~") {
				continue
			}
			if l, what := s.Secret(s.Where(op, c.Cwd)); l > secret.None {
				s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` gives "+what+" to code whose text is not in the request")
				break
			}
		}
	}
	if w := revealOption(c); w != "" {
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` asks to show stored secrets ("+w+")")
	}
	if f, ok := programJudge(s, c.Name); ok {
		f(s, c)
		return
	}
	switch {
	case strings.HasPrefix(c.Name, "mkfs") || strings.HasPrefix(c.Name, "newfs") || strings.HasPrefix(c.Name, "mke2fs"):
		judgeMkfs(s, c)
		return
	case command.IsPython(c.Name):
		judgePython(s, c)
		return
	case strings.HasPrefix(c.Name, "pip3") || strings.HasPrefix(c.Name, "pip"):
		judgePip(s, c, 1)
		return
	}
	if strings.IndexByte(c.Args[0], '/') >= 0 {
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
func judgeLocalProgram(s *judge.Script, c *judge.Command) {
	p := c.Args[0]
	for _, d := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/"} {
		if strings.HasPrefix(p, d) {
			c2 := *c
			c2.Args = append([]string{c.Name}, c.Args[1:]...)
			if _, ok := programJudge(s, c.Name); ok {
				judgeProgram(s, &c2)
				return
			}
		}
	}
	pl := s.Where(p, c.Cwd)
	for _, d := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/"} {
		if strings.HasPrefix(pl.Abs, d) {
			// A link to a system program (.venv/bin/python): judged
			// as the program it is called as.
			if _, ok := programJudge(s, c.Name); ok || command.IsPython(c.Name) {
				c2 := *c
				c2.Args = append([]string{c.Name}, c.Args[1:]...)
				judgeProgram(s, &c2)
				return
			}
		}
	}
	if pl.Zone == judge.ZWork {
		// A tool installed in the project (.venv/bin/pip, node_modules/.bin/x,
		// ./gradlew, ./mvnw) is judged by its name.
		switch {
		case command.IsPython(c.Name) || strings.HasPrefix(c.Name, "pip"):
			c2 := *c
			c2.Args = append([]string{c.Name}, c.Args[1:]...)
			judgeProgram(s, &c2)
			return
		case c.Name == "gradlew" || c.Name == "mvnw":
			judgeBuildTool(s, c)
			return
		case strings.Contains(p, "node_modules/.bin/") || strings.Contains(p, ".venv/bin/") || strings.Contains(p, "venv/bin/"):
			if _, ok := programJudge(s, c.Name); ok {
				c2 := *c
				c2.Args = append([]string{c.Name}, c.Args[1:]...)
				judgeProgram(s, &c2)
				return
			}
		}
		if t := offensiveScript(p); t != "" {
			s.Deny(vocab.CredentialProbing, "`"+c.Text+"` runs "+t+", a credential dumping or attack tool")
			return
		}
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs "+p+", whose code is not in the request")
		return
	}
	s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs "+p+" from "+pl.Zone.String())
}

func judgeXxd(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "clgsoC")
	if shell.HasShort(c.Args, 'r', "clgsoC") && len(ops) > 1 {
		s.Write(c, s.Where(ops[1], c.Cwd), "")
	}
	if len(ops) > 0 {
		s.Read(c, ops[0], true)
	}
	s.Allow("xxd")
}

func judgeBase64(s *judge.Script, c *judge.Command) {
	for _, p := range shell.Operands(c.Args, "w") {
		s.Read(c, p, true)
	}
	s.Allow("base64")
}

func judgeSort(s *judge.Script, c *judge.Command) {
	for _, o := range shell.OptValues(c.Args, "-o", "output") {
		s.Write(c, s.Where(o, c.Cwd), "")
	}
	if shell.HasLong(c.Args, "compress-program") {
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs a compression program")
	}
	for _, p := range shell.Operands(c.Args, "kotTS", "key", "output", "field-separator", "temporary-directory", "buffer-size") {
		s.Read(c, p, true)
	}
	s.Allow("sort")
}

func judgeUniq(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "fsw", "skip-fields", "skip-chars", "check-chars")
	if len(ops) > 0 {
		s.Read(c, ops[0], true)
	}
	if len(ops) > 1 {
		s.Write(c, s.Where(ops[1], c.Cwd), "")
	}
	s.Allow("uniq")
}

func judgeTree(s *judge.Script, c *judge.Command) {
	for _, o := range shell.OptValues(c.Args, "-o", "output") {
		s.Write(c, s.Where(o, c.Cwd), "")
	}
	for _, p := range shell.Operands(c.Args, "LIPoH", "filelimit", "timefmt", "sort", "charset") {
		s.Read(c, p, false)
	}
	s.Allow("tree")
}

// CredentialPattern reports whether a search pattern looks for secrets;
// credentialSearch tries it.
var CredentialPattern = pattern.Lazy(`(?i)pass(wd|word)?\b|passw|secret|token|api[_-]?key|apikey|private[ _-]?key|` +
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
	return CredentialPattern.MatchString(p)
}

// broadRoot reports whether a search root covers the whole system, the
// home directory or other users.
func broadRoot(s *judge.Script, c *judge.Command, root string) bool {
	pl := s.Where(root, c.Cwd)
	if s.BroadPath(pl) != "" {
		return true
	}
	switch pl.Abs {
	case "/etc", "/var", "/opt", "/srv", "/mnt", "/media", "/Volumes", "/private", "/root":
		return true
	}
	return pl.Abs == "~" || pl.Abs == s.Home && s.Home != ""
}

func judgeGrep(s *judge.Script, c *judge.Command) {
	argShort, argLong := "efmABCdDX", []string{"regexp", "file", "max-count", "after-context", "before-context",
		"context", "devices", "directories", "include", "exclude", "exclude-dir", "label", "color", "colour"}
	if c.Name == "rg" || c.Name == "ag" || c.Name == "ack" {
		argShort = "efgtTmABCMjEr"
		argLong = append(argLong, "glob", "type", "type-not", "max-columns", "threads", "replace", "encoding", "sort", "pre", "pre-glob")
		if shell.HasLong(c.Args, "pre", "search-zip") || shell.HasShort(c.Args, 'z', argShort) {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs a preprocessor")
		}
	}
	ops := shell.Operands(c.Args, argShort, argLong...)
	patterns := append(shell.OptValues(c.Args, "-e", "regexp"), shell.OptValues(c.Args, "", "pattern")...)
	if len(patterns) == 0 && len(shell.OptValues(c.Args, "-f", "file")) == 0 && len(ops) > 0 {
		patterns, ops = ops[:1], ops[1:]
	}
	recursive := c.Name == "rg" || c.Name == "ag" || c.Name == "ack" || shell.HasShort(c.Args, 'r', argShort) ||
		shell.HasShort(c.Args, 'R', argShort) || shell.HasLong(c.Args, "recursive", "dereference-recursive")
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
			if broadRoot(s, c, r) {
				s.Deny(vocab.CredentialProbing, "`"+c.Text+"` searches "+r+" for passwords, tokens or keys")
				return
			}
		}
		s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` searches for passwords, tokens or keys")
	}
	for _, p := range ops {
		s.Read(c, p, !shell.HasShort(c.Args, 'l', argShort) && !shell.HasShort(c.Args, 'c', argShort) && !shell.HasShort(c.Args, 'q', argShort))
	}
	s.Allow(c.Name)
}

// SedWrites finds the w and e commands of sed scripts, and the w and e
// flags of s commands.
var SedWrites = pattern.Lazy(`(^|[;\n{}]|\d|\$|/)\s*[we]\s|s(.).*?(.).*?(.)[gpIi0-9]*[we]`)

func judgeSed(s *judge.Script, c *judge.Command) {
	argShort := "efl"
	inPlace := shell.HasShort(c.Args, 'i', argShort) || shell.HasLong(c.Args, "in-place")
	ops := shell.Operands(c.Args, argShort, "expression", "file", "line-length")
	scripts := shell.OptValues(c.Args, "-e", "expression")
	if len(scripts) == 0 && len(shell.OptValues(c.Args, "-f", "file")) == 0 && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	// -i may take an attached suffix (-i.bak), which operandsOf keeps
	// apart; a bare "" after -i (BSD) is an operand: drop empty words.
	for _, sc := range scripts {
		if strings.ContainsAny(sc, "we") && SedWrites.MatchString(sc) && sedRunsOrWrites(sc) {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` has a sed script that writes files or runs commands")
		}
	}
	if inPlace {
		s.InPlaceConfigEdit(c, scripts, ops)
	}
	for _, p := range ops {
		if p == "" {
			continue
		}
		if inPlace {
			s.Write(c, s.Where(p, c.Cwd), "")
		} else {
			s.Read(c, p, true)
		}
	}
	s.Allow("sed")
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
	AwkRuns   = pattern.Lazy(`system\s*\(|\|\s*getline|\|&|print[^;}]*\|\s*"`)
	AwkWrites = pattern.Lazy(`print[f]?[^;}>|]*>>?\s*("([^"]*)"|[A-Za-z_$(])`)
)

func judgeAwk(s *judge.Script, c *judge.Command) {
	argShort := "fvFW"
	ops := shell.Operands(c.Args, argShort, "file", "assign", "field-separator")
	var prog string
	if len(shell.OptValues(c.Args, "-f", "file")) == 0 && len(ops) > 0 {
		prog, ops = ops[0], ops[1:]
	}
	if AwkRuns.MatchString(prog) {
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` has an awk program that runs commands")
	}
	for _, m := range AwkWrites.FindAllStringSubmatch(prog, -1) {
		if m[2] != "" || strings.HasPrefix(m[1], "\"") {
			s.Write(c, s.Where(m[2], c.Cwd), "")
		} else {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` has an awk program that writes files it names at run time")
		}
	}
	for _, p := range ops {
		if judge.IsAssignWord(p) {
			continue
		}
		s.Read(c, p, true)
	}
	s.Allow("awk")
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

func judgeFind(s *judge.Script, c *judge.Command) {
	roots := command.FindRoots(c.Args)
	strength := 0
	for i := 1; i+1 < len(c.Args); i++ {
		switch c.Args[i] {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
			strength = max(strength, secretNamePattern(c.Args[i+1]))
		}
	}
	secretNames := strength > 0
	broad := false
	for _, r := range roots {
		if broadRoot(s, c, r) {
			broad = true
		}
		pl := s.Where(r, c.Cwd)
		if level, what := s.Secret(pl); level > secret.None {
			if secretNames {
				s.Deny(vocab.CredentialProbing, "`"+c.Text+"` searches "+what+" for credentials")
				return
			}
			s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` searches "+what)
		}
	}
	if secretNames {
		if broad && strength == 2 {
			s.Deny(vocab.CredentialProbing, "`"+c.Text+"` searches the file system for keys or credentials")
			return
		}
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` searches for keys or credentials")
	}
	for i := 1; i < len(c.Args); i++ {
		switch c.Args[i] {
		case "-delete":
			for _, r := range roots {
				s.Remove(c, strings.TrimSuffix(r, "/")+"/\x01", true)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(c.Args) {
				s.Write(c, s.Where(c.Args[i+1], c.Cwd), "")
			}
		}
	}
	s.Allow("find")
}

func judgeFd(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "eEtdSxXjc", "exec", "exec-batch", "extension", "exclude", "type", "max-depth", "size", "changed-within", "changed-before")
	if len(ops) > 0 && secretNamePattern(ops[0]) > 0 {
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` searches for keys or credentials")
	}
	s.Allow(c.Name)
}

func judgeLocate(s *judge.Script, c *judge.Command) {
	for _, p := range shell.Operands(c.Args, "dlnr") {
		if secretNamePattern(p) == 2 {
			s.Deny(vocab.CredentialProbing, "`"+c.Text+"` searches the file system for keys or credentials")
			return
		}
	}
	s.Allow(c.Name)
}

func judgeGetent(s *judge.Script, c *judge.Command) {
	if shell.HasWord(c.Args, "shadow", "gshadow") {
		s.Deny(vocab.CredentialProbing, "`"+c.Text+"` reads password hashes")
		return
	}
	escOrAllow(s, c, shell.HasWord(c.Args, "passwd", "group") && len(c.Args) == 2,
		vocab.CredentialProbing, judge.Low, "lists the system's accounts", "getent")
}

func judgePrintenv(s *judge.Script, c *judge.Command) {
	if dumpsEnv(s, c) {
		return
	}
	for _, v := range shell.Operands(c.Args, "") {
		if secret.IsVarName(v) {
			s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` prints the secret "+v)
			return
		}
	}
	s.Allow("printenv")
}

func judgeEnv(s *judge.Script, c *judge.Command) {
	if dumpsEnv(s, c) {
		return
	}
	s.Allow("env")
}

// passesLines reports whether the stages of a pipeline strictly between
// from and to only reorder or pass on lines (sort, uniq, cat), so that the
// stage to sees what stage from prints.
func passesLines(s *judge.Script, pipeline, from, to int) bool {
	for i := range s.Cmds {
		d := &s.Cmds[i]
		if d.Sc.Pipeline != pipeline || d.Sc.Stage <= from || d.Sc.Stage >= to {
			continue
		}
		switch d.Name {
		case "sort", "uniq", "cat", "tac":
		default:
			return false
		}
	}
	return true
}

// dumpsEnv judges c when it prints the whole environment (judge.EnvDump)
// and reports whether it did: piping it to a search for secrets is
// probing, to a harmless search routine, anything else is passed on.
func dumpsEnv(s *judge.Script, c *judge.Command) bool {
	if judge.EnvDump(c) == "" {
		return false
	}
	c.Out, c.OutWhat = secret.Critical, "the whole environment"
	if c.Sc.Pipeline > 0 {
		for i := range s.Cmds {
			d := &s.Cmds[i]
			if d.Sc.Pipeline != c.Sc.Pipeline || d.Sc.Stage <= c.Sc.Stage || len(d.Args) == 0 || !passesLines(s, c.Sc.Pipeline, c.Sc.Stage, d.Sc.Stage) {
				continue
			}
			switch d.Name {
			case "grep", "egrep", "fgrep", "rg":
				pats := shell.OptValues(d.Args, "-e", "regexp")
				if len(pats) == 0 {
					if ops := shell.Operands(d.Args, "efmABCdD"); len(ops) > 0 {
						pats = ops[:1]
					}
				}
				for _, p := range pats {
					if credentialSearch(p) || strings.Contains(strings.ToLower(p), "key") {
						s.Deny(vocab.CredentialProbing, "`"+c.Text+" | "+d.Text+"` searches the environment for secrets")
						return true
					}
				}
				if len(pats) > 0 && !shell.HasShort(d.Args, 'v', "efmABCdD") {
					s.Allow("searches the environment")
					return true
				}
			case "wc", "sort", "cut", "head":
			}
		}
	}
	c.Out, c.OutWhat = secret.Critical, "the whole environment"
	s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` prints "+judge.EnvDump(c)+", tokens included")
	return true
}

func judgeSet(s *judge.Script, c *judge.Command) {
	if dumpsEnv(s, c) {
		return
	}
	escOrAllow(s, c, command.HistoryBuiltin("set", c.Args) == command.HistoryDisabled,
		vocab.SecurityWeakening, judge.High, "disables shell history", "set")
}

// judgeHash judges hash: -p NAME binds a command name to a file of the
// caller's choosing, so later commands of that name run other code.
func judgeHash(s *judge.Script, c *judge.Command) {
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "p") {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` binds a command name to another program")
			return
		}
	}
	s.Allow("hash")
}

func judgeExport(s *judge.Script, c *judge.Command) {
	if dumpsEnv(s, c) {
		return
	}
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		if r := judge.HistoryOff(name, val); r != "" {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` "+r)
		}
		if r := judge.TlsOffVar(name, val); r != "" {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` "+r+" for this shell")
		}
		if name == "LD_PRELOAD" || name == "PROMPT_COMMAND" || name == "BASH_ENV" || name == "ENV" {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` sets "+name+", which runs code")
		} else if judge.CodeVar(name) {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` sets "+name+", which chooses what code later commands run")
		}
	}
	s.Allow(c.Name)
}

func judgeAlias(s *judge.Script, c *judge.Command) {
	for _, a := range c.Args[1:] {
		name, val, ok := strings.Cut(a, "=")
		if !ok || strings.HasPrefix(a, "-") {
			continue
		}
		sub := s.JudgeText(val, "")
		if sub.Decision == vocab.Deny {
			s.Deny(sub.Class, "`"+c.Text+"` defines the alias "+name+" as harmful code: "+sub.Reason)
			return
		}
		if sub.Decision == vocab.Escalate {
			s.Esc(sub.Class, judge.Medium, "`"+c.Text+"` defines the alias "+name+": "+sub.Reason)
		}
		switch name {
		case "sudo", "su", "ls", "cd", "cp", "rm", "git", "ssh", "cat", "grep", "find", "chmod", "chown", "apt-get", "apt", "mv":
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` redefines "+name)
		}
	}
	s.Allow("alias")
}

func judgeUnset(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, command.HistoryBuiltin("unset", c.Args) == command.HistoryDisabled,
		vocab.SecurityWeakening, judge.High, "disables shell history", "unset")
}

func judgeHistory(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasShort(c.Args, 'c', "d") || shell.HasShort(c.Args, 'd', "") || shell.HasShort(c.Args, 'w', "") || shell.HasShort(c.Args, 'r', ""),
		vocab.SecurityWeakening, judge.High, "rewrites shell history", "history")
}

func judgeDate(s *judge.Script, c *judge.Command) {
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--set") {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` sets the system clock")
			return
		}
	}
	s.Allow("date")
}

func judgeHostname(s *judge.Script, c *judge.Command) {
	for _, a := range c.Args[1:] {
		if !strings.HasPrefix(a, "-") || a == "-F" || strings.HasPrefix(a, "--file") || a == "-b" || a == "--boot" {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes the host name")
			return
		}
	}
	s.Allow("hostname")
}

// judgeDig: a name built at run time can carry data out through DNS.
func judgeDig(s *judge.Script, c *judge.Command) {
	for i, a := range c.Args[1:] {
		if !c.Known[i+1] && (strings.Contains(a, "$(") || strings.Contains(a, "`")) {
			s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` looks up a name built from command output (DNS can carry data out)")
			return
		}
		if !c.Known[i+1] && strings.Contains(a, "$") {
			s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` looks up a name that is not known before it runs (DNS can carry data out)")
			return
		}
	}
	s.Allow(c.Name)
}

func judgeKill(s *judge.Script, c *judge.Command) {
	k := command.Kill(c.Args)
	if k.List {
		s.Allow("kill -l")
		return
	}
	signal, pids := k.Signal, k.Targets
	if signal == "0" {
		s.Allow("kill -0")
		return
	}
	for _, a := range pids {
		switch {
		case a == "-1" || a == "1" || a == "0":
			s.Deny(vocab.Destructive, "`"+c.Text+"` signals every process or init")
			return
		case strings.HasPrefix(a, "%"):
		case a != "" && strings.Trim(a, "0123456789") == "":
		default:
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` signals processes chosen at run time")
			return
		}
	}
	s.Allow("kill")
}

func judgeMultiplexer(s *judge.Script, c *judge.Command) {
	if c.Name == "tmux" {
		i := judge.Sub(c.Args, "-S", "-L", "-f", "-c", "-T")
		if i >= len(c.Args) {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts an interactive terminal multiplexer")
			return
		}
		switch v := c.Args[i]; v {
		case "new-session", "new", "new-window", "neww", "split-window", "splitw", "run-shell", "run", "respawn-pane", "respawn-window":
			ops := shell.Operands(c.Args[i:], "tnscxyeFlp", "")
			if len(ops) == 0 {
				s.Allow("tmux " + v)
				return
			}
			later(s, c, strings.Join(ops, " "), "tmux "+v)
		case "send-keys", "send":
			var keys []string
			for _, k := range shell.Operands(c.Args[i:], "tN") {
				if k != "C-m" && k != "Enter" && k != "C-c" && k != "KPEnter" {
					keys = append(keys, k)
				}
			}
			later(s, c, strings.Join(keys, " "), "tmux send-keys")
		default:
			s.Allow("tmux " + v)
		}
		return
	}
	// screen: -X sends screen commands; an operand is a program to run.
	if xs := shell.OptValues(c.Args, "-X", ""); len(xs) > 0 || shell.HasShort(c.Args, 'X', "SpctLlhe") {
		j := strings.Join(c.Args, " ")
		if strings.Contains(j, " stuff") || strings.Contains(j, " exec") || strings.Contains(j, "-X screen") {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` types or runs commands in a screen session")
			return
		}
		s.Allow("screen -X")
		return
	}
	ops := shell.Operands(c.Args, "SpctLlhecTs")
	if shell.HasShort(c.Args, 'r', "SpctLlhecTs") || shell.HasShort(c.Args, 'x', "SpctLlhecTs") || shell.HasShort(c.Args, 'R', "SpctLlhecTs") ||
		shell.HasWord(c.Args, "-ls", "-list", "-wipe", "-v", "-V") {
		s.Allow("screen (re)attach")
		return
	}
	if len(ops) == 0 {
		s.Allow("screen")
		return
	}
	laterArgv(s, c, ops, "screen")
}

// later judges a command line that a wrapper (tmux, screen, …) will run.
func later(s *judge.Script, c *judge.Command, script, via string) {
	if strings.TrimSpace(script) == "" {
		s.Allow(via)
		return
	}
	sub := s.JudgeText(script, c.Cwd)
	s.V.Add(judge.Finding{Dec: sub.Decision, Class: sub.Class, Risk: judge.RiskLevel(sub.Risk), Reason: "`" + c.Text + "` runs through " + via + ": " + sub.Reason})
}

// laterArgv judges an argv that a wrapper will run.
func laterArgv(s *judge.Script, c *judge.Command, argv []string, via string) {
	later(s, c, shell.Join(argv), via)
}

func judgeTee(s *judge.Script, c *judge.Command) {
	content := pipedContent(s, c)
	for _, p := range shell.Operands(c.Args, "") {
		s.Write(c, s.Where(p, c.Cwd), content)
	}
	s.Allow(c.Name)
}

// pipedContent returns what an echo or printf earlier in the same
// pipeline writes to c, "" when unknown.
func pipedContent(s *judge.Script, c *judge.Command) string {
	if c.Sc.Pipeline == 0 {
		return ""
	}
	for i := range s.Cmds {
		d := &s.Cmds[i]
		if d.Sc.Pipeline == c.Sc.Pipeline && d.Sc.Stage == c.Sc.Stage-1 {
			return d.Content()
		}
	}
	return ""
}

func judgeScriptCmd(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "cEIOBT", "command", "log-in", "log-out", "log-io", "log-timing")
	for _, p := range ops {
		s.Write(c, s.Where(p, c.Cwd), "")
	}
	s.Allow("script")
}

func judgeIfconfig(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "")
	if len(ops) <= 1 {
		s.Allow("ifconfig")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes a network interface")
}

func judgeIP(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, "ip", "-n", "-netns", "-f", "-family")
	if !ok {
		return
	}
	rest := c.Args[i+1:]
	if len(rest) == 0 {
		s.Allow("ip")
		return
	}
	switch rest[0] {
	case "show", "list", "ls", "lst", "get", "help":
		s.Allow("ip")
		return
	}
	if c.Args[i] == "neigh" || c.Args[i] == "monitor" {
		s.Allow("ip")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes the network configuration")
}

func judgeRoute(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasWord(c.Args, "add", "del", "delete", "flush", "change", "-d", "-s"),
		vocab.SecurityWeakening, judge.Medium, "changes the network configuration", c.Name)
}

func judgeJournal(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasLong(c.Args, "vacuum-size", "vacuum-time", "vacuum-files", "rotate", "flush"),
		vocab.SecurityWeakening, judge.High, "deletes or rotates system logs", "journalctl")
}

func judgeDmesg(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasShort(c.Args, 'c', "") || shell.HasShort(c.Args, 'C', "") || shell.HasLong(c.Args, "clear", "read-clear"),
		vocab.SecurityWeakening, judge.High, "clears the kernel log", "dmesg")
}

func judgeSource(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "")
	if len(ops) == 0 {
		s.Allow("source")
		return
	}
	pl := s.Where(ops[0], c.Cwd)
	if level, what := s.Secret(pl); level > secret.None {
		s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` loads "+what+" into the shell")
		return
	}
	if pl.Zone == judge.ZWork && (strings.HasSuffix(ops[0], "activate") || strings.HasSuffix(ops[0], ".sh") || strings.HasSuffix(ops[0], "env")) {
		s.Allow("source")
		return
	}
	base := shell.Base(ops[0])
	if pl.Zone == judge.ZHome && (base == ".bashrc" || base == ".profile" || base == ".zshrc" || base == ".bash_profile" || strings.HasSuffix(ops[0], "env")) {
		s.Allow("source")
		return
	}
	s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs a script file whose content the first pass does not read")
}

// judgeShellProgram judges a shell that is not running a -c string (those
// are seen through): one running a script file, or an interactive one.
func judgeShellProgram(s *judge.Script, c *judge.Command) {
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "--rcfile" || a == "--init-file" || a == "-o" || a == "+o" || a == "-O" || a == "+O":
			if a == "--rcfile" || a == "--init-file" {
				s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts a shell with its own start-up file")
				return
			}
			i++
		case a == "--version" || a == "--help":
			s.Allow(c.Name)
			return
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			runsFile(s, c, a)
			return
		}
	}
	if c.Sc.Pipeline > 0 && c.Sc.Stage > 0 {
		return // reads its program from a pipe: judged with the pipeline
	}
	s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts an interactive shell")
}

// revealOption returns the option of c that asks its program to show the
// secrets it stores (nmcli --show-secrets), "" when there is none.
func revealOption(c *judge.Command) string {
	args := c.Args
	for _, a := range args[1:] {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--show-secrets", "--reveal", "--show-password", "--show-passwords", "--unmask", "--reveal-secrets":
			return name
		}
	}
	if c.Name == "nmcli" && shell.HasShort(args, 's', "") {
		return "-s"
	}
	return ""
}
