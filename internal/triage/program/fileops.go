package program

import (
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = judge.RegisterJudges(map[string]func(*judge.Script, *judge.Command){
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
func writesOperands(s *judge.Script, c *judge.Command, ops []string) {
	for _, p := range ops {
		s.Write(c, s.Where(p, c.Cwd), "")
	}
}

func judgeMkdir(s *judge.Script, c *judge.Command) {
	writesOperands(s, c, shell.Operands(c.Args, "mdrt", "mode", "reference", "date"))
	s.Allow(c.Name)
}

func judgeCp(s *judge.Script, c *judge.Command) {
	argShort := "StTm"
	ops := shell.Operands(c.Args, argShort, "suffix", "target-directory", "mode", "owner", "group")
	dests := shell.OptValues(c.Args, "-t", "target-directory")
	if len(dests) == 0 && len(ops) > 1 {
		dests, ops = ops[len(ops)-1:], ops[:len(ops)-1]
	}
	level := secret.None
	for _, src := range ops {
		level = max(level, copySource(s, c, src))
	}
	for _, d := range dests {
		s.Taint(c, d, level)
		s.Write(c, s.Where(d, c.Cwd), "")
	}
	s.Allow(c.Name)
}

// copySource judges a file copied somewhere: copying credentials stages
// them for use elsewhere.
func copySource(s *judge.Script, c *judge.Command, src string) int {
	pl := s.Where(src, c.Cwd)
	if level, what := s.Secret(pl); level > secret.None && !strings.Contains(src, "\x01") {
		risk := judge.Medium
		if level == secret.Critical {
			risk = judge.High
		}
		s.Esc(vocab.CredentialProbing, risk, "`"+c.Text+"` copies "+what)
		return level
	}
	if t := s.Tainted[pl.Abs]; t > secret.None {
		return t
	}
	if pl.Zone == judge.ZSystem && judge.SystemPrivate(pl.Abs) {
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` copies "+pl.Abs+" from outside the workspace")
		return secret.Sensitive
	}
	if pl.Zone == judge.ZDevice {
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` copies the device "+pl.Abs)
	}
	return secret.None
}

func judgeMv(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "StT", "suffix", "target-directory")
	dests := shell.OptValues(c.Args, "-t", "target-directory")
	if len(dests) == 0 && len(ops) > 1 {
		dests, ops = ops[len(ops)-1:], ops[:len(ops)-1]
	}
	for _, src := range ops {
		// Moving a file away removes it from where it was.
		pl := s.Where(src, c.Cwd)
		if b := s.BroadPath(pl); b != "" {
			s.Deny(vocab.Destructive, "`"+c.Text+"` moves "+b+" away")
			return
		}
		copySource(s, c, src)
		if pl.Zone == judge.ZSystem && judge.CriticalSystemPath(pl.Abs) {
			s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` moves system files")
			continue
		}
		s.Write(c, pl, "")
	}
	for _, d := range dests {
		s.Write(c, s.Where(d, c.Cwd), "")
	}
	s.Allow("mv")
}

func judgeLn(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "StT", "suffix", "target-directory")
	if len(ops) == 0 {
		s.Allow("ln")
		return
	}
	target := ops[0]
	link := ""
	if len(ops) > 1 {
		link = ops[len(ops)-1]
	} else {
		link = "./" + judge.ShortBase(target)
	}
	if target == "/dev/null" && secret.IsHistoryFile(judge.ShortBase(link)) {
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` sends shell history to /dev/null")
		return
	}
	s.Write(c, s.Where(link, c.Cwd), "")
	symbolic := shell.HasShort(c.Args, 's', "StT") || shell.HasLong(c.Args, "symbolic")
	if symbolic {
		s.Link(target, link, c.Cwd)
	}
	dir := c.Cwd
	if symbolic && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "~") {
		// A relative target is relative to the link's directory.
		dir = s.Where(path.Dir(link), c.Cwd).Abs
	}
	switch tpl := s.Where(target, dir); {
	case !symbolic && tpl.Zone != judge.ZWork && tpl.Zone != judge.ZTmp && tpl.Zone != judge.ZNull:
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` makes a hard link to "+judge.OrName(tpl.Abs, target)+": writing the link writes it")
		return
	case symbolic && s.Escalated && tpl.Zone != judge.ZWork && tpl.Zone != judge.ZTmp && tpl.Zone != judge.ZNull:
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` makes a link to "+judge.OrName(tpl.Abs, target)+", outside the workspace, in a command that runs outside the sandbox")
		return
	}
	s.Allow("ln")
}

func judgeRm(s *judge.Script, c *judge.Command) {
	recursive := c.Name == "rmdir" || shell.HasShort(c.Args, 'r', "") || shell.HasShort(c.Args, 'R', "") || shell.HasLong(c.Args, "recursive")
	if c.Name == "rmdir" {
		recursive = false
	}
	if shell.HasLong(c.Args, "no-preserve-root") {
		s.Deny(vocab.Destructive, "`"+c.Text+"` deletes without protecting /")
		return
	}
	ops := shell.Operands(c.Args, "")
	if len(ops) == 0 {
		s.Allow(c.Name)
		return
	}
	for _, p := range ops {
		if secret.IsHistoryFile(judge.ShortBase(p)) {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` erases shell history")
			continue
		}
		s.Remove(c, p, recursive)
	}
}

func judgeShred(s *judge.Script, c *judge.Command) {
	for _, p := range shell.Operands(c.Args, "nsx", "iterations", "size", "random-source") {
		pl := s.Where(p, c.Cwd)
		switch {
		case pl.Zone == judge.ZDevice:
			s.Deny(vocab.Destructive, "`"+c.Text+"` overwrites the device "+pl.Abs)
			return
		case pl.Zone == judge.ZSystem || pl.Zone == judge.ZHome && s.BroadPath(pl) != "":
			s.Deny(vocab.Destructive, "`"+c.Text+"` irrecoverably overwrites "+pl.Abs)
			return
		}
		s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` irrecoverably overwrites files")
	}
}

func judgeTruncate(s *judge.Script, c *judge.Command) {
	for _, p := range shell.Operands(c.Args, "sor", "size", "reference", "io-blocks") {
		if secret.IsHistoryFile(judge.ShortBase(p)) {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` erases shell history")
			continue
		}
		pl := s.Where(p, c.Cwd)
		if pl.Zone == judge.ZSystem && (strings.HasPrefix(pl.Abs, "/var/log") || strings.Contains(pl.Abs, "/log/")) {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` empties system logs")
			continue
		}
		s.Write(c, pl, "")
	}
	s.Allow("truncate")
}

func judgeChmod(s *judge.Script, c *judge.Command) {
	if s.ReadOnly {
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes permissions in read-only mode")
		return
	}
	ch := command.Chmod(c.Args)
	mode, targets, recursive := ch.Mode, ch.Targets, ch.Recursive
	ww, suid := command.ModeWorldWritable(mode), command.ModeSetUID(mode)
	for _, t := range targets {
		pl := s.Where(t, c.Cwd)
		level, what := s.Secret(pl)
		switch {
		case s.BroadPath(pl) != "" && (recursive || ww):
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` changes the permissions of "+s.BroadPath(pl))
			return
		case suid && pl.Zone == judge.ZSystem && !pl.Item:
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` makes "+t+" run as its owner for every user (setuid)")
			return
		case suid:
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` sets setuid")
		case command.ModeSetGID(mode) && pl.Zone != judge.ZWork:
			s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` sets setgid")
		case ww && (level > secret.None || judge.IsCredentialStore(pl)):
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` lets anyone write "+what)
			return
		case ww && pl.Zone == judge.ZSystem && (recursive || judge.CriticalSystemPath(pl.Abs) || strings.HasSuffix(pl.Abs, ".sock")):
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` lets anyone write "+pl.Abs)
			return
		case ww:
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` makes "+t+" writable by everyone")
		case level > secret.None && command.ModeOpensRead(mode):
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` lets others read "+what)
		case pl.Zone == judge.ZWork || pl.Zone == judge.ZHome && level > secret.None:
			// Tightening a key's permissions, making a script executable.
		case pl.Zone == judge.ZTmp && !recursive:
		default:
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes permissions outside the workspace ("+t+")")
		}
	}
	s.Allow("chmod")
}

func judgeChown(s *judge.Script, c *judge.Command) {
	if s.ReadOnly {
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes owners in read-only mode")
		return
	}
	ops := shell.Operands(c.Args, "", "from", "reference")
	recursive := shell.HasShort(c.Args, 'R', "") || shell.HasLong(c.Args, "recursive")
	if len(ops) < 2 && !shell.HasLong(c.Args, "reference") {
		s.Allow(c.Name)
		return
	}
	owner := ops[0]
	targets := ops[1:]
	if shell.HasLong(c.Args, "reference") {
		owner, targets = "", ops
	}
	toRoot := owner == "root" || strings.HasPrefix(owner, "root:") || owner == "0" || strings.HasPrefix(owner, "0:")
	for _, t := range targets {
		pl := s.Where(t, c.Cwd)
		switch {
		case s.BroadPath(pl) != "" && recursive:
			s.Deny(vocab.Destructive, "`"+c.Text+"` changes the owner of everything under "+s.BroadPath(pl))
			return
		case toRoot:
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` gives files to root")
		case pl.Zone == judge.ZWork:
		default:
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes ownership outside the workspace ("+t+")")
		}
	}
	s.Allow(c.Name)
}

func judgeChattr(s *judge.Script, c *judge.Command) {
	if c.Name == "xattr" && !shell.HasShort(c.Args, 'd', "w") && !shell.HasShort(c.Args, 'c', "w") && !shell.HasShort(c.Args, 'w', "") {
		s.Allow("xattr")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes file attributes or access lists")
}

func judgeTar(s *judge.Script, c *judge.Command) {
	args := c.Args
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
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs a program")
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
	cwd := c.Cwd
	if len(dirs) > 0 {
		if pl := s.Where(dirs[0], c.Cwd); pl.Abs != "" && !strings.HasPrefix(pl.Abs, "~") {
			cwd = pl.Abs
		}
	}
	c2 := *c
	c2.Cwd = cwd
	switch {
	case create:
		level := secret.None
		for _, src := range ops {
			level = max(level, archiveSource(s, &c2, src))
		}
		for _, a := range archives {
			if a != "-" {
				s.Taint(c, a, level)
				s.Write(c, s.Where(a, c.Cwd), "")
			} else if level > c.Out {
				c.Out, c.OutWhat = level, "an archive of credentials"
			}
		}
	case extract:
		for _, a := range archives {
			if a != "-" {
				s.Read(c, a, false)
			}
		}
		dest := "."
		if len(dirs) > 0 {
			dest = dirs[0]
		}
		s.Write(c, s.Where(dest, c.Cwd), "")
	default:
		for _, a := range archives {
			s.Read(c, a, false)
		}
	}
	s.Allow("tar")
}

// archiveSource judges a path put into an archive.
func archiveSource(s *judge.Script, c *judge.Command, src string) int {
	pl := s.Where(src, c.Cwd)
	if s.BroadPath(pl) != "" && pl.Zone == judge.ZHome || pl.Abs == "~" {
		s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` packs the whole home directory, keys included")
		return secret.Critical
	}
	return copySource(s, c, src)
}

func judgeZip(s *judge.Script, c *judge.Command) {
	args := c.Args
	ops := shell.Operands(args, "xibntd", "exclude", "include")
	if c.Name != "zip" {
		// 7z a ARCHIVE FILES…, 7z x ARCHIVE
		if len(ops) > 0 && (ops[0] == "x" || ops[0] == "e") {
			if len(ops) > 1 {
				s.Read(c, ops[1], false)
			}
			dest := "."
			for _, a := range args {
				if strings.HasPrefix(a, "-o") && len(a) > 2 {
					dest = a[2:]
				}
			}
			s.Write(c, s.Where(dest, c.Cwd), "")
			s.Allow(c.Name)
			return
		}
		if len(ops) > 0 && (ops[0] == "l" || ops[0] == "t") {
			s.Allow(c.Name)
			return
		}
		if len(ops) > 0 {
			ops = ops[1:]
		}
	}
	if shell.HasShort(args, 'T', "xibntd") || shell.HasShort(args, 'u', "") && c.Name != "zip" {
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs a test program")
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-p") && c.Name != "zip" || a == "-e" && c.Name == "zip" || strings.HasPrefix(a, "-P") {
			// Encrypting files (with a password given here) is how
			// ransomware hides data; worth a look when they are not ours.
			for _, src := range ops[min(1, len(ops)):] {
				if pl := s.Where(src, c.Cwd); pl.Zone != judge.ZWork && pl.Zone != judge.ZTmp {
					s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` encrypts files outside the workspace")
				}
			}
		}
	}
	if len(ops) > 0 {
		level := secret.None
		for _, src := range ops[1:] {
			level = max(level, archiveSource(s, c, src))
		}
		s.Taint(c, ops[0], level)
		s.Write(c, s.Where(ops[0], c.Cwd), "")
	}
	s.Allow(c.Name)
}

func judgeUnzip(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "dxP")
	for i, a := range ops {
		if i == 0 {
			s.Read(c, a, false)
		}
	}
	dest := shell.OptValues(c.Args, "-d")
	if shell.HasShort(c.Args, 'p', "dxP") || shell.HasShort(c.Args, 'l', "dxP") || shell.HasShort(c.Args, 't', "dxP") || shell.HasShort(c.Args, 'c', "dxP") {
		s.Allow(c.Name)
		return
	}
	d := "."
	if len(dest) > 0 {
		d = dest[0]
	}
	s.Write(c, s.Where(d, c.Cwd), "")
	s.Allow(c.Name)
}

func judgeCompress(s *judge.Script, c *judge.Command) {
	toStdout := shell.HasShort(c.Args, 'c', "SbL") || shell.HasLong(c.Args, "stdout", "to-stdout") || shell.HasShort(c.Args, 'l', "") || shell.HasShort(c.Args, 't', "")
	for _, p := range shell.Operands(c.Args, "S", "suffix") {
		if toStdout {
			s.Read(c, p, true)
		} else {
			s.Write(c, s.Where(p, c.Cwd), "")
		}
	}
	s.Allow(c.Name)
}

func judgeSplit(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "abClnf", "suffix-length", "bytes", "line-bytes", "lines", "number", "additional-suffix", "filter", "prefix")
	if shell.HasLong(c.Args, "filter") {
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs a filter command")
	}
	if len(ops) > 0 && ops[0] != "-" {
		s.Read(c, ops[0], false)
	}
	prefix := "x"
	if c.Name == "csplit" {
		prefix = "xx"
		if v := shell.OptValues(c.Args, "-f", "prefix"); len(v) > 0 {
			prefix = v[0]
		}
	} else if len(ops) > 1 {
		prefix = ops[1]
	}
	s.Write(c, s.Where(prefix, c.Cwd), "")
	s.Allow(c.Name)
}

func judgePatch(s *judge.Script, c *judge.Command) {
	for _, o := range shell.OptValues(c.Args, "-o", "output") {
		s.Write(c, s.Where(o, c.Cwd), "")
	}
	dirs := shell.OptValues(c.Args, "-d", "directory")
	d := "."
	if len(dirs) > 0 {
		d = dirs[0]
	}
	ops := shell.Operands(c.Args, "pFBdDiorVYzg", "strip", "fuzz", "prefix", "directory", "ifdef", "input", "output", "reject-file", "backup-if-mismatch", "basename-prefix", "suffix", "get")
	if len(ops) > 0 {
		s.Write(c, s.Where(ops[0], c.Cwd), "")
	} else {
		s.Write(c, s.Where(d, c.Cwd), "")
	}
	s.Allow("patch")
}

func judgeDd(s *judge.Script, c *judge.Command) {
	for _, a := range c.Args[1:] {
		switch {
		case strings.HasPrefix(a, "of="):
			pl := s.Where(a[3:], c.Cwd)
			if pl.Zone == judge.ZDevice && !judge.IsScratchDevice(pl.Abs) {
				s.Deny(vocab.Destructive, "`"+c.Text+"` overwrites the device "+pl.Abs)
				return
			}
			s.Write(c, pl, "")
		case strings.HasPrefix(a, "if="):
			s.Read(c, a[3:], true)
		}
	}
	s.Allow("dd")
}

func judgeRename(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "")
	if c.Name == "rename" && len(ops) > 0 {
		ops = ops[1:]
		if len(ops) > 0 && !strings.ContainsAny(c.Args[1], "/") {
			// util-linux: rename FROM TO FILES…
			ops = ops[1:]
		}
	}
	writesOperands(s, c, ops)
	s.Allow(c.Name)
}

func judgeCpio(s *judge.Script, c *judge.Command) {
	if shell.HasShort(c.Args, 'i', "DEFHIMORst") || shell.HasShort(c.Args, 'p', "DEFHIMORst") {
		dest := "."
		if ops := shell.Operands(c.Args, "DEFHIMORst"); len(ops) > 0 {
			dest = ops[len(ops)-1]
		}
		for _, d := range shell.OptValues(c.Args, "-D", "directory") {
			dest = d
		}
		s.Write(c, s.Where(dest, c.Cwd), "")
	}
	for _, o := range shell.OptValues(c.Args, "-O", "") {
		s.Write(c, s.Where(o, c.Cwd), "")
	}
	s.Allow("cpio")
}

// judgeMogrify: ImageMagick's mogrify rewrites its operands in place.
func judgeMogrify(s *judge.Script, c *judge.Command) {
	for _, p := range shell.Operands(c.Args, "") {
		if strings.ContainsAny(p, "x%") && !strings.Contains(p, ".") {
			continue // a geometry such as 800x600
		}
		s.Write(c, s.Where(p, c.Cwd), "")
	}
	s.Allow("mogrify")
}
