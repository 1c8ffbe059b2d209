package triage

import (
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// What commands do to paths: read (print or inspect), write, delete.

// read judges c reading the path p. print says whether the content is
// printed or copied (cat, grep, cp), not just inspected (ls, stat, wc).
func (s *sh) read(c *cmd, p string, print bool) {
	pl := s.where(p, c.cwd)
	if pl.state {
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` reads warden's own state ("+pl.abs+")")
		return
	}
	level, what := s.secret(pl)
	level, what = s.taintedRead(pl, level, what)
	if pl.item {
		// An item found by find or xargs: only its root is known.
		level, what = secret.None, ""
	}
	if print && level > c.out {
		c.out, c.outWhat = level, what
	}
	switch {
	case level == secret.Critical && print:
		s.deny(vocab.CredentialProbing, "`"+c.text+"` reads "+what)
		return
	case level == secret.Critical:
		if isDirLike(p) {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` lists "+what)
		}
		return
	case level == secret.Sensitive && print:
		s.esc(vocab.CredentialProbing, high, "`"+c.text+"` reads "+what)
		return
	case level == secret.Sensitive:
		if isCredentialStore(pl) || pl.zone == zSystem {
			s.esc(vocab.CredentialProbing, low, "`"+c.text+"` lists "+what)
		}
		return
	}
	switch pl.zone {
	case zDevice:
		if !strings.HasPrefix(pl.abs, "/dev/pts") && !strings.HasPrefix(pl.abs, "/dev/tty") {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` reads the device "+pl.abs)
		}
	case zSystem:
		switch {
		case print && systemPrivate(pl.abs):
			if c.out < secret.Sensitive {
				c.out, c.outWhat = secret.Sensitive, pl.abs
			}
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` reads "+pl.abs+", private to the system or another user")
		case !pl.item && !publicSystemPath(pl.abs):
			s.esc(vocab.CredentialProbing, low, "`"+c.text+"` reads "+pl.abs+", outside the workspace, the home and temporary directories")
		}
	}
}

// publicSystemPath reports whether a system path holds what any developer
// reads without a second thought: toolchains' sources and headers,
// installed libraries, documentation, and a few files describing the
// machine.
func publicSystemPath(abs string) bool {
	switch abs {
	case "/etc/os-release", "/etc/lsb-release", "/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/etc/timezone",
		"/etc/localtime", "/etc/debian_version", "/etc/redhat-release", "/etc/alpine-release", "/proc/cpuinfo",
		"/proc/meminfo", "/proc/version", "/proc/loadavg", "/proc/uptime":
		return true
	}
	for _, d := range []string{"/usr/include", "/usr/local/include", "/usr/share/doc", "/usr/share/man", "/usr/local/go",
		"/usr/lib/go", "/usr/local/lib/node_modules", "/usr/lib/node_modules", "/opt/homebrew", "/usr/local/Cellar",
		"/nix/store", "/usr/lib/jvm", "/usr/local/rustup", "/usr/local/cargo"} {
		if _, ok := within(abs, d); ok {
			return true
		}
	}
	return strings.Contains(abs, "/site-packages/") || strings.Contains(abs, "/dist-packages/") ||
		strings.Contains(abs, "/node_modules/") || strings.Contains(abs, "/go/pkg/mod/") ||
		strings.HasPrefix(abs, "/usr/lib/python") || strings.HasPrefix(abs, "/usr/local/lib/python")
}

// systemPrivate reports whether a system path is private to the system or
// other users: reading it is reconnaissance rather than development.
func systemPrivate(abs string) bool {
	for _, d := range []string{"/etc", "/root", "/proc", "/sys", "/var/log", "/var/lib", "/var/spool", "/var/db",
		"/var/backups", "/var/mail", "/private", "/boot", "/run", "/var/run", "/home", "/Users"} {
		if _, ok := within(abs, d); ok {
			return true
		}
	}
	return false
}

func isDirLike(p string) bool {
	b := path.Base(p)
	return strings.HasSuffix(p, "/") || b == ".ssh" || b == ".aws" || b == ".gnupg" || b == ".kube" || b == "keychains"
}

// isCredentialStore reports whether a place is a directory that holds
// credentials.
// wroteFile reports whether the script wrote the file abs before.
func (s *sh) wroteFile(abs string) bool {
	for _, w := range s.wrote {
		if w == abs {
			return true
		}
	}
	return false
}

func isCredentialStore(pl place) bool {
	b := path.Base(pl.abs)
	switch b {
	case ".ssh", ".aws", ".gnupg", ".kube", ".password-store", "keychains", "gcloud", ".azure", "ssh", "security", "pam.d", "root":
		return true
	}
	return false
}

// write judges c writing the path pl. content is what it writes when
// known (echo and printf), judged when the file runs later.
func (s *sh) write(c *cmd, pl place, content string) {
	if pl.zone == zNull {
		return
	}
	if pl.abs != "" && len(s.wrote) < 32 {
		s.wrote = append(s.wrote, pl.abs)
	}
	if s.readOnly {
		// The person chose a sandbox that writes nothing, the workspace
		// and temporary files included: no write, and no change of
		// metadata, is routine there.
		s.esc(vocab.Routine, medium, "`"+c.text+"` writes "+pl.abs+" in read-only mode")
		return
	}
	if pl.state {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes warden's own state ("+pl.abs+")")
		return
	}
	if strings.HasPrefix(pl.abs, "/dev/tcp/") || strings.HasPrefix(pl.abs, "/dev/udp/") {
		s.remoteSink = true
		switch {
		case c.name != "" && (shell.IsShell(c.name) || s.v.k.has(c.name, factInterpreter) || isPython(c.name)):
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` connects a shell to the network (a remote shell)")
		case c.out > secret.None:
			s.deny(vocab.Exfiltration, "`"+c.text+"` sends "+c.outWhat+" over a raw network connection")
		default:
			s.esc(vocab.Exfiltration, high, "`"+c.text+"` sends data over a raw network connection ("+pl.abs+")")
		}
		return
	}
	if pl.zone == zDevice {
		if isDisk(pl.abs) {
			s.deny(vocab.Destructive, "`"+c.text+"` writes the disk "+pl.abs+", destroying what it holds")
		} else {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` writes the device "+pl.abs)
		}
		return
	}
	if ok, what := startupFile(pl.abs); ok {
		s.persist(c, pl, what, content)
		return
	}
	if name := protectedPart(pl.abs); name != "" && pl.zone != zWork {
		// A .git, .warden or .agents at any depth, wherever it lies (a
		// workspace under /tmp or the home directory, which the request
		// may not name as the workspace): a .git made here runs its hooks
		// and core.fsmonitor when the person next uses git.
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes into a protected path ("+name+")")
		return
	}
	if level, what := s.secret(pl); level > secret.None && pl.zone != zWork {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` overwrites "+what)
		return
	}
	switch pl.zone {
	case zWork:
		if inside(pl.rel, ".git") || protectedPart("/"+pl.rel) == ".git" {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` writes inside .git")
			return
		}
		if protectedPart("/"+pl.rel) != "" {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes warden's protected files")
			return
		}
		s.allow("writes in the workspace")
	case zTmp:
		s.allow("writes a temporary file")
	case zHome:
		rel, _ := s.homeRel(pl.abs)
		if rel == "" {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` writes the home directory itself")
			return
		}
		first, _, _ := strings.Cut(rel, "/")
		if isCacheDir(rel) {
			s.allow("writes in a cache")
			return
		}
		if strings.HasPrefix(first, ".") {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes the user's configuration (~/"+rel+")")
			return
		}
		if _, below, _ := strings.Cut(rel, "/"); s.mcpHome && below != "" {
			// An MCP server writing in a folder under the home
			// directory: its own roots bound it, not the sandbox.
			s.allow("writes in a folder of the home directory")
			return
		}
		// Outside the workspace: the reviewer decides whether the user
		// wants it (SPEC G15).
		s.esc(vocab.Routine, medium, "`"+c.text+"` writes ~/"+rel+" in the home directory, outside the workspace")
	case zSystem:
		if strings.HasPrefix(pl.abs, "/etc/passwd") || strings.HasPrefix(pl.abs, "/etc/shadow") || strings.HasPrefix(pl.abs, "/etc/group") {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` edits the account database "+pl.abs)
			return
		}
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes "+pl.abs+" outside the workspace")
	default:
		s.esc(vocab.Routine, medium, "`"+c.text+"` writes a path that is not known before it runs")
	}
}

// persist judges a write into a file whose content runs or grants access
// later.
func (s *sh) persist(c *cmd, pl place, what, content string) {
	if content != "" && (what == "a shell start-up file" || what == "a system-wide shell start-up file" ||
		what == "a cron table" || what == "a boot script") {
		line := content
		if what == "a cron table" {
			line = cronCommand(content)
		}
		home := s.home
		if home == "" {
			home = "~"
		}
		sub, fetchRun := s.judgeLater(line, home)
		if sub.Decision == vocab.Deny {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes "+what+" run harmful code: "+sub.Reason)
			return
		}
		if fetchRun {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes "+what+" download and run code every time: "+sub.Reason)
			return
		}
		if r := tlsOffInText(content); r != "" {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` "+r+" for every future shell ("+what+")")
			return
		}
	}
	if what == "sudoers" && strings.Contains(content, "NOPASSWD") {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` grants passwordless sudo")
		return
	}
	if what == "a CI workflow" && pl.zone == zWork {
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes a CI workflow")
		return
	}
	s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes "+what+" ("+pl.abs+"): a lasting change")
}

// cronCommand returns the command part of a crontab line.
func cronCommand(line string) string {
	f := strings.Fields(line)
	if len(f) > 5 && !strings.HasPrefix(f[0], "@") {
		return strings.Join(f[5:], " ")
	}
	if len(f) > 1 && strings.HasPrefix(f[0], "@") {
		return strings.Join(f[1:], " ")
	}
	return line
}

// tlsOffInText finds settings in text that turn TLS verification off.
func tlsOffInText(text string) string {
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, `"';`)
		if name, val, ok := strings.Cut(w, "="); ok {
			if r := tlsOffVar(name, strings.Trim(val, `"'`)); r != "" {
				return r
			}
		}
	}
	return ""
}

// isDisk reports whether a device file is a disk, a partition or memory:
// writing it destroys what it holds.
func isDisk(abs string) bool {
	d := strings.TrimPrefix(abs, "/dev/")
	for _, p := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "root", "sr", "nbd"} {
		if strings.HasPrefix(d, p) {
			return !strings.HasPrefix(d, "mapper/loop") && d != "disk" && !strings.HasPrefix(d, "disk/by-label/scratch")
		}
	}
	return d == "mem" || d == "kmem" || d == "port"
}

func isScratchDevice(abs string) bool {
	for _, p := range []string{"/dev/loop", "/dev/ram", "/dev/pts/", "/dev/tty", "/dev/console", "/dev/kmsg", "/dev/mapper/loop"} {
		if strings.HasPrefix(abs, p) {
			return true
		}
	}
	return false
}

// inside reports whether rel is dir or below it.
// protectedPart returns the first component of the absolute path p that
// the sandbox protects (.git, .warden, .agents), "" when there is none.
func protectedPart(p string) string {
	for _, part := range strings.Split(p, "/") {
		if part == ".git" || part == ".warden" || part == ".agents" {
			return part
		}
	}
	return ""
}

func inside(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// remove judges c deleting the path p (recursively or not).
func (s *sh) remove(c *cmd, p string, recursive bool) {
	contents := false
	for {
		switch {
		case strings.HasSuffix(p, "/*"), strings.HasSuffix(p, "/.*"):
			p, contents = strings.TrimSuffix(strings.TrimSuffix(p, "*"), "."), true
		case p == "*" || p == ".*":
			p, contents = ".", true
		case len(p) > 1 && strings.HasSuffix(p, "/"):
			p = strings.TrimSuffix(p, "/")
		default:
			goto done
		}
	}
done:
	if p == "" {
		p = "/"
	}
	if strings.HasPrefix(p, "$") || strings.HasPrefix(p, "\"$") {
		if contents || recursive {
			s.esc(vocab.Destructive, high, "`"+c.text+"` deletes under a path that is not known before it runs (an empty variable would make it /)")
		} else {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes a path that is not known before it runs")
		}
		return
	}
	pl := s.where(p, c.cwd)
	if pl.state {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` deletes warden's own state ("+pl.abs+")")
		return
	}
	if b := s.broadPath(pl); b != "" {
		if recursive || contents {
			s.deny(vocab.Destructive, "`"+c.text+"` deletes "+b)
		} else {
			s.esc(vocab.Destructive, high, "`"+c.text+"` deletes "+b)
		}
		return
	}
	item := pl.item
	switch pl.zone {
	case zDevice:
		if isDisk(pl.abs) {
			s.deny(vocab.Destructive, "`"+c.text+"` deletes the device "+pl.abs)
		} else {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes the device "+pl.abs)
		}
	case zNull:
	case zSystem:
		if criticalSystemPath(pl.abs) {
			s.deny(vocab.Destructive, "`"+c.text+"` deletes system files ("+pl.abs+")")
			return
		}
		s.esc(vocab.Destructive, high, "`"+c.text+"` deletes "+pl.abs+" outside the workspace")
	case zHome:
		rel, _ := s.homeRel(pl.abs)
		if level, what := s.secretPath(pl.abs); level > secret.None || isCredentialStore(pl) {
			s.esc(vocab.Destructive, high, "`"+c.text+"` deletes "+what+" (~/"+rel+")")
			return
		}
		if isCacheDir(rel) {
			s.allow("deletes a cache")
			return
		}
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes ~/"+rel+" outside the workspace")
	case zTmp:
		if pl.abs == "/tmp" || pl.abs == "/var/tmp" || path.Dir(pl.abs) == "/" {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes the shared temporary directory")
			return
		}
		s.allow("deletes temporary files")
	case zWork:
		rel := pl.rel
		switch {
		case rel == "." || rel == "":
			if item {
				if recursive {
					s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes directories found in the workspace")
				} else {
					s.allow("deletes files found in the workspace")
				}
				return
			}
			s.esc(vocab.Destructive, high, "`"+c.text+"` deletes the whole workspace")
		case inside(rel, ".git"):
			s.esc(vocab.Destructive, high, "`"+c.text+"` deletes the repository's history (.git)")
		case isBuildOutput(rel):
			s.allow("deletes build output")
		case recursive:
			s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes the directory "+rel+" in the workspace")
		default:
			if level, what := secret.Path(rel); level > secret.None {
				s.esc(vocab.Destructive, low, "`"+c.text+"` deletes "+what)
				return
			}
			s.allow("deletes files in the workspace")
		}
	default:
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes a path that is not known before it runs")
	}
}
