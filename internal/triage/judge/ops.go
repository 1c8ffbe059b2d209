package judge

import (
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// What commands do to paths: read (print or inspect), write, delete.

// Read judges c reading the path p. print says whether the content is
// printed or copied (cat, grep, cp), not just inspected (ls, stat, wc).
func (s *Script) Read(c *Command, p string, print bool) {
	pl := s.Where(p, c.Cwd)
	if pl.State {
		s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` reads warden's own state ("+pl.Abs+")")
		return
	}
	level, what := s.Secret(pl)
	level, what = s.taintedRead(pl, level, what)
	if pl.Item {
		// An item found by find or xargs: only its root is known.
		level, what = secret.None, ""
	}
	if print && level > c.Out {
		c.Out, c.OutWhat = level, what
	}
	switch {
	case level == secret.Critical && print:
		s.Deny(vocab.CredentialProbing, "`"+c.Text+"` reads "+what)
		return
	case level == secret.Critical:
		if isDirLike(p) {
			s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` lists "+what)
		}
		return
	case level == secret.Sensitive && print:
		s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` reads "+what)
		return
	case level == secret.Sensitive:
		if IsCredentialStore(pl) || pl.Zone == ZSystem {
			s.Esc(vocab.CredentialProbing, Low, "`"+c.Text+"` lists "+what)
		}
		return
	}
	switch pl.Zone {
	case ZDevice:
		if !strings.HasPrefix(pl.Abs, "/dev/pts") && !strings.HasPrefix(pl.Abs, "/dev/tty") {
			s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` reads the device "+pl.Abs)
		}
	case ZSystem:
		switch {
		case print && SystemPrivate(pl.Abs):
			if c.Out < secret.Sensitive {
				c.Out, c.OutWhat = secret.Sensitive, pl.Abs
			}
			s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` reads "+pl.Abs+", private to the system or another user")
		case !pl.Item && !PublicSystemPath(pl.Abs):
			s.Esc(vocab.CredentialProbing, Low, "`"+c.Text+"` reads "+pl.Abs+", outside the workspace, the home and temporary directories")
		}
	}
}

// PublicSystemPath reports whether a system path holds what any developer
// reads without a second thought: toolchains' sources and headers,
// installed libraries, documentation, and a few files describing the
// machine.
func PublicSystemPath(abs string) bool {
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

// SystemPrivate reports whether a system path is private to the system or
// other users: reading it is reconnaissance rather than development.
func SystemPrivate(abs string) bool {
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

// WroteFile reports whether the script wrote the file abs before.
func (s *Script) WroteFile(abs string) bool {
	for _, w := range s.wrote {
		if w == abs {
			return true
		}
	}
	return false
}

// IsCredentialStore reports whether pl is a directory that holds
// credentials.
func IsCredentialStore(pl place) bool {
	b := path.Base(pl.Abs)
	switch b {
	case ".ssh", ".aws", ".gnupg", ".kube", ".password-store", "keychains", "gcloud", ".azure", "ssh", "security", "pam.d", "root":
		return true
	}
	return false
}

// Write judges c writing the path pl. content is what it writes when
// known (echo and printf), judged when the file runs later.
func (s *Script) Write(c *Command, pl place, content string) {
	if pl.Zone == ZNull {
		return
	}
	if pl.Abs != "" && len(s.wrote) < 32 {
		s.wrote = append(s.wrote, pl.Abs)
	}
	if s.ReadOnly {
		// The person chose a sandbox that writes nothing, the workspace
		// and temporary files included: no write, and no change of
		// metadata, is routine there.
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` writes "+pl.Abs+" in read-only mode")
		return
	}
	if pl.State {
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` writes warden's own state ("+pl.Abs+")")
		return
	}
	if strings.HasPrefix(pl.Abs, "/dev/tcp/") || strings.HasPrefix(pl.Abs, "/dev/udp/") {
		s.RemoteSink = true
		switch {
		case c.Name != "" && (shell.IsShell(c.Name) || s.V.K.Has(c.Name, FactInterpreter) || command.IsPython(c.Name)):
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` connects a shell to the network (a remote shell)")
		case c.Out > secret.None:
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` sends "+c.OutWhat+" over a raw network connection")
		default:
			s.Esc(vocab.Exfiltration, High, "`"+c.Text+"` sends data over a raw network connection ("+pl.Abs+")")
		}
		return
	}
	if pl.Zone == ZDevice {
		if IsDisk(pl.Abs) {
			s.Deny(vocab.Destructive, "`"+c.Text+"` writes the disk "+pl.Abs+", destroying what it holds")
		} else {
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` writes the device "+pl.Abs)
		}
		return
	}
	if ok, what := StartupFile(pl.Abs); ok {
		s.Persist(c, pl, what, content)
		return
	}
	if name := ProtectedPart(pl.Abs); name != "" && pl.Zone != ZWork {
		// A .git, .warden or .agents at any depth, wherever it lies (a
		// workspace under /tmp or the home directory, which the request
		// may not name as the workspace): a .git made here runs its hooks
		// and core.fsmonitor when the person next uses git.
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` writes into a protected path ("+name+")")
		return
	}
	if level, what := s.Secret(pl); level > secret.None && pl.Zone != ZWork {
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` overwrites "+what)
		return
	}
	switch pl.Zone {
	case ZWork:
		if inside(pl.rel, ".git") || ProtectedPart("/"+pl.rel) == ".git" {
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` writes inside .git")
			return
		}
		if ProtectedPart("/"+pl.rel) != "" {
			s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` writes warden's protected files")
			return
		}
		s.Allow("writes in the workspace")
	case ZTmp:
		s.Allow("writes a temporary file")
	case ZHome:
		rel, _ := s.HomeRel(pl.Abs)
		if rel == "" {
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` writes the home directory itself")
			return
		}
		first, _, _ := strings.Cut(rel, "/")
		if IsCacheDir(rel) {
			s.Allow("writes in a cache")
			return
		}
		if strings.HasPrefix(first, ".") {
			s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` changes the user's configuration (~/"+rel+")")
			return
		}
		if _, below, _ := strings.Cut(rel, "/"); s.McpHome && below != "" {
			// An MCP server writing in a folder under the home
			// directory: its own roots bound it, not the sandbox.
			s.Allow("writes in a folder of the home directory")
			return
		}
		// Outside the workspace: the reviewer decides whether the user
		// wants it (SPEC G15).
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` writes ~/"+rel+" in the home directory, outside the workspace")
	case ZSystem:
		if strings.HasPrefix(pl.Abs, "/etc/passwd") || strings.HasPrefix(pl.Abs, "/etc/shadow") || strings.HasPrefix(pl.Abs, "/etc/group") {
			s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` edits the account database "+pl.Abs)
			return
		}
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` writes "+pl.Abs+" outside the workspace")
	default:
		s.Esc(vocab.Routine, Medium, "`"+c.Text+"` writes a path that is not known before it runs")
	}
}

// Persist judges a write into a file whose content runs or grants access
// later.
func (s *Script) Persist(c *Command, pl place, what, content string) {
	if content != "" && (what == "a shell start-up file" || what == "a system-wide shell start-up file" ||
		what == "a cron table" || what == "a boot script") {
		line := content
		if what == "a cron table" {
			line = cronCommand(content)
		}
		home := s.Home
		if home == "" {
			home = "~"
		}
		sub, fetchRun := s.judgeLater(line, home)
		if sub.Decision == vocab.Deny {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` makes "+what+" run harmful code: "+sub.Reason)
			return
		}
		if fetchRun {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` makes "+what+" download and run code every time: "+sub.Reason)
			return
		}
		if r := tlsOffInText(content); r != "" {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` "+r+" for every future shell ("+what+")")
			return
		}
	}
	if what == "sudoers" && strings.Contains(content, "NOPASSWD") {
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` grants passwordless sudo")
		return
	}
	if what == "a CI workflow" && pl.Zone == ZWork {
		s.Esc(vocab.SecurityWeakening, Medium, "`"+c.Text+"` changes a CI workflow")
		return
	}
	s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` writes "+what+" ("+pl.Abs+"): a lasting change")
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
			if r := TlsOffVar(name, strings.Trim(val, `"'`)); r != "" {
				return r
			}
		}
	}
	return ""
}

// IsDisk reports whether a device file is a disk, a partition or memory:
// writing it destroys what it holds.
func IsDisk(abs string) bool {
	d := strings.TrimPrefix(abs, "/dev/")
	for _, p := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "root", "sr", "nbd"} {
		if strings.HasPrefix(d, p) {
			return !strings.HasPrefix(d, "mapper/loop") && d != "disk" && !strings.HasPrefix(d, "disk/by-label/scratch")
		}
	}
	return d == "mem" || d == "kmem" || d == "port"
}

// IsScratchDevice reports whether abs is a loop, RAM, terminal or console
// device, whose writing destroys no one's stored data.
func IsScratchDevice(abs string) bool {
	for _, p := range []string{"/dev/loop", "/dev/ram", "/dev/pts/", "/dev/tty", "/dev/console", "/dev/kmsg", "/dev/mapper/loop"} {
		if strings.HasPrefix(abs, p) {
			return true
		}
	}
	return false
}

// ProtectedPart returns the first component of the absolute path p that
// the sandbox protects (.git, .warden, .agents), "" when there is none.
func ProtectedPart(p string) string {
	for _, part := range strings.Split(p, "/") {
		if part == ".git" || part == ".warden" || part == ".agents" {
			return part
		}
	}
	return ""
}

// inside reports whether rel is dir or below it.
func inside(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// Remove judges c deleting the path p (recursively or not).
func (s *Script) Remove(c *Command, p string, recursive bool) {
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
			s.Esc(vocab.Destructive, High, "`"+c.Text+"` deletes under a path that is not known before it runs (an empty variable would make it /)")
		} else {
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes a path that is not known before it runs")
		}
		return
	}
	pl := s.Where(p, c.Cwd)
	if pl.State {
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` deletes warden's own state ("+pl.Abs+")")
		return
	}
	if b := s.BroadPath(pl); b != "" {
		if recursive || contents {
			s.Deny(vocab.Destructive, "`"+c.Text+"` deletes "+b)
		} else {
			s.Esc(vocab.Destructive, High, "`"+c.Text+"` deletes "+b)
		}
		return
	}
	item := pl.Item
	switch pl.Zone {
	case ZDevice:
		if IsDisk(pl.Abs) {
			s.Deny(vocab.Destructive, "`"+c.Text+"` deletes the device "+pl.Abs)
		} else {
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes the device "+pl.Abs)
		}
	case ZNull:
	case ZSystem:
		if CriticalSystemPath(pl.Abs) {
			s.Deny(vocab.Destructive, "`"+c.Text+"` deletes system files ("+pl.Abs+")")
			return
		}
		s.Esc(vocab.Destructive, High, "`"+c.Text+"` deletes "+pl.Abs+" outside the workspace")
	case ZHome:
		rel, _ := s.HomeRel(pl.Abs)
		if level, what := s.SecretPath(pl.Abs); level > secret.None || IsCredentialStore(pl) {
			s.Esc(vocab.Destructive, High, "`"+c.Text+"` deletes "+what+" (~/"+rel+")")
			return
		}
		if IsCacheDir(rel) {
			s.Allow("deletes a cache")
			return
		}
		s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes ~/"+rel+" outside the workspace")
	case ZTmp:
		if pl.Abs == "/tmp" || pl.Abs == "/var/tmp" || path.Dir(pl.Abs) == "/" {
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes the shared temporary directory")
			return
		}
		s.Allow("deletes temporary files")
	case ZWork:
		rel := pl.rel
		switch {
		case rel == "." || rel == "":
			if item {
				if recursive {
					s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes directories found in the workspace")
				} else {
					s.Allow("deletes files found in the workspace")
				}
				return
			}
			s.Esc(vocab.Destructive, High, "`"+c.Text+"` deletes the whole workspace")
		case inside(rel, ".git"):
			s.Esc(vocab.Destructive, High, "`"+c.Text+"` deletes the repository's history (.git)")
		case isBuildOutput(rel):
			s.Allow("deletes build output")
		case recursive:
			s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes the directory "+rel+" in the workspace")
		default:
			if level, what := secret.Path(rel); level > secret.None {
				s.Esc(vocab.Destructive, Low, "`"+c.Text+"` deletes "+what)
				return
			}
			s.Allow("deletes files in the workspace")
		}
	default:
		s.Esc(vocab.Destructive, Medium, "`"+c.Text+"` deletes a path that is not known before it runs")
	}
}

// WriteFiles judges c writing text to each of paths (words in the
// script's directory): a shell start-up file as persistence, any other
// file as a write.
func (s *Script) WriteFiles(c *Command, paths []string, text string) {
	for _, p := range paths {
		pl := s.Where(p, s.Cwd)
		if ok, what := StartupFile(pl.Abs); ok {
			s.Persist(c, pl, what, text)
			continue
		}
		s.Write(c, pl, text)
	}
}
