package program

import (
	"os"
	"strings"

	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/internal/wordset"
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
func judgeUnknown(s *judge.Script, c *judge.Command) {
	head := "`" + c.Text + "`: " + c.Name + " is not a program the first pass knows"
	lname := strings.ToLower(c.Name)
	k := s.V.K
	switch {
	case k.Has(lname, judge.FactCracksPasswords) || strings.HasSuffix(lname, "2john"):
		s.Deny(vocab.CredentialProbing, "`"+c.Text+"` runs "+c.Name+", a password cracking or credential dumping tool")
		return
	case k.Has(lname, judge.FactAttacks) || strings.HasPrefix(lname, "impacket-") || strings.HasPrefix(lname, "msf"):
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` runs "+c.Name+", an attack, reconnaissance or tunnelling tool")
		return
	case k.Has(lname, judge.FactChangesMachine):
		s.Esc(vocab.Destructive, judge.High, head+", and its name says it changes the machine itself (power, disks, accounts, services)")
		return
	}
	for _, h := range k.Words("credential_name_parts") {
		if strings.Contains(lname, h) {
			s.Esc(vocab.CredentialProbing, judge.Medium, head+", and its name says it handles credentials ("+h+")")
			return
		}
	}
	if s.Escalated {
		s.Esc(vocab.Routine, judge.Medium, head+", and it runs outside the sandbox, where what it does is not bounded")
		return
	}
	if v := nameVerb(k, lname); v != "" {
		class := dangerClass(k, v)
		if class == "" {
			class = vocab.Destructive
		}
		s.Esc(class, judge.Medium, head+", and its name says it may "+v)
		return
	}
	if flagsOnly(c.Args) && c.Sc.Doc == "" && len(c.Sc.Inputs) == 0 {
		// Options alone (--all, --force, --yes) change what a program
		// does in ways its words do not show; a bare name runs its
		// default (a status, a view, an interactive tool).
		s.Esc(vocab.Routine, judge.Medium, head+", and its options alone do not show what it does")
		return
	}
	var u unknownSeen
	unknownWords(s, c, &u)
	if u.dest != "" && u.remote && u.secretLevel > secret.None || u.secretLevel > secret.None && (k.Has(lname, judge.FactRemote) || u.verb != "" && dangerClass(k, u.verb) == vocab.Exfiltration) {
		// Before the exec rules' dangerous patterns, which only see a
		// secret touched.
		s.RemoteSink = true
		to := "which sends what it is given to other hosts"
		if u.dest != "" {
			to = "which reaches " + u.dest
		}
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` gives "+u.secretWhat+" to "+c.Name+", "+to)
		return
	}
	if r, ok := rules.Dangerous(c.Args); ok {
		s.Esc(classOfRule(r), judge.High, "`"+c.Text+"`: "+r)
		return
	}
	runner := k.IsRunner(lname)
	if d := c.Sc.Doc; d != "" {
		if l, what := secret.InText(d); l > u.secretLevel {
			u.secretLevel, u.secretWhat = l, what
		}
		if vs := s.SecretRefs(d); len(vs) > 0 && u.secretVar == "" {
			u.secretVar = vs[0]
		}
		if k.CodeStrongIn(d) != "" {
			u.code, u.codeStrong = textcut.Shorten(d, 40), true
		} else if runner {
			u.code = textcut.Shorten(d, 40)
		}
	}
	// What it sends where.
	if u.dest != "" {
		if u.remote {
			c.Sink = true
			s.RemoteSink = true
		}
		switch {
		case u.secretLevel > secret.None && u.remote:
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` gives "+u.secretWhat+" to "+c.Name+", which reaches "+u.dest)
			return
		case u.secretVar != "" && u.remote:
			s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` gives the secret $"+u.secretVar+" to "+c.Name+", which reaches "+u.dest)
			return
		case u.codeStrong:
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` runs code that opens connections or starts programs, and reaches "+u.dest)
			return
		}
	}
	if u.secretLevel > secret.None && u.dest == "" && (k.Has(lname, judge.FactRemote) || u.verb != "" && dangerClass(k, u.verb) == vocab.Exfiltration) {
		s.RemoteSink = true
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` gives "+u.secretWhat+" to "+c.Name+", which sends what it is given to other hosts")
		return
	}
	found := false
	esc := func(class vocab.Class, risk int, why string) {
		found = true
		s.Esc(class, risk, head+", and it "+why)
	}
	if u.secretLevel > secret.None {
		risk := judge.Medium
		if u.secretLevel == secret.Critical {
			risk = judge.High
		}
		esc(vocab.CredentialProbing, risk, "reads "+u.secretWhat)
	}
	if u.secretVar != "" {
		esc(vocab.CredentialProbing, judge.Medium, "is given the secret $"+u.secretVar)
	}
	if u.dest != "" {
		esc(vocab.Exfiltration, judge.Medium, "reaches "+u.dest+" over the network")
	}
	if u.code != "" {
		if u.codeStrong {
			esc(vocab.SecurityWeakening, judge.High, "runs inline code that opens connections or starts programs ("+u.code+")")
		} else {
			esc(vocab.Routine, judge.Medium, "runs inline code the request does not show ("+u.code+")")
		}
	}
	if u.script != "" && (runner || u.wroteEarlier) {
		esc(vocab.Routine, judge.Medium, "runs "+u.script+", whose code is not in the request")
	}
	if u.verb != "" {
		class := vocab.Routine
		if dangerClass(k, u.verb) != "" {
			class = dangerClass(k, u.verb)
		}
		esc(class, judge.Medium, "is asked to "+u.verb)
	}
	if k.Has(lname, judge.FactRemote) && !u.readOnly(k, c) {
		esc(vocab.Routine, judge.Medium, "acts on remote infrastructure or accounts")
	}
	if u.outside != "" {
		esc(u.outsideClass, u.outsideRisk, u.outside)
	}
	if u.unknownWord != "" {
		esc(vocab.Routine, judge.Medium, "is given "+u.unknownWord+", which is not known before it runs")
	}
	if found {
		return
	}
	s.Allow(c.Name + " on workspace files")
}

// readOnly reports whether the first plain word after the program is a
// reading verb (or there is none, only --help or --version).
func (u *unknownSeen) readOnly(k *judge.Knowledge, c *judge.Command) bool {
	reads := k.List("remote_read_verbs")
	for _, a := range c.Args[1:] {
		if reads.Has(a) {
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
func dangerClass(k *judge.Knowledge, verb string) vocab.Class {
	switch {
	case k.List("destroying_verbs").Has(verb):
		return vocab.Destructive
	case k.List("sending_verbs").Has(verb):
		return vocab.Exfiltration
	case k.List("credential_verbs").Has(verb):
		return vocab.CredentialProbing
	case k.List("weakening_verbs").Has(verb):
		return vocab.SecurityWeakening
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
func verbOf(w string, verbs *wordset.Set) string {
	if verbs.Has(w) {
		return w
	}
	if strings.ContainsAny(w, "-_:") {
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' || r == ':' }) {
			if verbs.Has(part) && part != "set" && part != "new" && part != "init" && part != "up" && part != "run" &&
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
func unknownWords(s *judge.Script, c *judge.Command, u *unknownSeen) {
	k := s.V.K
	plain := 0
	for i := 1; i < len(c.Args); i++ {
		w := unbrace(c.Args[i])
		raw := w
		if i < len(c.Sc.Args) {
			raw = c.Sc.Args[i]
		}
		known := c.Known[i]
		if !known && i < len(c.Sc.Args) && !c.Sc.Literal[i] {
			if vs := s.SecretRefs(raw); len(vs) > 0 && u.secretVar == "" {
				u.secretVar = vs[0]
			}
		}
		if k.CodeStrongIn(w) != "" && !u.codeStrong && strings.ContainsAny(w, " ;(") {
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
				if k.List("code_options").Has(name) && i+1 < len(c.Args) && looksLikeCode(c.Args[i+1]) {
					if u.code == "" {
						u.code = textcut.Shorten(c.Args[i+1], 40)
					}
					i++
				}
				continue
			}
			if k.List("code_options").Has(name) && looksLikeCode(v) && u.code == "" {
				u.code = textcut.Shorten(v, 40)
				continue
			}
			if strings.HasPrefix(v, "/") && !rootedHere(s, v) {
				continue // -dPDFSETTINGS=/ebook: a name, not a file
			}
			val = v
		} else if j := strings.IndexByte(w, '='); j > 0 && judge.IsName(strings.ReplaceAll(w[:j], "-", "_")) {
			// key=value operands (of=/dev/sda, output=x.pdf): the value.
			val = w[j+1:]
		} else if plainWord(w) {
			plain++
			if k.List("runs_words").Has(w) && u.verb == "" {
				u.verb = "run " + w
			}
			if plain <= 3 && u.verb == "" {
				if vb := verbOf(w, k.List("danger_verbs")); vb != "" {
					u.verb = vb
				}
			}
			continue
		}
		unknownValue(s, c, u, val, known)
	}
}

// unknownValue classifies one word or option value of an unknown program:
// a network destination, a path, or neither.
// topDirs are the folders at the root of Linux and macOS file systems.
var topDirs = judge.Set("bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt", "proc",
	"root", "run", "sbin", "srv", "sys", "tmp", "usr", "var", "snap", "nix", "Users", "Applications", "Library",
	"System", "Volumes", "private", "cores", "Network")

// rootedHere reports whether the absolute word w can name a file: its
// first folder is one at the root of a file system, holds the working or
// home directory, or exists. An option's value that cannot
// (-dPDFSETTINGS=/ebook) is text to the program, not a path; operands are
// always judged as paths (a server's /data, /backups).
func rootedHere(s *judge.Script, w string) bool {
	first := strings.TrimPrefix(w, "/")
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	if first == "" || topDirs[first] {
		return true
	}
	for _, d := range []string{s.Cwd, s.Home} {
		if d != "" && (d == "/"+first || strings.HasPrefix(d, "/"+first+"/")) {
			return true
		}
	}
	_, err := os.Lstat("/" + first)
	return err == nil
}

// unknownValue judges one word w (known: fully expanded) of a program the tables do not know.
func unknownValue(s *judge.Script, c *judge.Command, u *unknownSeen, w string, known bool) {
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
			named := s.V.K.List("host_tlds").Has(tld) && (tld != "org" || strings.Count(h, ".") > 1)
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
		if r := loopRoot(s, w); r != "" {
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
	pl := s.Where(w, c.Cwd)
	if l, what := s.Secret(pl); l > secret.None && !pl.Item {
		if l > u.secretLevel {
			u.secretLevel, u.secretWhat = l, what+" ("+textcut.Shorten(w, 60)+")"
		}
	}
	if t := s.Tainted[pl.Abs]; t > secret.None && pl.Abs != "" {
		if t > u.secretLevel || u.secretLevel == secret.None {
			u.secretLevel, u.secretWhat = max(t, u.secretLevel), "a copy of credentials ("+textcut.Shorten(w, 60)+")"
		}
	}
	exts := s.V.K.List("script_extensions")
	if ext := extOf(w); exts.Has(ext) && u.script == "" {
		u.script = textcut.Shorten(w, 60)
	}
	if pl.Abs != "" && s.WroteFile(pl.Abs) && exts.Has(extOf(w)) {
		u.wroteEarlier = true
		u.script = textcut.Shorten(w, 60)
	}
	if u.outside != "" {
		return
	}
	set := func(class vocab.Class, risk int, why string) {
		u.outside, u.outsideClass, u.outsideRisk = why, class, risk
	}
	if pl.State {
		set(vocab.SecurityWeakening, judge.High, "uses warden's own state ("+pl.Abs+")")
		return
	}
	if name := judge.ProtectedPart("/" + strings.TrimPrefix(pl.Abs, "/")); name != "" {
		set(vocab.SecurityWeakening, judge.Medium, "uses a protected path ("+name+")")
		return
	}
	if ok, what := judge.StartupFile(pl.Abs); ok && pl.Abs != "" {
		set(vocab.SecurityWeakening, judge.High, "uses "+what+" ("+pl.Abs+")")
		return
	}
	switch pl.Zone {
	case judge.ZWork, judge.ZTmp, judge.ZNull:
	case judge.ZHome:
		rel, _ := s.HomeRel(pl.Abs)
		if rel != "" && judge.IsCacheDir(rel) {
			return
		}
		set(vocab.Routine, judge.Medium, "uses "+judge.OrName(pl.Abs, w)+" in the home directory, outside the workspace")
	case judge.ZSystem:
		if judge.PublicSystemPath(pl.Abs) && !strings.HasPrefix(pl.Abs, "/etc/") && !strings.HasPrefix(pl.Abs, "/proc/") || judge.HarmlessDevices[pl.Abs] {
			return
		}
		if judge.SystemPrivate(pl.Abs) {
			set(vocab.CredentialProbing, judge.Medium, "uses "+pl.Abs+", private to the system or another user")
			return
		}
		set(vocab.SecurityWeakening, judge.Medium, "uses "+pl.Abs+", a system path")
	case judge.ZDevice:
		if judge.IsDisk(pl.Abs) {
			set(vocab.Destructive, judge.High, "uses the disk "+pl.Abs)
			return
		}
		set(vocab.Destructive, judge.Medium, "uses the device "+pl.Abs)
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
	b := judge.ShortBase(p)
	i := strings.LastIndexByte(b, '.')
	if i <= 0 {
		return ""
	}
	return strings.ToLower(b[i+1:])
}

// strongInline passes on inline code of a known interpreter that the
// effects table read as computation but that opens sockets or starts
// programs by a fragment it does not list; it reports whether it did.
func strongInline(s *judge.Script, c *judge.Command, code string) bool {
	if f := s.V.K.CodeStrongIn(code); f != "" {
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` runs code that opens connections or starts programs ("+f+")")
		return true
	}
	return false
}

// helpFlags only print a program's usage or version.
var helpFlags = judge.Set("--help", "-h", "-help", "--version", "-V", "-v", "-version", "--usage", "-?")

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
func nameVerb(k *judge.Knowledge, lname string) string {
	for _, v := range k.Words("name_verbs") {
		if strings.Contains(lname, v) {
			return v
		}
	}
	danger := k.List("danger_verbs")
	for _, part := range strings.FieldsFunc(lname, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if part != lname && danger.Has(part) && part != "run" && part != "up" {
			return part
		}
	}
	return ""
}

// loopRoot returns the root of the files a loop variable walks when w is
// a parameter expansion of it (${f%.png}.webp, $f.bak): "" otherwise.
func loopRoot(s *judge.Script, w string) string {
	name := strings.TrimPrefix(w, "$")
	name = strings.TrimPrefix(name, "{")
	i := 0
	for i < len(name) && secret.IsNameByte(name[i], i > 0) {
		i++
	}
	if i == 0 {
		return ""
	}
	v := s.Vars[name[:i]]
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
