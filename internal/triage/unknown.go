package triage

import (
	"os"
	"strings"

	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// Generic reasoning about programs the tables do not know (issue 12, item
// 2). Such a program is judged by what its words show, in the spirit of
// SPEC G15: it is routine only when the whole effect can be seen and is
// harmless whatever the user intended. That is, when the command runs in
// the sandbox, its name and subcommand words say nothing destructive,
// privileged, remote or credential-related, and every word that can name
// something outside the workspace — a path, a URL, a host, an address, a
// variable, inline code, a script it would run — names only the workspace,
// temporary directories or known caches. What it then does to workspace
// files is within what the sandbox already permits. Everything else is
// passed on with what was seen; a secret given to such a program together
// with a network destination is denied as exfiltration.

// unknownSeen is what the words of an unknown program show.
type unknownSeen struct {
	dest                 string // first network destination ("" none)
	secretLevel          int    // most secret source among the words
	secretWhat           string
	secretVar            string // a secret variable given to it
	outside              string // first reason a path is not routine
	outsideClass         vocab.Class
	outsideRisk          int
	code                 string // inline code seen
	codeStrong           bool   // the code opens sockets or runs programs
	script               string // a script file it would run
	verb                 string // a dangerous subcommand or option
	unknownWord          string // a word not known before the command runs
	wroteEarlier, remote bool
}

// judgeUnknown judges a command whose program the tables do not know, by
// what its name and words show (see the comment at the top of this file).
func judgeUnknown(s *sh, c *cmd) {
	head := "`" + c.text + "`: " + c.name + " is not a program the first pass knows"
	lname := strings.ToLower(c.name)
	k := s.v.k
	switch {
	case k.has(lname, factCracksPasswords) || strings.HasSuffix(lname, "2john"):
		s.deny(vocab.CredentialProbing, "`"+c.text+"` runs "+c.name+", a password cracking or credential dumping tool")
		return
	case k.has(lname, factAttacks) || strings.HasPrefix(lname, "impacket-") || strings.HasPrefix(lname, "msf"):
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` runs "+c.name+", an attack, reconnaissance or tunnelling tool")
		return
	case k.has(lname, factChangesMachine):
		s.esc(vocab.Destructive, high, head+", and its name says it changes the machine itself (power, disks, accounts, services)")
		return
	}
	for _, h := range k.Words("credential_name_parts") {
		if strings.Contains(lname, h) {
			s.esc(vocab.CredentialProbing, medium, head+", and its name says it handles credentials ("+h+")")
			return
		}
	}
	if s.escalated {
		s.esc(vocab.Routine, medium, head+", and it runs outside the sandbox, where what it does is not bounded")
		return
	}
	if v := k.nameVerb(lname); v != "" {
		class := k.dangerClass(v)
		if class == "" {
			class = vocab.Destructive
		}
		s.esc(class, medium, head+", and its name says it may "+v)
		return
	}
	if flagsOnly(c.args) && c.sc.Doc == "" && len(c.sc.Inputs) == 0 {
		// Options alone (--all, --force, --yes) change what a program
		// does in ways its words do not show; a bare name runs its
		// default (a status, a view, an interactive tool).
		s.esc(vocab.Routine, medium, head+", and its options alone do not show what it does")
		return
	}
	var u unknownSeen
	s.unknownWords(c, &u)
	if u.dest != "" && u.remote && u.secretLevel > secret.None || u.secretLevel > secret.None && (k.has(lname, factRemote) || u.verb != "" && k.dangerClass(u.verb) == vocab.Exfiltration) {
		// Before the exec rules' dangerous patterns, which only see a
		// secret touched.
		s.remoteSink = true
		to := "which sends what it is given to other hosts"
		if u.dest != "" {
			to = "which reaches " + u.dest
		}
		s.deny(vocab.Exfiltration, "`"+c.text+"` gives "+u.secretWhat+" to "+c.name+", "+to)
		return
	}
	if r, ok := rules.Dangerous(c.args); ok {
		s.esc(classOfRule(r), high, "`"+c.text+"`: "+r)
		return
	}
	runner := k.isRunner(lname)
	if d := c.sc.Doc; d != "" {
		if l, what := secret.InText(d); l > u.secretLevel {
			u.secretLevel, u.secretWhat = l, what
		}
		if vs := s.secretRefs(d); len(vs) > 0 && u.secretVar == "" {
			u.secretVar = vs[0]
		}
		if k.codeStrongIn(d) != "" {
			u.code, u.codeStrong = textcut.Shorten(d, 40), true
		} else if runner {
			u.code = textcut.Shorten(d, 40)
		}
	}
	// What it sends where.
	if u.dest != "" {
		if u.remote {
			c.sink = true
			s.remoteSink = true
		}
		switch {
		case u.secretLevel > secret.None && u.remote:
			s.deny(vocab.Exfiltration, "`"+c.text+"` gives "+u.secretWhat+" to "+c.name+", which reaches "+u.dest)
			return
		case u.secretVar != "" && u.remote:
			s.esc(vocab.Exfiltration, high, "`"+c.text+"` gives the secret $"+u.secretVar+" to "+c.name+", which reaches "+u.dest)
			return
		case u.codeStrong:
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` runs code that opens connections or starts programs, and reaches "+u.dest)
			return
		}
	}
	if u.secretLevel > secret.None && u.dest == "" && (k.has(lname, factRemote) || u.verb != "" && k.dangerClass(u.verb) == vocab.Exfiltration) {
		s.remoteSink = true
		s.deny(vocab.Exfiltration, "`"+c.text+"` gives "+u.secretWhat+" to "+c.name+", which sends what it is given to other hosts")
		return
	}
	found := false
	esc := func(class vocab.Class, risk int, why string) {
		found = true
		s.esc(class, risk, head+", and it "+why)
	}
	if u.secretLevel > secret.None {
		risk := medium
		if u.secretLevel == secret.Critical {
			risk = high
		}
		esc(vocab.CredentialProbing, risk, "reads "+u.secretWhat)
	}
	if u.secretVar != "" {
		esc(vocab.CredentialProbing, medium, "is given the secret $"+u.secretVar)
	}
	if u.dest != "" {
		esc(vocab.Exfiltration, medium, "reaches "+u.dest+" over the network")
	}
	if u.code != "" {
		if u.codeStrong {
			esc(vocab.SecurityWeakening, high, "runs inline code that opens connections or starts programs ("+u.code+")")
		} else {
			esc(vocab.Routine, medium, "runs inline code the request does not show ("+u.code+")")
		}
	}
	if u.script != "" && (runner || u.wroteEarlier) {
		esc(vocab.Routine, medium, "runs "+u.script+", whose code is not in the request")
	}
	if u.verb != "" {
		class := vocab.Routine
		if k.dangerClass(u.verb) != "" {
			class = k.dangerClass(u.verb)
		}
		esc(class, medium, "is asked to "+u.verb)
	}
	if k.has(lname, factRemote) && !u.readOnly(k, c) {
		esc(vocab.Routine, medium, "acts on remote infrastructure or accounts")
	}
	if u.outside != "" {
		esc(u.outsideClass, u.outsideRisk, u.outside)
	}
	if u.unknownWord != "" {
		esc(vocab.Routine, medium, "is given "+u.unknownWord+", which is not known before it runs")
	}
	if found {
		return
	}
	s.allow(c.name + " on workspace files")
}

// readOnly reports whether the first plain word after the program is a
// reading verb (or there is none, only --help or --version).
func (u *unknownSeen) readOnly(k *Knowledge, c *cmd) bool {
	reads := k.List("remote_read_verbs")
	for _, a := range c.args[1:] {
		if reads[a] {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return false
}

// dangerClass is the class of harm a dangerous verb points to (the lists
// destroying_verbs, sending_verbs, credential_verbs and weakening_verbs),
// "" for none.
func (k *Knowledge) dangerClass(verb string) vocab.Class {
	switch {
	case k.List("destroying_verbs")[verb]:
		return vocab.Destructive
	case k.List("sending_verbs")[verb]:
		return vocab.Exfiltration
	case k.List("credential_verbs")[verb]:
		return vocab.CredentialProbing
	case k.List("weakening_verbs")[verb]:
		return vocab.SecurityWeakening
	}
	return ""
}

// isRunner reports whether a program name is that of an interpreter or
// runner of the list runners (python3.12, ruby3.2, node18, …).
func (k *Knowledge) isRunner(lname string) bool {
	set := k.List("runners")
	if set[lname] {
		return true
	}
	// A runner's name (three letters or more) and a version: only the
	// prefixes ending before a digit, '.' or '-' can be one.
	for j := 3; j < len(lname); j++ {
		if c := lname[j]; (c >= '0' && c <= '9' || c == '.' || c == '-') && set[lname[:j]] {
			return true
		}
	}
	return false
}

// codeStrongIn returns the first fragment of the list strong_code in text
// (code that opens sockets, starts programs or decodes payloads), "" none.
func (k *Knowledge) codeStrongIn(text string) string {
	for _, f := range k.Words("strong_code") {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// looksLikeCode reports whether an option value reads as code rather
// than a name or a number.
func looksLikeCode(v string) bool {
	return strings.ContainsAny(v, ";{}()`|&") || strings.Contains(v, "$(") || strings.Contains(v, " = ") ||
		strings.Contains(v, "import ") || strings.Contains(v, "print ") || strings.Contains(v, "puts ")
}

// plainWord reports whether w is a subcommand-like word: lower-case
// letters, digits, '-', '_' and ':'.
func plainWord(w string) bool {
	if len(w) < 2 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// verbOf returns the dangerous verb w is or holds as a part
// (apps:destroy, force-push), "" none.
func verbOf(w string, verbs map[string]bool) string {
	if verbs[w] {
		return w
	}
	if strings.ContainsAny(w, "-_:") {
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' || r == ':' }) {
			if verbs[part] && part != "set" && part != "new" && part != "init" && part != "up" && part != "run" &&
				part != "link" && part != "write" && part != "put" && part != "edit" && part != "copy" && part != "create" {
				return part
			}
		}
	}
	return ""
}

// sqlDestroys reports whether text holds SQL that deletes data.
func sqlDestroys(text string) bool {
	u := strings.ToUpper(text)
	return strings.Contains(u, "DROP TABLE") || strings.Contains(u, "DROP DATABASE") || strings.Contains(u, "DROP SCHEMA") ||
		strings.Contains(u, "DELETE FROM") || strings.Contains(u, "TRUNCATE ")
}

// unknownWords classifies the words of c into u.
func (s *sh) unknownWords(c *cmd, u *unknownSeen) {
	k := s.v.k
	plain := 0
	for i := 1; i < len(c.args); i++ {
		w := unbrace(c.args[i])
		raw := w
		if i < len(c.sc.Args) {
			raw = c.sc.Args[i]
		}
		known := c.known[i]
		if !known && i < len(c.sc.Args) && !c.sc.Literal[i] {
			if vs := s.secretRefs(raw); len(vs) > 0 && u.secretVar == "" {
				u.secretVar = vs[0]
			}
		}
		if k.codeStrongIn(w) != "" && !u.codeStrong && strings.ContainsAny(w, " ;(") {
			u.code, u.codeStrong = textcut.Shorten(w, 40), true
		}
		if u.code == "" && strings.IndexByte(w, ';') >= 0 && strings.ContainsAny(w, "{(") {
			// A program text (awk-like BEGIN{…; …}) given as an operand.
			u.code = textcut.Shorten(w, 40)
		}
		if sqlDestroys(w) && u.verb == "" {
			u.verb = "delete data (" + textcut.Shorten(w, 40) + ")"
		}
		val := w
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			name, v, hasVal := strings.Cut(w, "=")
			flag := strings.TrimLeft(name, "-")
			if vb := verbOf(strings.ToLower(flag), k.List("flag_verbs")); vb != "" && u.verb == "" {
				u.verb = vb + " (" + name + ")"
			}
			if !hasVal {
				if k.List("code_options")[name] && i+1 < len(c.args) && looksLikeCode(c.args[i+1]) {
					if u.code == "" {
						u.code = textcut.Shorten(c.args[i+1], 40)
					}
					i++
				}
				continue
			}
			if k.List("code_options")[name] && looksLikeCode(v) && u.code == "" {
				u.code = textcut.Shorten(v, 40)
				continue
			}
			if strings.HasPrefix(v, "/") && !s.rootedHere(v) {
				continue // -dPDFSETTINGS=/ebook: a name, not a file
			}
			val = v
		} else if j := strings.IndexByte(w, '='); j > 0 && isName(strings.ReplaceAll(w[:j], "-", "_")) {
			// key=value operands (of=/dev/sda, output=x.pdf): the value.
			val = w[j+1:]
		} else if plainWord(w) {
			plain++
			if k.List("runs_words")[w] && u.verb == "" {
				u.verb = "run " + w
			}
			if plain <= 3 && u.verb == "" {
				if vb := verbOf(w, k.List("danger_verbs")); vb != "" {
					u.verb = vb
				}
			}
			continue
		}
		s.unknownValue(c, u, val, known)
	}
}

// unknownValue classifies one word or option value of an unknown program:
// a network destination, a path, or neither.
// topDirs are the folders at the root of Linux and macOS file systems.
var topDirs = set("bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt", "proc",
	"root", "run", "sbin", "srv", "sys", "tmp", "usr", "var", "snap", "nix", "Users", "Applications", "Library",
	"System", "Volumes", "private", "cores", "Network")

// rootedHere reports whether the absolute word w can name a file: its
// first folder is one at the root of a file system, holds the working or
// home directory, or exists. An option's value that cannot
// (-dPDFSETTINGS=/ebook) is text to the program, not a path; operands are
// always judged as paths (a server's /data, /backups).
func (s *sh) rootedHere(w string) bool {
	first := strings.TrimPrefix(w, "/")
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	if first == "" || topDirs[first] {
		return true
	}
	for _, d := range []string{s.cwd, s.home} {
		if d != "" && (d == "/"+first || strings.HasPrefix(d, "/"+first+"/")) {
			return true
		}
	}
	_, err := os.Lstat("/" + first)
	return err == nil
}

func (s *sh) unknownValue(c *cmd, u *unknownSeen, w string, known bool) {
	if w == "" || w == "-" || w == "." || w == "./" {
		return
	}
	// Network destinations.
	if strings.Contains(w, "://") {
		scheme := strings.ToLower(w[:strings.Index(w, "://")])
		if scheme == "file" {
			w = w[strings.Index(w, "://")+3:]
		} else {
			if h, port, _, ok := network.Dest(w, true); ok {
				if !network.Local(h) && u.dest == "" {
					u.dest, u.remote = joinPort(h, port), true
				}
			} else if u.dest == "" {
				u.dest, u.remote = "a host named at run time", true
			}
			if l, what := network.URLPayload(w); l > u.secretLevel {
				u.secretLevel, u.secretWhat = l, what
			}
			return
		}
	}
	if !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, ".") && !strings.HasPrefix(w, "~") && !strings.ContainsAny(w, "$\x00\x01") {
		if h, port, _, ok := network.Dest(w, true); ok {
			isIP := network.IP(h) != nil
			tld := h[strings.LastIndexByte(h, '.')+1:]
			tld = strings.ToLower(tld)
			named := s.v.k.List("host_tlds")[tld] && (tld != "org" || strings.Count(h, ".") > 1)
			if isIP || port != "" && strings.IndexByte(h, '.') > 0 || named || strings.IndexByte(w, '@') > 0 && strings.IndexByte(h, '.') > 0 {
				if !network.Local(h) && u.dest == "" {
					u.dest, u.remote = joinPort(h, port), true
				}
				return
			}
		}
		if i := strings.IndexByte(w, ':'); i > 0 && strings.IndexByte(w, '@') > 0 && strings.IndexByte(w[:i], '/') < 0 {
			// user@host:path
			if u.dest == "" {
				u.dest, u.remote = w[strings.IndexByte(w, '@')+1:i], true
			}
			return
		}
	}
	if known && strings.IndexByte(w, '$') >= 0 {
		// A literal dollar sign ('$ORIGIN'): text, not a variable.
		return
	}
	if !known && strings.HasPrefix(w, "$") {
		if r := s.loopRoot(w); r != "" {
			w = r
		}
	}
	if !known && strings.HasPrefix(w, "$") || strings.IndexByte(w, 0) >= 0 {
		if u.unknownWord == "" {
			u.unknownWord = textcut.Shorten(w, 40)
		}
		return
	}
	if strings.HasPrefix(w, "//") || strings.HasPrefix(w, "/@") {
		// An XPath or selector, not a path.
		return
	}
	pathLike := strings.ContainsAny(w, "/~") || strings.HasPrefix(w, ".") || strings.IndexByte(w, '.') > 0 || strings.ContainsAny(w, "\x01$")
	if !pathLike {
		return
	}
	pl := s.where(w, c.cwd)
	if l, what := s.secret(pl); l > secret.None && !pl.item {
		if l > u.secretLevel {
			u.secretLevel, u.secretWhat = l, what+" ("+textcut.Shorten(w, 60)+")"
		}
	}
	if t := s.tainted[pl.abs]; t > secret.None && pl.abs != "" {
		if t > u.secretLevel || u.secretLevel == secret.None {
			u.secretLevel, u.secretWhat = max(t, u.secretLevel), "a copy of credentials ("+textcut.Shorten(w, 60)+")"
		}
	}
	exts := s.v.k.List("script_extensions")
	if ext := extOf(w); exts[ext] && u.script == "" {
		u.script = textcut.Shorten(w, 60)
	}
	if pl.abs != "" && s.wroteFile(pl.abs) && exts[extOf(w)] {
		u.wroteEarlier = true
		u.script = textcut.Shorten(w, 60)
	}
	if u.outside != "" {
		return
	}
	set := func(class vocab.Class, risk int, why string) {
		u.outside, u.outsideClass, u.outsideRisk = why, class, risk
	}
	if pl.state {
		set(vocab.SecurityWeakening, high, "uses warden's own state ("+pl.abs+")")
		return
	}
	if name := protectedPart("/" + strings.TrimPrefix(pl.abs, "/")); name != "" {
		set(vocab.SecurityWeakening, medium, "uses a protected path ("+name+")")
		return
	}
	if ok, what := startupFile(pl.abs); ok && pl.abs != "" {
		set(vocab.SecurityWeakening, high, "uses "+what+" ("+pl.abs+")")
		return
	}
	switch pl.zone {
	case zWork, zTmp, zNull:
	case zHome:
		rel, _ := s.homeRel(pl.abs)
		if rel != "" && isCacheDir(rel) {
			return
		}
		set(vocab.Routine, medium, "uses "+orName(pl.abs, w)+" in the home directory, outside the workspace")
	case zSystem:
		if publicSystemPath(pl.abs) && !strings.HasPrefix(pl.abs, "/etc/") && !strings.HasPrefix(pl.abs, "/proc/") || harmlessDevices[pl.abs] {
			return
		}
		if systemPrivate(pl.abs) {
			set(vocab.CredentialProbing, medium, "uses "+pl.abs+", private to the system or another user")
			return
		}
		set(vocab.SecurityWeakening, medium, "uses "+pl.abs+", a system path")
	case zDevice:
		if isDisk(pl.abs) {
			set(vocab.Destructive, high, "uses the disk "+pl.abs)
			return
		}
		set(vocab.Destructive, medium, "uses the device "+pl.abs)
	default:
		if u.unknownWord == "" {
			u.unknownWord = textcut.Shorten(w, 40)
		}
	}
}

// joinPort writes host:port, or host alone.
func joinPort(h, port string) string {
	if port == "" {
		return h
	}
	return h + ":" + port
}

// extOf returns the lower-case extension of a path's base name.
func extOf(p string) string {
	b := shortBase(p)
	i := strings.LastIndexByte(b, '.')
	if i <= 0 {
		return ""
	}
	return strings.ToLower(b[i+1:])
}

// strongInline passes on inline code of a known interpreter that the
// effects table read as computation but that opens sockets or starts
// programs by a fragment it does not list; it reports whether it did.
func (s *sh) strongInline(c *cmd, code string) bool {
	if f := s.v.k.codeStrongIn(code); f != "" {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` runs code that opens connections or starts programs ("+f+")")
		return true
	}
	return false
}

// helpFlags only print a program's usage or version.
var helpFlags = set("--help", "-h", "-help", "--version", "-V", "-v", "-version", "--usage", "-?")

// flagsOnly reports whether a command has options but no operand, one of
// them a word (--all, --force, -delete) rather than a letter or two (-l,
// -la, -j4), and does more than print its usage or version.
func flagsOnly(args []string) bool {
	if len(args) < 2 {
		return false
	}
	words := false
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") || a == "-" || strings.IndexByte(a, '=') > 0 {
			return false
		}
		if !helpFlags[a] && (strings.HasPrefix(a, "--") || len(a) > 3) {
			words = true
		}
	}
	return words
}

// nameVerb returns the verb a program's name holds (the lists name_verbs,
// and danger_verbs for its parts), "" none.
func (k *Knowledge) nameVerb(lname string) string {
	for _, v := range k.Words("name_verbs") {
		if strings.Contains(lname, v) {
			return v
		}
	}
	danger := k.List("danger_verbs")
	for _, part := range strings.FieldsFunc(lname, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if part != lname && danger[part] && part != "run" && part != "up" {
			return part
		}
	}
	return ""
}

// loopRoot returns the root of the files a loop variable walks when w is
// a parameter expansion of it (${f%.png}.webp, $f.bak): "" otherwise.
func (s *sh) loopRoot(w string) string {
	name := strings.TrimPrefix(w, "$")
	name = strings.TrimPrefix(name, "{")
	i := 0
	for i < len(name) && secret.IsNameByte(name[i], i > 0) {
		i++
	}
	if i == 0 {
		return ""
	}
	v := s.vars[name[:i]]
	if !strings.HasSuffix(v, "/\x01") {
		return ""
	}
	return v
}

// unbrace drops the braces of a {{placeholder}}, as command examples
// write their arguments.
func unbrace(w string) string {
	if len(w) > 4 && strings.HasPrefix(w, "{{") && strings.HasSuffix(w, "}}") {
		return w[2 : len(w)-2]
	}
	return w
}
