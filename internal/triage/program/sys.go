package program

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = judge.RegisterJudges(map[string]func(*judge.Script, *judge.Command){
	"accounts":            judgeAccounts,
	"at":                  judgeAt,
	"audit":               judgeAudit,
	"crontab":             judgeCrontab,
	"disk":                judgeDisk,
	"firewall":            judgeFirewall,
	"kernel":              judgeKernel,
	"mac":                 judgeMAC,
	"mac_security":        judgeMacSecurity,
	"mount":               judgeMount,
	"pkill":               judgePkill,
	"service":             judgeService,
	"shutdown":            judgeShutdown,
	"systemctl":           judgeSystemctl,
	"update_alternatives": judgeUpdateAlternatives,
})

func judgeSystemctl(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "HMtpsn", "host", "machine", "type", "property", "signal", "state", "root", "lines", "output")
	if len(ops) == 0 {
		s.Allow("systemctl")
		return
	}
	verb := ops[0]
	switch verb {
	case "status", "show", "cat", "is-active", "is-enabled", "is-failed", "list-units", "list-unit-files",
		"list-timers", "list-sockets", "list-dependencies", "list-jobs", "help", "get-default", "show-environment", "list-machines":
		s.Allow("systemctl " + verb)
		return
	case "reboot", "poweroff", "halt", "kexec", "soft-reboot", "rescue", "emergency", "suspend", "hibernate", "isolate":
		s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` stops or switches the machine")
		return
	}
	for _, u := range ops[1:] {
		if securityService(s, u) && (verb == "stop" || verb == "disable" || verb == "mask" || verb == "kill") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns off the security service "+u)
			return
		}
		if criticalService(u) && (verb == "stop" || verb == "disable" || verb == "mask" || verb == "kill") {
			s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` stops the system service "+u)
			return
		}
	}
	if verb == "enable" || verb == "link" || verb == "edit" || verb == "set-property" || verb == "daemon-reload" || verb == "set-default" {
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes what the system starts")
		return
	}
	s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` starts, stops or restarts a system service")
}

// securityService reports whether the unit u is a security service.
func securityService(s *judge.Script, u string) bool {
	u = strings.ToLower(strings.TrimSuffix(u, ".service"))
	for _, n := range s.V.K.Words("security_services") {
		if u == n || strings.HasPrefix(u, n) && len(n) > 3 {
			return true
		}
	}
	return false
}

// criticalService reports whether stopping a unit makes the machine
// unreachable or unusable.
func criticalService(u string) bool {
	u = strings.ToLower(strings.TrimSuffix(u, ".service"))
	switch u {
	case "sshd", "ssh", "systemd-logind", "dbus", "networkmanager", "systemd-networkd", "systemd-resolved", "cron", "crond", "gdm", "lightdm", "sddm", "docker", "containerd", "kubelet":
		return true
	}
	return false
}

func judgeService(s *judge.Script, c *judge.Command) {
	ops := shell.Operands(c.Args, "")
	switch c.Name {
	case "launchctl":
		if len(ops) > 0 && (ops[0] == "list" || ops[0] == "print" || ops[0] == "blame" || ops[0] == "version") {
			s.Allow("launchctl")
			return
		}
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` loads or changes a launch service")
		return
	}
	if len(ops) >= 2 {
		u, verb := ops[0], ops[1]
		if verb == "status" {
			s.Allow("service status")
			return
		}
		if securityService(s, u) && (verb == "stop" || verb == "disable" || verb == "onestop") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns off the security service "+u)
			return
		}
	}
	if len(ops) == 1 && (ops[0] == "--status-all" || ops[0] == "-l") {
		s.Allow("service")
		return
	}
	s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` starts, stops or restarts a system service")
}

func judgeFirewall(s *judge.Script, c *judge.Command) {
	if c.Name == "iptables-save" || c.Name == "ip6tables-save" {
		s.Allow(c.Name)
		return
	}
	fw := command.Firewall(c.Name, c.Args)
	rules, ok := firewallRules[c.Name]
	if !ok {
		rules = firewallRules[""]
	}
	for _, r := range rules {
		if fw&r.effect == 0 {
			continue
		}
		switch r.verdict {
		case firewallAllow:
			if r.says == "" {
				s.Allow(c.Name + " -L")
			} else {
				s.Allow(r.says)
			}
		case firewallDeny:
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` "+r.says)
		case firewallEscalate:
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` "+r.says)
		}
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes firewall rules")
}

// firewallRule is what a firewall command with one effect gets: allowed
// under the name says (a program's name with " -L" when empty), denied or
// escalated at high risk because it does what says says.
type firewallRule struct {
	effect  command.FirewallEffect
	verdict uint8
	says    string
}

// The verdicts of a firewallRule.
const (
	firewallAllow uint8 = iota
	firewallDeny
	firewallEscalate
)

// firewallRules holds, program by program ("" for iptables and the other
// programs of the firewall judge), the rules tried in order; a command
// none of them matches is escalated at medium risk as a change of the
// firewall rules.
var firewallRules = map[string][]firewallRule{
	"ufw": {{command.FirewallLists, firewallAllow, "ufw status"}, {command.FirewallOff, firewallDeny, "turns the firewall off"},
		{command.FirewallLoggingOff, firewallEscalate, "turns firewall logging off"}, {command.FirewallOpens, firewallDeny, "makes the firewall allow everything"}},
	"nft": {{command.FirewallLists, firewallAllow, "nft list"}, {command.FirewallFlushes, firewallDeny, "removes the firewall rules"}},
	"pfctl": {{command.FirewallOff, firewallDeny, "turns the firewall off"}, {command.FirewallFlushes, firewallDeny, "flushes the firewall rules"},
		{command.FirewallLists, firewallAllow, "pfctl -s"}},
	"firewall-cmd": {{command.FirewallLists, firewallAllow, "firewall-cmd"}, {command.FirewallOpens, firewallDeny, "opens the firewall"}},
	"": {{command.FirewallLists, firewallAllow, ""}, {command.FirewallFlushes, firewallDeny, "flushes the firewall rules"},
		{command.FirewallOpens, firewallDeny, "makes the firewall accept everything"}},
}

func judgeMAC(s *judge.Script, c *judge.Command) {
	switch c.Name {
	case "getenforce", "sestatus", "aa-status":
		s.Allow(c.Name)
	case "setenforce":
		if shell.HasWord(c.Args, "0", "Permissive", "permissive") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns SELinux enforcement off")
			return
		}
		s.Allow("setenforce")
	case "aa-enforce":
		s.Allow("aa-enforce")
	case "apparmor_parser":
		if shell.HasShort(c.Args, 'R', "") || shell.HasLong(c.Args, "remove") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` removes AppArmor profiles")
			return
		}
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` loads AppArmor profiles")
	default:
		s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` weakens AppArmor")
	}
}

func judgeAudit(s *judge.Script, c *judge.Command) {
	if c.Name != "auditctl" {
		s.Allow(c.Name)
		return
	}
	if shell.HasWord(c.Args, "-D") || shell.HasWord(c.Args, "-e") && shell.HasWord(c.Args, "0") {
		s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns auditing off")
		return
	}
	if shell.HasWord(c.Args, "-l", "-s") && len(c.Args) == 2 {
		s.Allow("auditctl")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes audit rules")
}

func judgeMacSecurity(s *judge.Script, c *judge.Command) {
	j := strings.Join(c.Args[1:], " ")
	switch c.Name {
	case "spctl":
		if strings.Contains(j, "--master-disable") || strings.Contains(j, "--global-disable") || strings.Contains(j, "--disable") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns Gatekeeper off")
			return
		}
		if strings.Contains(j, "--status") || strings.Contains(j, "--assess") {
			s.Allow("spctl")
			return
		}
	case "csrutil":
		if strings.Contains(j, "disable") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns System Integrity Protection off")
			return
		}
		if strings.Contains(j, "status") {
			s.Allow("csrutil status")
			return
		}
	case "tmutil":
		if strings.Contains(j, "disable") || strings.Contains(j, "delete") {
			s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` turns off or deletes backups")
			return
		}
		if strings.HasPrefix(j, "status") || strings.HasPrefix(j, "listbackups") || strings.HasPrefix(j, "latestbackup") {
			s.Allow("tmutil")
			return
		}
	case "fdesetup":
		if strings.HasPrefix(j, "status") || strings.HasPrefix(j, "isactive") || strings.HasPrefix(j, "list") {
			s.Allow("fdesetup")
			return
		}
	case "defaults":
		if strings.HasPrefix(j, "read") || strings.HasPrefix(j, "domains") || strings.HasPrefix(j, "find") {
			s.Allow("defaults read")
			return
		}
		if strings.Contains(j, "com.apple.LaunchServices") && strings.Contains(j, "Quarantine") ||
			strings.Contains(j, "com.apple.screensaver") || strings.Contains(j, "alf") || strings.Contains(j, "loginwindow") {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` changes a macOS security setting")
			return
		}
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` changes a macOS setting")
		return
	case "dscl":
		if strings.Contains(j, " -read") || strings.Contains(j, " -list") || strings.Contains(j, " -search") {
			s.Allow("dscl read")
			return
		}
		if strings.Contains(j, "-append") && strings.Contains(j, "/Groups/admin") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` makes a user an administrator")
			return
		}
	case "dseditgroup":
		if (strings.Contains(j, "-a") || strings.Contains(j, "edit")) && (strings.Contains(j, " admin") || strings.Contains(j, " wheel")) {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` makes a user an administrator")
			return
		}
	case "dsenableroot":
		s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` enables the root account")
		return
	case "sysadminctl":
		if strings.Contains(j, "-admin") || strings.Contains(j, "-guestAccount on") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` adds an administrator or the guest account")
			return
		}
	}
	s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` changes system security settings or accounts")
}

// AdminGroups matches group lists that hold an administrators' group.
var AdminGroups = pattern.Lazy(`(^|,)(sudo|wheel|admin|root|adm|0)(,|$)`)

func judgeAccounts(s *judge.Script, c *judge.Command) {
	args := c.Args
	switch c.Name {
	case "useradd", "adduser", "usermod", "pw":
		const withArg = "bcdefgGKkpsuUlLR"
		groups := append(judge.ClusterValues(args, 'G', withArg), judge.ClusterValues(args, 'g', withArg)...)
		groups = append(groups, shell.OptValues(args, "", "groups", "gid")...)
		for _, g := range groups {
			if AdminGroups.MatchString(g) {
				s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` gives an account administrator or root group rights")
				return
			}
		}
		for _, u := range append(judge.ClusterValues(args, 'u', "bcdefgGKkpsuUlLR"), shell.OptValues(args, "", "uid")...) {
			if u == "0" {
				s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` creates a second root account (uid 0)")
				return
			}
		}
		if c.Name == "adduser" && len(args) == 3 && AdminGroups.MatchString(args[2]) {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` gives an account administrator rights")
			return
		}
	case "gpasswd":
		if len(shell.OptValues(args, "-a", "add")) > 0 {
			if ops := shell.Operands(args, "adMA"); len(ops) > 0 && AdminGroups.MatchString(ops[len(ops)-1]) {
				s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` gives an account administrator rights")
				return
			}
		}
	case "chage":
		if shell.HasShort(args, 'l', "") {
			s.Allow("chage -l")
			return
		}
	case "passwd":
		if shell.HasShort(args, 'S', "") || shell.HasLong(args, "status") {
			s.Allow("passwd -S")
			return
		}
		if shell.HasShort(args, 'd', "") || shell.HasLong(args, "delete") {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` removes an account's password")
			return
		}
	}
	s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` changes accounts, groups or passwords")
}

func judgeCrontab(s *judge.Script, c *judge.Command) {
	p, _ := command.Parse(c.Args)
	switch {
	case p.Has("list"):
		s.Allow("crontab -l")
	case p.Does()&command.RemovesCronJobs != 0:
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` removes every cron job")
	default:
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` installs cron jobs (a lasting change)")
	}
}

func judgeAt(s *judge.Script, c *judge.Command) {
	if shell.HasShort(c.Args, 'l', "") || shell.HasShort(c.Args, 'c', "") {
		s.Allow("at -l")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` schedules commands for later")
}

func judgeMount(s *judge.Script, c *judge.Command) {
	if (c.Name == "mount" || c.Name == "swapon" || c.Name == "losetup" || c.Name == "zpool" || c.Name == "zfs") && len(shell.Operands(c.Args, "tOoL")) == 0 ||
		c.Name == "zpool" && shell.HasWord(c.Args, "list", "status") || c.Name == "zfs" && shell.HasWord(c.Args, "list", "get") {
		s.Allow(c.Name)
		return
	}
	if c.Name == "zfs" && shell.HasWord(c.Args, "destroy") || c.Name == "zpool" && shell.HasWord(c.Args, "destroy") ||
		c.Name == "lvremove" || c.Name == "vgremove" || c.Name == "pvremove" || c.Name == "cryptsetup" && shell.HasWord(c.Args, "erase", "luksErase") {
		s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` destroys a volume")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes mounted file systems or devices")
}

func judgeKernel(s *judge.Script, c *judge.Command) {
	switch c.Name {
	case "getcap":
		s.Allow("getcap")
		return
	case "sysctl":
		if len(c.Args) == 1 || shell.HasShort(c.Args, 'a', "pw") || shell.HasShort(c.Args, 'n', "pw") && !shell.HasShort(c.Args, 'w', "p") && !strings.Contains(strings.Join(c.Args, " "), "=") {
			s.Allow("sysctl")
			return
		}
		if !shell.HasShort(c.Args, 'w', "p") && !shell.HasShort(c.Args, 'p', "") && !strings.Contains(strings.Join(c.Args, " "), "=") {
			s.Allow("sysctl")
			return
		}
		for _, a := range c.Args {
			if strings.Contains(a, "randomize_va_space=0") || strings.Contains(a, "ptrace_scope=0") || strings.Contains(a, "kptr_restrict=0") || strings.Contains(a, "dmesg_restrict=0") {
				s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns off a kernel protection")
				return
			}
		}
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes kernel settings")
		return
	case "setcap":
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` gives a program capabilities")
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` changes the kernel or process privileges")
}

func judgePkill(s *judge.Script, c *judge.Command) {
	if c.Name == "killall5" {
		s.Deny(vocab.Destructive, "`"+c.Text+"` signals every process")
		return
	}
	ops := shell.Operands(c.Args, "sgGPtuUn", "signal", "pgroup", "group", "parent", "terminal", "euid", "uid", "ns")
	for _, o := range ops {
		if criticalProcess(o) {
			s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` kills a system process ("+o+")")
			return
		}
	}
	if len(shell.OptValues(c.Args, "-u", "euid")) > 0 || len(shell.OptValues(c.Args, "-U", "uid")) > 0 {
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` kills every process of a user")
		return
	}
	s.Esc(vocab.Destructive, judge.Low, "`"+c.Text+"` kills processes by name")
}

func criticalProcess(n string) bool {
	n = strings.ToLower(strings.Trim(n, `'"^$`))
	switch n {
	case "init", "systemd", "sshd", "ssh", "dbus-daemon", "dbus", "systemd-logind", "systemd-journald", "rsyslogd",
		"cron", "crond", "xorg", "gdm", "lightdm", "networkmanager", "auditd", "containerd", "dockerd", "kubelet", "sssd", "chronyd", "ntpd", "firewalld":
		return true
	}
	return false
}

func judgeShutdown(s *judge.Script, c *judge.Command) {
	if c.Name == "init" || c.Name == "telinit" {
		if !shell.HasWord(c.Args, "0", "6", "1", "S", "s") {
			s.Allow(c.Name)
			return
		}
	}
	if c.Name == "shutdown" && shell.HasShort(c.Args, 'c', "") {
		s.Allow("shutdown -c")
		return
	}
	s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` stops or restarts the machine")
}

func judgeMkfs(s *judge.Script, c *judge.Command) {
	for _, p := range shell.Operands(c.Args, "tbcCEfgGiIjJlLmMnNoOrsSTUvzdFe") {
		pl := s.Where(p, c.Cwd)
		if pl.Zone == judge.ZDevice && !judge.IsScratchDevice(pl.Abs) {
			s.Deny(vocab.Destructive, "`"+c.Text+"` formats "+pl.Abs+", destroying what it holds")
			return
		}
	}
	s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` formats a file system")
}

func judgeDisk(s *judge.Script, c *judge.Command) {
	switch c.Name {
	case "fdisk", "sfdisk", "parted", "gdisk", "sgdisk":
		if shell.HasShort(c.Args, 'l', "") || shell.HasWord(c.Args, "print", "-p", "--list") || c.Name == "sfdisk" && (shell.HasShort(c.Args, 'd', "") || shell.HasLong(c.Args, "dump")) {
			s.Allow(c.Name + " -l")
			return
		}
	case "diskutil":
		if len(c.Args) > 1 && (c.Args[1] == "list" || c.Args[1] == "info") {
			s.Allow("diskutil")
			return
		}
	case "hdparm", "badblocks", "e2fsck", "fsck", "tune2fs":
		if !shell.HasShort(c.Args, 'w', "") && !shell.HasLong(c.Args, "security-erase", "security-erase-enhanced", "trim-sector-ranges") && c.Name != "tune2fs" {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` checks a disk")
			return
		}
	}
	for _, p := range shell.Operands(c.Args, "") {
		pl := s.Where(p, c.Cwd)
		if pl.Zone == judge.ZDevice && !judge.IsScratchDevice(pl.Abs) && c.Name != "resize2fs" && c.Name != "e2fsck" && c.Name != "fsck" {
			s.Deny(vocab.Destructive, "`"+c.Text+"` rewrites the disk "+pl.Abs)
			return
		}
	}
	s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` changes disks or partitions")
}

func judgeUpdateAlternatives(s *judge.Script, c *judge.Command) {
	if shell.HasLong(c.Args, "display", "list", "query", "get-selections") || c.Name == "trust" && shell.HasWord(c.Args, "list") {
		s.Allow(c.Name)
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes system configuration")
}
