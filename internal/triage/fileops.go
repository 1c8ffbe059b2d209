package triage

import (
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = registerJudges(map[string]func(*sh, *cmd){
	"chattr":   judgeChattr,
	"chmod":    judgeChmod,
	"chown":    judgeChown,
	"compress": judgeCompress,
	"cp":       judgeCp,
	"cpio":     judgeCpio,
	"dd":       judgeDd,
	"ln":       judgeLn,
	"mkdir":    judgeMkdir,
	"mogrify":  judgeMogrify,
	"mv":       judgeMv,
	"patch":    judgePatch,
	"rename":   judgeRename,
	"rm":       judgeRm,
	"shred":    judgeShred,
	"split":    judgeSplit,
	"tar":      judgeTar,
	"truncate": judgeTruncate,
	"unzip":    judgeUnzip,
	"zip":      judgeZip,
})

// writesOperands judges each operand as written.
func (s *sh) writesOperands(c *cmd, ops []string) {
	for _, p := range ops {
		s.write(c, s.where(p, c.cwd), "")
	}
}

func judgeMkdir(s *sh, c *cmd) {
	s.writesOperands(c, shell.Operands(c.args, "mdrt", "mode", "reference", "date"))
	s.allow(c.name)
}

func judgeCp(s *sh, c *cmd) {
	argShort := "StTm"
	ops := shell.Operands(c.args, argShort, "suffix", "target-directory", "mode", "owner", "group")
	dests := shell.OptValues(c.args, "-t", "target-directory")
	if len(dests) == 0 && len(ops) > 1 {
		dests, ops = ops[len(ops)-1:], ops[:len(ops)-1]
	}
	level := secret.None
	for _, src := range ops {
		level = max(level, s.copySource(c, src))
	}
	for _, d := range dests {
		s.taint(c, d, level)
		s.write(c, s.where(d, c.cwd), "")
	}
	s.allow(c.name)
}

// taint records that the file p now holds secrets of the given level.
func (s *sh) taint(c *cmd, p string, level int) {
	if level == secret.None {
		return
	}
	pl := s.where(p, c.cwd)
	if pl.abs == "" {
		return
	}
	if s.tainted == nil {
		s.tainted = map[string]int{}
	}
	s.tainted[pl.abs] = max(s.tainted[pl.abs], level)
}

// copySource judges a file copied somewhere: copying credentials stages
// them for use elsewhere.
func (s *sh) copySource(c *cmd, src string) int {
	pl := s.where(src, c.cwd)
	if level, what := s.secret(pl); level > secret.None && !strings.Contains(src, "\x01") {
		risk := medium
		if level == secret.Critical {
			risk = high
		}
		s.esc(vocab.CredentialProbing, risk, "`"+c.text+"` copies "+what)
		return level
	}
	if t := s.tainted[pl.abs]; t > secret.None {
		return t
	}
	if pl.zone == zSystem && systemPrivate(pl.abs) {
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` copies "+pl.abs+" from outside the workspace")
		return secret.Sensitive
	}
	if pl.zone == zDevice {
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` copies the device "+pl.abs)
	}
	return secret.None
}

func judgeMv(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "StT", "suffix", "target-directory")
	dests := shell.OptValues(c.args, "-t", "target-directory")
	if len(dests) == 0 && len(ops) > 1 {
		dests, ops = ops[len(ops)-1:], ops[:len(ops)-1]
	}
	for _, src := range ops {
		// Moving a file away removes it from where it was.
		pl := s.where(src, c.cwd)
		if b := s.broadPath(pl); b != "" {
			s.deny(vocab.Destructive, "`"+c.text+"` moves "+b+" away")
			return
		}
		s.copySource(c, src)
		if pl.zone == zSystem && criticalSystemPath(pl.abs) {
			s.esc(vocab.Destructive, high, "`"+c.text+"` moves system files")
			continue
		}
		s.write(c, pl, "")
	}
	for _, d := range dests {
		s.write(c, s.where(d, c.cwd), "")
	}
	s.allow("mv")
}

func judgeLn(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "StT", "suffix", "target-directory")
	if len(ops) == 0 {
		s.allow("ln")
		return
	}
	target := ops[0]
	link := ""
	if len(ops) > 1 {
		link = ops[len(ops)-1]
	} else {
		link = "./" + shortBase(target)
	}
	if target == "/dev/null" && secret.IsHistoryFile(shortBase(link)) {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` sends shell history to /dev/null")
		return
	}
	s.write(c, s.where(link, c.cwd), "")
	symbolic := shell.HasShort(c.args, 's', "StT") || shell.HasLong(c.args, "symbolic")
	if symbolic {
		s.link(target, link, c.cwd)
	}
	dir := c.cwd
	if symbolic && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "~") {
		// A relative target is relative to the link's directory.
		dir = s.where(path.Dir(link), c.cwd).abs
	}
	switch tpl := s.where(target, dir); {
	case !symbolic && tpl.zone != zWork && tpl.zone != zTmp && tpl.zone != zNull:
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` makes a hard link to "+orName(tpl.abs, target)+": writing the link writes it")
		return
	case symbolic && s.escalated && tpl.zone != zWork && tpl.zone != zTmp && tpl.zone != zNull:
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` makes a link to "+orName(tpl.abs, target)+", outside the workspace, in a command that runs outside the sandbox")
		return
	}
	s.allow("ln")
}

func shortBase(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func judgeRm(s *sh, c *cmd) {
	recursive := c.name == "rmdir" || shell.HasShort(c.args, 'r', "") || shell.HasShort(c.args, 'R', "") || shell.HasLong(c.args, "recursive")
	if c.name == "rmdir" {
		recursive = false
	}
	if shell.HasLong(c.args, "no-preserve-root") {
		s.deny(vocab.Destructive, "`"+c.text+"` deletes without protecting /")
		return
	}
	ops := shell.Operands(c.args, "")
	if len(ops) == 0 {
		s.allow(c.name)
		return
	}
	for _, p := range ops {
		if secret.IsHistoryFile(shortBase(p)) {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` erases shell history")
			continue
		}
		s.remove(c, p, recursive)
	}
}

func judgeShred(s *sh, c *cmd) {
	for _, p := range shell.Operands(c.args, "nsx", "iterations", "size", "random-source") {
		pl := s.where(p, c.cwd)
		switch {
		case pl.zone == zDevice:
			s.deny(vocab.Destructive, "`"+c.text+"` overwrites the device "+pl.abs)
			return
		case pl.zone == zSystem || pl.zone == zHome && s.broadPath(pl) != "":
			s.deny(vocab.Destructive, "`"+c.text+"` irrecoverably overwrites "+pl.abs)
			return
		}
		s.esc(vocab.Destructive, high, "`"+c.text+"` irrecoverably overwrites files")
	}
}

func judgeTruncate(s *sh, c *cmd) {
	for _, p := range shell.Operands(c.args, "sor", "size", "reference", "io-blocks") {
		if secret.IsHistoryFile(shortBase(p)) {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` erases shell history")
			continue
		}
		pl := s.where(p, c.cwd)
		if pl.zone == zSystem && (strings.HasPrefix(pl.abs, "/var/log") || strings.Contains(pl.abs, "/log/")) {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` empties system logs")
			continue
		}
		s.write(c, pl, "")
	}
	s.allow("truncate")
}

func judgeChmod(s *sh, c *cmd) {
	if s.readOnly {
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes permissions in read-only mode")
		return
	}
	ch := command.Chmod(c.args)
	mode, targets, recursive := ch.Mode, ch.Targets, ch.Recursive
	ww, suid := command.ModeWorldWritable(mode), command.ModeSetUID(mode)
	for _, t := range targets {
		pl := s.where(t, c.cwd)
		level, what := s.secret(pl)
		switch {
		case s.broadPath(pl) != "" && (recursive || ww):
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` changes the permissions of "+s.broadPath(pl))
			return
		case suid && pl.zone == zSystem && !pl.item:
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes "+t+" run as its owner for every user (setuid)")
			return
		case suid:
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` sets setuid")
		case command.ModeSetGID(mode) && pl.zone != zWork:
			s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` sets setgid")
		case ww && (level > secret.None || isCredentialStore(pl)):
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` lets anyone write "+what)
			return
		case ww && pl.zone == zSystem && (recursive || criticalSystemPath(pl.abs) || strings.HasSuffix(pl.abs, ".sock")):
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` lets anyone write "+pl.abs)
			return
		case ww:
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` makes "+t+" writable by everyone")
		case level > secret.None && command.ModeOpensRead(mode):
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` lets others read "+what)
		case pl.zone == zWork || pl.zone == zHome && level > secret.None:
			// Tightening a key's permissions, making a script executable.
		case pl.zone == zTmp && !recursive:
		default:
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes permissions outside the workspace ("+t+")")
		}
	}
	s.allow("chmod")
}

func judgeChown(s *sh, c *cmd) {
	if s.readOnly {
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes owners in read-only mode")
		return
	}
	ops := shell.Operands(c.args, "", "from", "reference")
	recursive := shell.HasShort(c.args, 'R', "") || shell.HasLong(c.args, "recursive")
	if len(ops) < 2 && !shell.HasLong(c.args, "reference") {
		s.allow(c.name)
		return
	}
	owner := ops[0]
	targets := ops[1:]
	if shell.HasLong(c.args, "reference") {
		owner, targets = "", ops
	}
	toRoot := owner == "root" || strings.HasPrefix(owner, "root:") || owner == "0" || strings.HasPrefix(owner, "0:")
	for _, t := range targets {
		pl := s.where(t, c.cwd)
		switch {
		case s.broadPath(pl) != "" && recursive:
			s.deny(vocab.Destructive, "`"+c.text+"` changes the owner of everything under "+s.broadPath(pl))
			return
		case toRoot:
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` gives files to root")
		case pl.zone == zWork:
		default:
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes ownership outside the workspace ("+t+")")
		}
	}
	s.allow(c.name)
}

func judgeChattr(s *sh, c *cmd) {
	if c.name == "xattr" && !shell.HasShort(c.args, 'd', "w") && !shell.HasShort(c.args, 'c', "w") && !shell.HasShort(c.args, 'w', "") {
		s.allow("xattr")
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes file attributes or access lists")
}

func judgeTar(s *sh, c *cmd) {
	args := c.args
	// The first word may be a bundle of letters without a dash (tar czf).
	flags := ""
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		flags = args[1]
	}
	has := func(l byte, long string) bool {
		return strings.IndexByte(flags, l) >= 0 || shell.HasShort(args, l, "fCTXbHKLNVgI") || shell.HasLong(args, long)
	}
	create := has('c', "create") || has('r', "append") || has('u', "update")
	extract := has('x', "extract") || shell.HasLong(args, "get")
	if shell.HasLong(args, "to-command", "checkpoint-action", "use-compress-program", "info-script", "new-volume-script") || shell.HasShort(args, 'I', "fCTXbHKLNVg") {
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs a program")
	}
	archives := shell.OptValues(args, "-f", "file")
	ops := shell.Operands(args, "fCTXbHKLNVgI", "file", "directory", "files-from", "exclude-from", "exclude", "transform", "owner", "group", "mode", "format", "blocking-factor", "label")
	if flags != "" && len(ops) > 0 && ops[0] == flags {
		ops = ops[1:]
		if strings.IndexByte(flags, 'f') >= 0 && len(ops) > 0 && len(archives) == 0 {
			archives, ops = ops[:1], ops[1:]
		}
	}
	dirs := shell.OptValues(args, "-C", "directory")
	cwd := c.cwd
	if len(dirs) > 0 {
		if pl := s.where(dirs[0], c.cwd); pl.abs != "" && !strings.HasPrefix(pl.abs, "~") {
			cwd = pl.abs
		}
	}
	c2 := *c
	c2.cwd = cwd
	switch {
	case create:
		level := secret.None
		for _, src := range ops {
			level = max(level, s.archiveSource(&c2, src))
		}
		for _, a := range archives {
			if a != "-" {
				s.taint(c, a, level)
				s.write(c, s.where(a, c.cwd), "")
			} else if level > c.out {
				c.out, c.outWhat = level, "an archive of credentials"
			}
		}
	case extract:
		for _, a := range archives {
			if a != "-" {
				s.read(c, a, false)
			}
		}
		dest := "."
		if len(dirs) > 0 {
			dest = dirs[0]
		}
		s.write(c, s.where(dest, c.cwd), "")
	default:
		for _, a := range archives {
			s.read(c, a, false)
		}
	}
	s.allow("tar")
}

// archiveSource judges a path put into an archive.
func (s *sh) archiveSource(c *cmd, src string) int {
	pl := s.where(src, c.cwd)
	if s.broadPath(pl) != "" && pl.zone == zHome || pl.abs == "~" {
		s.esc(vocab.CredentialProbing, high, "`"+c.text+"` packs the whole home directory, keys included")
		return secret.Critical
	}
	return s.copySource(c, src)
}

func judgeZip(s *sh, c *cmd) {
	args := c.args
	ops := shell.Operands(args, "xibntd", "exclude", "include")
	if c.name != "zip" {
		// 7z a ARCHIVE FILES…, 7z x ARCHIVE
		if len(ops) > 0 && (ops[0] == "x" || ops[0] == "e") {
			if len(ops) > 1 {
				s.read(c, ops[1], false)
			}
			dest := "."
			for _, a := range args {
				if strings.HasPrefix(a, "-o") && len(a) > 2 {
					dest = a[2:]
				}
			}
			s.write(c, s.where(dest, c.cwd), "")
			s.allow(c.name)
			return
		}
		if len(ops) > 0 && (ops[0] == "l" || ops[0] == "t") {
			s.allow(c.name)
			return
		}
		if len(ops) > 0 {
			ops = ops[1:]
		}
	}
	if shell.HasShort(args, 'T', "xibntd") || shell.HasShort(args, 'u', "") && c.name != "zip" {
		s.esc(vocab.Routine, low, "`"+c.text+"` runs a test program")
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-p") && c.name != "zip" || a == "-e" && c.name == "zip" || strings.HasPrefix(a, "-P") {
			// Encrypting files (with a password given here) is how
			// ransomware hides data; worth a look when they are not ours.
			for _, src := range ops[min(1, len(ops)):] {
				if pl := s.where(src, c.cwd); pl.zone != zWork && pl.zone != zTmp {
					s.esc(vocab.Destructive, medium, "`"+c.text+"` encrypts files outside the workspace")
				}
			}
		}
	}
	if len(ops) > 0 {
		level := secret.None
		for _, src := range ops[1:] {
			level = max(level, s.archiveSource(c, src))
		}
		s.taint(c, ops[0], level)
		s.write(c, s.where(ops[0], c.cwd), "")
	}
	s.allow(c.name)
}

func judgeUnzip(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "dxP")
	for i, a := range ops {
		if i == 0 {
			s.read(c, a, false)
		}
	}
	dest := shell.OptValues(c.args, "-d")
	if shell.HasShort(c.args, 'p', "dxP") || shell.HasShort(c.args, 'l', "dxP") || shell.HasShort(c.args, 't', "dxP") || shell.HasShort(c.args, 'c', "dxP") {
		s.allow(c.name)
		return
	}
	d := "."
	if len(dest) > 0 {
		d = dest[0]
	}
	s.write(c, s.where(d, c.cwd), "")
	s.allow(c.name)
}

func judgeCompress(s *sh, c *cmd) {
	toStdout := shell.HasShort(c.args, 'c', "SbL") || shell.HasLong(c.args, "stdout", "to-stdout") || shell.HasShort(c.args, 'l', "") || shell.HasShort(c.args, 't', "")
	for _, p := range shell.Operands(c.args, "S", "suffix") {
		if toStdout {
			s.read(c, p, true)
		} else {
			s.write(c, s.where(p, c.cwd), "")
		}
	}
	s.allow(c.name)
}

func judgeSplit(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "abClnf", "suffix-length", "bytes", "line-bytes", "lines", "number", "additional-suffix", "filter", "prefix")
	if shell.HasLong(c.args, "filter") {
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs a filter command")
	}
	if len(ops) > 0 && ops[0] != "-" {
		s.read(c, ops[0], false)
	}
	prefix := "x"
	if c.name == "csplit" {
		prefix = "xx"
		if v := shell.OptValues(c.args, "-f", "prefix"); len(v) > 0 {
			prefix = v[0]
		}
	} else if len(ops) > 1 {
		prefix = ops[1]
	}
	s.write(c, s.where(prefix, c.cwd), "")
	s.allow(c.name)
}

func judgePatch(s *sh, c *cmd) {
	for _, o := range shell.OptValues(c.args, "-o", "output") {
		s.write(c, s.where(o, c.cwd), "")
	}
	dirs := shell.OptValues(c.args, "-d", "directory")
	d := "."
	if len(dirs) > 0 {
		d = dirs[0]
	}
	ops := shell.Operands(c.args, "pFBdDiorVYzg", "strip", "fuzz", "prefix", "directory", "ifdef", "input", "output", "reject-file", "backup-if-mismatch", "basename-prefix", "suffix", "get")
	if len(ops) > 0 {
		s.write(c, s.where(ops[0], c.cwd), "")
	} else {
		s.write(c, s.where(d, c.cwd), "")
	}
	s.allow("patch")
}

func judgeDd(s *sh, c *cmd) {
	for _, a := range c.args[1:] {
		switch {
		case strings.HasPrefix(a, "of="):
			pl := s.where(a[3:], c.cwd)
			if pl.zone == zDevice && !isScratchDevice(pl.abs) {
				s.deny(vocab.Destructive, "`"+c.text+"` overwrites the device "+pl.abs)
				return
			}
			s.write(c, pl, "")
		case strings.HasPrefix(a, "if="):
			s.read(c, a[3:], true)
		}
	}
	s.allow("dd")
}

func judgeRename(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "")
	if c.name == "rename" && len(ops) > 0 {
		ops = ops[1:]
		if len(ops) > 0 && !strings.ContainsAny(c.args[1], "/") {
			// util-linux: rename FROM TO FILES…
			ops = ops[1:]
		}
	}
	s.writesOperands(c, ops)
	s.allow(c.name)
}

func judgeCpio(s *sh, c *cmd) {
	if shell.HasShort(c.args, 'i', "DEFHIMORst") || shell.HasShort(c.args, 'p', "DEFHIMORst") {
		dest := "."
		if ops := shell.Operands(c.args, "DEFHIMORst"); len(ops) > 0 {
			dest = ops[len(ops)-1]
		}
		for _, d := range shell.OptValues(c.args, "-D", "directory") {
			dest = d
		}
		s.write(c, s.where(dest, c.cwd), "")
	}
	for _, o := range shell.OptValues(c.args, "-O", "") {
		s.write(c, s.where(o, c.cwd), "")
	}
	s.allow("cpio")
}

// judgeMogrify: ImageMagick's mogrify rewrites its operands in place.
func judgeMogrify(s *sh, c *cmd) {
	for _, p := range shell.Operands(c.args, "") {
		if strings.ContainsAny(p, "x%") && !strings.Contains(p, ".") {
			continue // a geometry such as 800x600
		}
		s.write(c, s.where(p, c.cwd), "")
	}
	s.allow("mogrify")
}
