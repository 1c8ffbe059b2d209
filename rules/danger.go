package rules

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// Dangerous reports whether argv is a dangerous command, and why. It sees
// through wrappers as package shell does (sudo rm, xargs rm, find -exec rm,
// /bin/rm, bash -c 'rm -rf /', env -S …), so every command argv would run
// is checked.
//
// The reasons start with the class of risk of SPEC G7:
//
//   - "destructive:" irreversible damage: rm with recursion and force in any
//     spelling (-rf, -fr, -r -f, -R, --recursive --force) or of a broad path
//     (/, ~, $HOME, ., .., *, a top-level system directory), rm
//     --no-preserve-root, find … -delete of a broad path, dd of=/dev/…,
//     writing a device, mkfs*, wipefs, fdisk and other partitioners, shred,
//     recursive chmod/chown of a broad path, git reset --hard, git clean -f,
//     git push --force/-f/--force-with-lease/--mirror/--delete/+refspec,
//     git branch -D, git stash drop/clear, git filter-branch, kill -1,
//     shutdown/reboot/halt/poweroff, crontab -r, fork bombs (a shell
//     function calling itself);
//   - "security:" weakening security: sudo/su/doas/pkexec, chmod making
//     files world-writable recursively or setting setuid/setgid, flushing or
//     disabling the firewall (iptables -F/-X/-P … ACCEPT, nft flush ruleset,
//     ufw disable, pfctl -d), stopping or disabling security services
//     (systemctl/service), setenforce 0, disabling AppArmor, Gatekeeper or
//     SIP, clearing or disabling shell history, git config of options that
//     run commands;
//   - "credentials:" reading or touching secrets: SSH private keys, cloud
//     and tool credential files, /etc/shadow, keychains, process
//     environments, `gh auth token`, `git credential fill`, …;
//   - "exfiltration:" sending data out: curl/wget uploading a file,
//     scp/rsync/sftp to a remote host, netcat running a program, /dev/tcp.
//
// Code passed on is judged by what it runs where that shows, and counts
// as dangerous where it does not: inline code of interpreters (python -c,
// perl -e, node -e, ruby -e, php -r, lua -e, awk programs, vim -c) that
// starts programs, deletes, writes, reads secrets or uses the network, or
// that a substitution makes; programs run through another's options (git
// -c core.sshCommand, alias.x='!…', rsync -e, tar --checkpoint-action, ssh
// -o ProxyCommand, strace, gdb …); find -exec of rm and the like under a
// broad root, xargs rm; make -f /dev/stdin; containers mounting the host
// or running privileged; crontab installs; writes to shell start-up files,
// cron tables, systemd units and authorized_keys; credential files read
// through input redirection; a file the script writes or downloads and
// then runs.
//
// A download piped into an interpreter (curl … | sh) is judged by Evaluate,
// which sees the pipeline; Dangerous sees it too inside bash -c strings.
//
// When several reasons apply (sudo rm -rf /), the most severe class wins:
// destructive, then exfiltration, credentials, security.
func Dangerous(argv []string) (reason string, ok bool) {
	sc := shell.FromArgs(argv)
	best := func(r string) {
		if r != "" && (reason == "" || classRank(r) < classRank(reason)) {
			reason = r
		}
	}
	for i := range sc.Commands {
		best(dangerousCommand(&sc.Commands[i]))
	}
	for _, r := range pipelineDangers(sc) {
		best(r)
	}
	return reason, reason != ""
}

// classRank orders the classes of reasons by severity, most severe first.
func classRank(reason string) int {
	for i, class := range []string{"destructive:", "exfiltration:", "credentials:", "security:"} {
		if strings.HasPrefix(reason, class) {
			return i
		}
	}
	return 4
}

// dangerousCommand checks one simple command (not the commands it wraps,
// which are their own entries), returning the reason or "".
func dangerousCommand(c *shell.Command) string {
	for _, a := range c.Assigns {
		if r := historyAssign(a); r != "" {
			return r
		}
	}
	for _, t := range c.Redirects {
		if r := redirectDanger(t); r != "" {
			return r
		}
	}
	if len(c.Args) == 0 {
		return indirectDanger(c, "")
	}
	name := shell.Base(c.Args[0])
	if c.Func != "" && name == c.Func {
		return "destructive: shell function " + c.Func + " calls itself (fork bomb)"
	}
	if r := programDanger(name, c.Args); r != "" {
		return r
	}
	if r := sensitiveArgs(c.Args); r != "" {
		return r
	}
	return indirectDanger(c, name)
}

func programDanger(name string, args []string) string {
	if name == "mkfs" || strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "newfs") {
		return "destructive: " + name + " formats a file system"
	}
	switch name {
	case "rm":
		return rmDanger(args)
	case "find":
		if r := findExecDanger(args); r != "" {
			return r
		}
		if shell.HasWord(args, "-delete") {
			for _, p := range command.FindRoots(args) {
				if b := broad(p); b != "" {
					return "destructive: find -delete under " + b
				}
			}
		}
	case "mv":
		ops := shell.Operands(args, "St", "suffix", "target-directory")
		for i, t := range ops {
			if i < len(ops)-1 || len(ops) == 1 {
				if b := broad(t); b != "" {
					return "destructive: mv of " + b
				}
			}
		}
		if len(ops) > 1 && isDevice(ops[len(ops)-1]) {
			return "destructive: mv onto device " + ops[len(ops)-1]
		}
	case "cp":
		ops := shell.Operands(args, "St", "suffix", "target-directory")
		if len(ops) > 1 && isDevice(ops[len(ops)-1]) {
			return "destructive: cp onto device " + ops[len(ops)-1]
		}
	case "tee":
		for _, t := range shell.Operands(args, "") {
			if r := redirectDanger(t); r != "" {
				return r
			}
		}
	case "dd":
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "of=") && isDevice(a[3:]) {
				return "destructive: dd writes to device " + a[3:]
			}
		}
	case "shred":
		return "destructive: shred overwrites files irrecoverably"
	case "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "mkswap", "mke2fs", "mkntfs", "blkdiscard":
		return "destructive: " + name + " rewrites a disk or partition"
	case "diskutil":
		if len(args) > 1 && strings.HasPrefix(strings.ToLower(args[1]), "erase") || shell.HasWord(args, "partitionDisk", "zeroDisk", "randomDisk", "secureErase") {
			return "destructive: diskutil erases a disk"
		}
	case "chmod":
		return chmodDanger(args)
	case "chown", "chgrp":
		rec := shell.HasShort(args, 'R', "") || shell.HasLong(args, "recursive")
		ops := shell.Operands(args, "", "from", "reference")
		for i, t := range ops {
			if i == 0 && !shell.HasPrefixWord(args, "--reference") {
				continue // the owner
			}
			if b := broad(t); b != "" && (rec || t == "/") {
				return "destructive: recursive " + name + " of " + b
			}
		}
	case "git":
		return gitDanger(args)
	case "kill":
		return killDanger(args)
	case "killall5":
		return "destructive: killall5 signals every process"
	case "shutdown", "reboot", "halt", "poweroff":
		return "destructive: " + name + " stops the machine"
	case "init", "telinit":
		if shell.HasWord(args, "0", "6") {
			return "destructive: " + name + " stops the machine"
		}
	case "crontab":
		if command.Does(args)&command.RemovesCronJobs != 0 {
			return "destructive: crontab -r removes every cron job"
		}
	case "sudo", "su", "doas", "pkexec", "runuser":
		return "security: runs with elevated privileges (" + name + ")"
	case "iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft", "ip6tables-nft":
		switch fw := command.Firewall(name, args); {
		case fw&command.FirewallFlushes != 0:
			return "security: " + name + " flushes firewall rules"
		case fw&command.FirewallOpens != 0:
			return "security: " + name + " opens the firewall policy"
		}
	case "nft":
		if command.Firewall(name, args)&command.FirewallFlushesRuleset != 0 {
			return "security: nft removes firewall rules"
		}
	case "ufw":
		if command.Firewall(name, args)&command.FirewallOff != 0 {
			return "security: ufw disables the firewall"
		}
	case "pfctl":
		if command.Firewall(name, args)&(command.FirewallOff|command.FirewallFlushes) != 0 {
			return "security: pfctl disables or flushes the firewall"
		}
	case "systemctl":
		return systemctlDanger(args)
	case "service":
		if len(args) > 2 && isSecurityService(args[1]) && (args[2] == "stop" || args[2] == "disable") {
			return "security: stops security service " + args[1]
		}
	case "setenforce":
		if shell.HasWord(args, "0", "Permissive", "permissive") {
			return "security: setenforce disables SELinux enforcement"
		}
	case "aa-disable", "aa-complain", "aa-teardown":
		return "security: " + name + " weakens AppArmor"
	case "apparmor_parser":
		if shell.HasShort(args, 'R', "") || shell.HasLong(args, "remove") {
			return "security: apparmor_parser removes AppArmor profiles"
		}
	case "spctl":
		if shell.HasLong(args, "master-disable", "global-disable") {
			return "security: spctl disables Gatekeeper"
		}
	case "csrutil":
		if shell.HasWord(args, "disable") {
			return "security: csrutil disables System Integrity Protection"
		}
	case "auditctl":
		if shell.HasWord(args, "-D") || shell.HasWord(args, "-e") && shell.HasWord(args, "0") {
			return "security: auditctl disables auditing"
		}
	case "history":
		if shell.HasShort(args, 'c', "d") || shell.HasShort(args, 'd', "") {
			return "security: history clears shell history"
		}
	case "unset":
		if command.HistoryBuiltin(name, args) == command.HistoryDisabled {
			return "security: unset disables shell history"
		}
	case "export", "declare", "typeset", "readonly", "local":
		for _, a := range args[1:] {
			if r := historyAssign(a); r != "" {
				return r
			}
		}
	case "set":
		if command.HistoryBuiltin(name, args) == command.HistoryDisabled {
			return "security: set +o history disables shell history"
		}
	case "unlink", "truncate":
		for _, a := range args[1:] {
			if isHistoryFile(a) {
				return "security: " + name + " erases shell history"
			}
		}
	case "ln":
		if shell.HasWord(args, "/dev/null") {
			for _, a := range args[1:] {
				if isHistoryFile(a) {
					return "security: ln points shell history at /dev/null"
				}
			}
		}
	case "security":
		if len(args) > 1 && (strings.HasPrefix(args[1], "find-") && strings.HasSuffix(args[1], "-password") || args[1] == "dump-keychain") {
			return "credentials: security reads the keychain"
		}
	case "gpg", "gpg2":
		if shell.HasLong(args, "export-secret-keys", "export-secret-subkeys") {
			return "credentials: gpg exports secret keys"
		}
	case "gh":
		if len(args) > 2 && args[1] == "auth" && args[2] == "token" {
			return "credentials: gh auth token prints a token"
		}
	case "curl":
		return curlDanger(args)
	case "wget":
		if shell.HasLong(args, "post-file", "body-file") {
			return "exfiltration: wget uploads a local file"
		}
	case "scp", "rsync", "sftp":
		ops := shell.Operands(args, "cFiJlmoPSDBeT", "rsh", "rsync-path", "exclude", "include", "filter", "files-from", "port", "password-file")
		if len(ops) > 1 && isRemote(ops[len(ops)-1]) {
			for _, src := range ops[:len(ops)-1] {
				if !isRemote(src) {
					return "exfiltration: " + name + " copies local files to " + ops[len(ops)-1]
				}
			}
		}
	case "nc", "ncat", "netcat":
		if command.Does(args)&command.ConnectsProgram != 0 {
			return "exfiltration: " + name + " connects a program to the network"
		}
	}
	return ""
}

func rmDanger(args []string) string {
	does := command.Does(args)
	if does&command.NoPreserveRoot != 0 {
		return "destructive: rm --no-preserve-root"
	}
	for _, t := range shell.Operands(args, "") {
		if b := broad(t); b != "" {
			return "destructive: rm of " + b
		}
		if isHistoryFile(t) {
			return "security: rm erases shell history"
		}
	}
	if does&command.RecursiveForce != 0 {
		return "destructive: recursive forced deletion (rm -rf)"
	}
	return ""
}

// topLevel are the directories directly under / whose removal or recursive
// change wrecks a system.
var topLevel = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib32": true, "/lib64": true, "/opt": true, "/proc": true, "/root": true, "/run": true,
	"/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true, "/mnt": true,
	"/media": true, "/snap": true, "/Users": true, "/System": true, "/Library": true,
	"/Applications": true, "/private": true, "/Volumes": true, "/usr/bin": true,
	"/usr/lib": true, "/usr/local": true, "/var/lib": true,
}

// broad describes t when it names a broad path (/, a top-level directory,
// the home directory, the current or parent directory or all its files),
// "" otherwise.
func broad(t string) string {
	s := unquote(t)
	if s == "" {
		return ""
	}
	for {
		n := strings.TrimSuffix(s, "/")
		n = strings.TrimSuffix(n, "*")
		n = strings.TrimSuffix(n, "/.")
		if n == s {
			break
		}
		s = n
	}
	switch {
	case strings.HasPrefix(t, "/") || strings.HasPrefix(unquote(t), "/"):
		if s == "" || s == "/.." {
			return "/ (the whole file system)"
		}
		if topLevel[s] {
			return s
		}
	case s == "~" || s == "$HOME" || s == "${HOME}" || strings.HasPrefix(s, "~") && !strings.Contains(s, "/"):
		return "the home directory " + t
	case s == "" || s == "." || s == "./":
		return "the current directory " + t
	case s == ".." || s == "./..":
		return "the parent directory " + t
	}
	return ""
}

// harmlessDev are the device files writing to is harmless.
var harmlessDev = map[string]bool{
	"null": true, "zero": true, "stdout": true, "stderr": true, "stdin": true, "tty": true,
	"random": true, "urandom": true, "full": true, "console": true,
}

// isDevice reports whether p is a device file other than the harmless ones
// (null, stdout, tty, …).
func isDevice(p string) bool {
	p = unquote(p)
	rest, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	if harmlessDev[rest] || strings.HasPrefix(rest, "fd/") || strings.HasPrefix(rest, "pts/") ||
		strings.HasPrefix(rest, "tcp/") || strings.HasPrefix(rest, "udp/") || strings.HasPrefix(rest, "shm/") {
		return false
	}
	return rest != ""
}

// redirectDanger checks an output redirection target (or a file tee writes).
func redirectDanger(t string) string {
	p := unquote(t)
	switch {
	case strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/"):
		return "exfiltration: opens a network connection through " + p
	case isDevice(p):
		return "destructive: writes to device " + p
	case isHistoryFile(p):
		return "security: overwrites shell history " + p
	}
	for _, dir := range []string{"/etc/", "/boot/", "/bin/", "/sbin/", "/usr/", "/lib/", "/System/"} {
		if strings.HasPrefix(p, dir) {
			return "security: writes system file " + p
		}
	}
	return sensitivePath(p)
}

func isHistoryFile(p string) bool {
	p = unquote(p)
	b := shell.Base(p)
	return strings.HasSuffix(b, "_history") || b == ".history" || b == ".zhistory"
}

// historyAssign checks NAME=value for disabling shell history.
func historyAssign(a string) string {
	name, val, ok := strings.Cut(a, "=")
	if !ok {
		return ""
	}
	if command.HistoryAssign(name, unquote(val)) == command.HistoryDisabled {
		return "security: " + a + " disables shell history"
	}
	return ""
}

// chmodDanger: world-writable or setuid modes, recursive change of a broad
// path, any change of /.
func chmodDanger(args []string) string {
	ch := command.Chmod(args)
	for _, t := range ch.Targets {
		if b := broad(t); b != "" && (ch.Recursive || unquote(t) == "/") {
			return "destructive: recursive chmod of " + b
		}
	}
	if command.ModeSetuid(ch.Mode) {
		return "security: chmod sets setuid/setgid"
	}
	if ch.Recursive && command.ModeWorldWritable(ch.Mode) {
		return "security: chmod -R makes files world-writable"
	}
	return ""
}

// gitDangers are the reasons of the effects of git commands (see
// command.Does) that the exec rules count as dangerous, most severe first.
var gitDangers = []struct {
	effect command.Effect
	reason string
}{
	{command.ForcePush | command.DeletesRemoteRef, "destructive: git push rewrites or deletes remote history"},
	{command.DiscardsChanges, "destructive: git reset --hard or checkout --force discards uncommitted changes"},
	{command.DiscardsAllChanges, "destructive: git checkout or restore of every file discards uncommitted changes"},
	{command.DeletesUntracked, "destructive: git clean -f deletes untracked files"},
	{command.DeletesUnmergedBranch, "destructive: git branch -D deletes an unmerged branch"},
	{command.DiscardsStash, "destructive: git stash drop or clear discards stashed changes"},
	{command.RewritesHistory, "destructive: git filter-branch or filter-repo rewrites history"},
	{command.DropsRecoveryPoints, "destructive: git reflog expire or delete drops recovery points"},
	{command.DeletesRef, "destructive: git update-ref -d deletes a ref"},
	{command.PrintsCredentials, "credentials: git credential fill prints stored credentials"},
}

func gitDanger(args []string) string {
	p, _ := command.Parse(args)
	does := p.Does()
	for _, d := range gitDangers {
		if does&d.effect != 0 {
			return d.reason
		}
	}
	if len(p.Path) < 2 || p.Path[1] != "config" {
		return ""
	}
	rest := args[command.Subcommand(args):]
	if ops := shell.Operands(rest, "f", "file", "blob", "type", "default"); len(ops) >= 2 || shell.HasLong(rest, "add", "replace-all", "edit") {
		for _, a := range ops {
			if command.GitConfigRunsCommand(a) {
				return "security: git config sets " + a + ", which runs commands"
			}
		}
	}
	return ""
}

func killDanger(args []string) string {
	k := command.Kill(args)
	if k.List {
		return ""
	}
	for _, t := range k.Targets {
		switch t {
		case "-1":
			return "destructive: kill -1 signals every process"
		case "1":
			return "destructive: kill 1 signals init"
		}
	}
	return ""
}

func systemctlDanger(args []string) string {
	p, _ := command.Parse(args)
	verb, units := "", p.Operands
	switch {
	case len(p.Path) > 1:
		verb = p.Path[1]
	case len(units) > 0:
		verb, units = units[0], units[1:]
	}
	switch verb {
	case "reboot", "poweroff", "halt", "kexec", "soft-reboot", "rescue", "emergency":
		return "destructive: systemctl " + verb + " stops the machine"
	case "stop", "disable", "mask", "kill":
		for _, u := range units {
			if isSecurityService(u) {
				return "security: systemctl " + verb + " of security service " + u
			}
		}
	}
	return ""
}

var securityServices = []string{
	"apparmor", "audit", "firewalld", "ufw", "fail2ban", "selinux", "clamav", "clamd", "falcon",
	"crowdstrike", "osquery", "wazuh", "ossec", "sshguard", "aide", "iptables", "ip6tables",
	"nftables", "netfilter", "sentinel", "mdatp", "defender", "tripwire", "snort", "suricata",
	"auditbeat", "sysmon", "elastic-agent", "cylance", "carbonblack", "cbagent",
}

func isSecurityService(u string) bool {
	u = strings.ToLower(unquote(u))
	for _, s := range securityServices {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

// curlSends are curl's options whose value names a file curl reads and
// sends when it starts with @ (or holds =@ or =<, in forms).
var curlSends = map[string]bool{"data": true, "data-binary": true, "data-urlencode": true, "json": true, "form": true}

func curlDanger(args []string) string {
	p, _ := command.Parse(args)
	if p.Has("upload-file") {
		return "exfiltration: curl uploads a local file"
	}
	for _, o := range p.Options {
		if !curlSends[o.Name] {
			continue
		}
		if v := unquote(o.Value); strings.HasPrefix(v, "@") || strings.Contains(v, "=@") || strings.Contains(v, "=<") {
			return "exfiltration: curl sends a local file"
		}
	}
	return ""
}

// isRemote reports whether an scp/rsync operand names a remote host
// (host:path, user@host:path, rsync://…).
func isRemote(s string) bool {
	s = unquote(s)
	if strings.HasPrefix(s, "rsync://") || strings.HasPrefix(s, "scp://") || strings.HasPrefix(s, "sftp://") {
		return true
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") {
		return false
	}
	c := strings.IndexByte(s, ':')
	return c > 0 && !strings.Contains(s[:c], "/")
}

// sensitive are path fragments of credential files.
var sensitive = []struct{ frag, what string }{
	{".ssh/id_", "an SSH private key"},
	{"id_rsa", "an SSH private key"},
	{"id_ed25519", "an SSH private key"},
	{"id_ecdsa", "an SSH private key"},
	{"id_dsa", "an SSH private key"},
	{"authorized_keys", "SSH authorized keys"},
	{".aws/credentials", "AWS credentials"},
	{".config/gcloud", "Google Cloud credentials"},
	{".azure/", "Azure credentials"},
	{".netrc", "netrc credentials"},
	{"_netrc", "netrc credentials"},
	{".git-credentials", "git credentials"},
	{".docker/config.json", "Docker registry credentials"},
	{".kube/config", "Kubernetes credentials"},
	{".gnupg/", "GnuPG keys"},
	{"/etc/shadow", "password hashes"},
	{"/etc/gshadow", "password hashes"},
	{".config/gh/hosts.yml", "GitHub CLI tokens"},
	{".npmrc", "npm tokens"},
	{".pypirc", "PyPI tokens"},
	{".cargo/credentials", "cargo tokens"},
	{".vault-token", "a Vault token"},
	{".password-store", "the password store"},
	{"keychains/", "a keychain"},
	{".keychain", "a keychain"},
	{"/environ", "a process environment"},
}

// minSensitive is the length of the shortest fragment of sensitive.
var minSensitive = func() int {
	n := len(sensitive[0].frag)
	for _, s := range sensitive {
		n = min(n, len(s.frag))
	}
	return n
}()

// sensitivePath describes the credentials p touches, "" if none.
func sensitivePath(p string) string {
	if strings.IndexByte(p, '.') < 0 && strings.IndexByte(p, '/') < 0 && strings.IndexByte(p, '_') < 0 {
		return ""
	}
	l := strings.ToLower(p)
	if len(l) < minSensitive {
		return "" // shorter than every fragment
	}
	for _, s := range sensitive {
		if strings.Contains(l, s.frag) {
			if strings.HasSuffix(l, ".pub") && strings.HasPrefix(s.what, "an SSH") {
				continue
			}
			if s.frag == "/environ" && !strings.HasPrefix(l, "/proc/") {
				continue
			}
			return "credentials: touches " + s.what + " (" + p + ")"
		}
	}
	return ""
}

func sensitiveArgs(args []string) string {
	for _, a := range args[1:] {
		if r := sensitivePath(a); r != "" {
			return r
		}
	}
	return ""
}

// Pipelines: a download (or decoded data) piped into an interpreter.

var downloaders = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true,
	"xh": true, "nc": true, "ncat": true, "netcat": true, "socat": true, "lynx": true, "ftp": true,
	"tftp": true,
}

var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true,
	"nodejs": true, "php": true, "lua": true, "Rscript": true, "osascript": true, "pwsh": true,
	"powershell": true, "deno": true, "bun": true, "tclsh": true, "irb": true,
}

// isDownloader reports whether c fetches data from the network or decodes
// hidden data (base64 -d, xxd -r).
func isDownloader(c *shell.Command) bool {
	if len(c.Args) == 0 {
		return false
	}
	name := shell.Base(c.Args[0])
	switch name {
	case "base64":
		return shell.HasShort(c.Args, 'd', "w") || shell.HasShort(c.Args, 'D', "w") || shell.HasLong(c.Args, "decode")
	case "xxd":
		return shell.HasShort(c.Args, 'r', "")
	}
	return traitsOf(name).is(tDownloader)
}

// readsProgramFromStdin reports whether c is an interpreter that reads its
// program from standard input (no -c/-e/-m and no script operand).
func readsProgramFromStdin(c *shell.Command) bool {
	if len(c.Args) == 0 {
		return false
	}
	name := shell.Base(c.Args[0])
	if !shell.IsShell(name) && !interpreters[name] && !strings.HasPrefix(name, "python3.") {
		return false
	}
	for _, a := range c.Args[1:] {
		if a == "-" || a == "--" {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			return false // a script file (or the -c string)
		}
		if a == "-s" {
			return true
		}
		if len(a) > 1 && a[1] != '-' && strings.ContainsAny(a[1:], "cemErp") {
			return false
		}
		if a == "--eval" || a == "--print" || a == "--command" || strings.HasPrefix(a, "--eval=") {
			return false
		}
	}
	return true
}

// pipelineDangers finds downloads piped into an interpreter, and files
// the script writes and then runs.
func pipelineDangers(sc *shell.Script) []string {
	out := writtenThenRun(sc)
	seenDownloader := false
	for i := range sc.Commands {
		c := &sc.Commands[i]
		if c.Pipeline == 0 {
			continue
		}
		if !isDownloader(c) {
			continue
		}
		seenDownloader = true
		for j := range sc.Commands {
			d := &sc.Commands[j]
			if d.Pipeline == c.Pipeline && d.Stage > c.Stage && readsProgramFromStdin(d) {
				out = append(out, "security: "+c.Text+" is piped into "+d.Args[0]+" (download and execute)")
				break
			}
		}
	}
	if sc.Opaque && !seenDownloader {
		for i := range sc.Commands {
			if isDownloader(&sc.Commands[i]) && sc.Commands[i].Pipeline == 0 {
				out = append(out, "security: "+sc.Commands[i].Text+" feeds a script that cannot be analysed (possible download and execute)")
				break
			}
		}
	}
	return out
}
