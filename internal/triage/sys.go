package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = registerJudges(map[string]func(*sh, *cmd){
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

func judgeSystemctl(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "HMtpsn", "host", "machine", "type", "property", "signal", "state", "root", "lines", "output")
	if len(ops) == 0 {
		s.allow("systemctl")
		return
	}
	verb := ops[0]
	switch verb {
	case "status", "show", "cat", "is-active", "is-enabled", "is-failed", "list-units", "list-unit-files",
		"list-timers", "list-sockets", "list-dependencies", "list-jobs", "help", "get-default", "show-environment", "list-machines":
		s.allow("systemctl " + verb)
		return
	case "reboot", "poweroff", "halt", "kexec", "soft-reboot", "rescue", "emergency", "suspend", "hibernate", "isolate":
		s.esc(vocab.Destructive, high, "`"+c.text+"` stops or switches the machine")
		return
	}
	for _, u := range ops[1:] {
		if s.securityService(u) && (verb == "stop" || verb == "disable" || verb == "mask" || verb == "kill") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns off the security service "+u)
			return
		}
		if criticalService(u) && (verb == "stop" || verb == "disable" || verb == "mask" || verb == "kill") {
			s.esc(vocab.Destructive, high, "`"+c.text+"` stops the system service "+u)
			return
		}
	}
	if verb == "enable" || verb == "link" || verb == "edit" || verb == "set-property" || verb == "daemon-reload" || verb == "set-default" {
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes what the system starts")
		return
	}
	s.esc(vocab.Routine, medium, "`"+c.text+"` starts, stops or restarts a system service")
}

func (s *sh) securityService(u string) bool {
	u = strings.ToLower(strings.TrimSuffix(u, ".service"))
	for n := range s.v.k.List("security_services") {
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

func judgeService(s *sh, c *cmd) {
	ops := shell.Operands(c.args, "")
	switch c.name {
	case "launchctl":
		if len(ops) > 0 && (ops[0] == "list" || ops[0] == "print" || ops[0] == "blame" || ops[0] == "version") {
			s.allow("launchctl")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` loads or changes a launch service")
		return
	}
	if len(ops) >= 2 {
		u, verb := ops[0], ops[1]
		if verb == "status" {
			s.allow("service status")
			return
		}
		if s.securityService(u) && (verb == "stop" || verb == "disable" || verb == "onestop") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns off the security service "+u)
			return
		}
	}
	if len(ops) == 1 && (ops[0] == "--status-all" || ops[0] == "-l") {
		s.allow("service")
		return
	}
	s.esc(vocab.Routine, medium, "`"+c.text+"` starts, stops or restarts a system service")
}

func judgeFirewall(s *sh, c *cmd) {
	args := c.args
	switch c.name {
	case "ufw":
		ops := shell.Operands(args, "")
		if len(ops) == 0 || ops[0] == "status" || ops[0] == "show" || ops[0] == "app" && len(ops) > 1 && ops[1] == "list" || ops[0] == "version" {
			s.allow("ufw status")
			return
		}
		switch ops[0] {
		case "disable", "reset":
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns the firewall off")
			return
		case "logging":
			if len(ops) > 1 && ops[1] == "off" {
				s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` turns firewall logging off")
				return
			}
		case "default":
			if len(ops) > 1 && ops[1] == "allow" {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes the firewall allow everything")
				return
			}
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes firewall rules")
	case "nft":
		if shell.HasWord(args, "list") && !shell.HasWord(args, "flush", "delete") {
			s.allow("nft list")
			return
		}
		if shell.HasWord(args, "flush") || shell.HasWord(args, "delete") && shell.HasWord(args, "table") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` removes the firewall rules")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes firewall rules")
	case "pfctl":
		if shell.HasShort(args, 'd', "afFsTtxAKkLOoDEipR") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns the firewall off")
			return
		}
		if shell.HasShort(args, 'F', "afsTtxAKkLOoDEipR") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` flushes the firewall rules")
			return
		}
		if shell.HasShort(args, 's', "afFTtxAKkLOoDEipR") && !shell.HasShort(args, 'f', "asFTtxAKkLOoDEipR") {
			s.allow("pfctl -s")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes firewall rules")
	case "firewall-cmd":
		if shell.HasLong(args, "state", "list-all", "list-services", "list-ports", "get-default-zone", "get-active-zones", "list-all-zones") {
			s.allow("firewall-cmd")
			return
		}
		if shell.HasLong(args, "panic-off") || shell.HasWord(args, "--set-default-zone=trusted") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` opens the firewall")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes firewall rules")
	case "iptables-save", "ip6tables-save":
		s.allow(c.name)
	default:
		if shell.HasWord(args, "-L", "-S", "--list", "--list-rules") && !shell.HasWord(args, "-F", "-X", "-D", "-A", "-I", "-P") {
			s.allow(c.name + " -L")
			return
		}
		if shell.HasWord(args, "-F", "--flush", "-X", "--delete-chain") || shell.HasShort(args, 'F', "tAIDRPNXEjgiospm") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` flushes the firewall rules")
			return
		}
		for i := 1; i+2 < len(args); i++ {
			if (args[i] == "-P" || args[i] == "--policy") && strings.EqualFold(args[i+2], "ACCEPT") {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes the firewall accept everything")
				return
			}
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes firewall rules")
	}
}

func judgeMAC(s *sh, c *cmd) {
	switch c.name {
	case "getenforce", "sestatus", "aa-status":
		s.allow(c.name)
	case "setenforce":
		if shell.HasWord(c.args, "0", "Permissive", "permissive") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns SELinux enforcement off")
			return
		}
		s.allow("setenforce")
	case "aa-enforce":
		s.allow("aa-enforce")
	case "apparmor_parser":
		if shell.HasShort(c.args, 'R', "") || shell.HasLong(c.args, "remove") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` removes AppArmor profiles")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` loads AppArmor profiles")
	default:
		s.deny(vocab.SecurityWeakening, "`"+c.text+"` weakens AppArmor")
	}
}

func judgeAudit(s *sh, c *cmd) {
	if c.name != "auditctl" {
		s.allow(c.name)
		return
	}
	if shell.HasWord(c.args, "-D") || shell.HasWord(c.args, "-e") && shell.HasWord(c.args, "0") {
		s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns auditing off")
		return
	}
	if shell.HasWord(c.args, "-l", "-s") && len(c.args) == 2 {
		s.allow("auditctl")
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes audit rules")
}

func judgeMacSecurity(s *sh, c *cmd) {
	j := strings.Join(c.args[1:], " ")
	switch c.name {
	case "spctl":
		if strings.Contains(j, "--master-disable") || strings.Contains(j, "--global-disable") || strings.Contains(j, "--disable") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns Gatekeeper off")
			return
		}
		if strings.Contains(j, "--status") || strings.Contains(j, "--assess") {
			s.allow("spctl")
			return
		}
	case "csrutil":
		if strings.Contains(j, "disable") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns System Integrity Protection off")
			return
		}
		if strings.Contains(j, "status") {
			s.allow("csrutil status")
			return
		}
	case "tmutil":
		if strings.Contains(j, "disable") || strings.Contains(j, "delete") {
			s.esc(vocab.Destructive, high, "`"+c.text+"` turns off or deletes backups")
			return
		}
		if strings.HasPrefix(j, "status") || strings.HasPrefix(j, "listbackups") || strings.HasPrefix(j, "latestbackup") {
			s.allow("tmutil")
			return
		}
	case "fdesetup":
		if strings.HasPrefix(j, "status") || strings.HasPrefix(j, "isactive") || strings.HasPrefix(j, "list") {
			s.allow("fdesetup")
			return
		}
	case "defaults":
		if strings.HasPrefix(j, "read") || strings.HasPrefix(j, "domains") || strings.HasPrefix(j, "find") {
			s.allow("defaults read")
			return
		}
		if strings.Contains(j, "com.apple.LaunchServices") && strings.Contains(j, "Quarantine") ||
			strings.Contains(j, "com.apple.screensaver") || strings.Contains(j, "alf") || strings.Contains(j, "loginwindow") {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` changes a macOS security setting")
			return
		}
		s.esc(vocab.Routine, low, "`"+c.text+"` changes a macOS setting")
		return
	case "dscl":
		if strings.Contains(j, " -read") || strings.Contains(j, " -list") || strings.Contains(j, " -search") {
			s.allow("dscl read")
			return
		}
		if strings.Contains(j, "-append") && strings.Contains(j, "/Groups/admin") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes a user an administrator")
			return
		}
	case "dseditgroup":
		if (strings.Contains(j, "-a") || strings.Contains(j, "edit")) && (strings.Contains(j, " admin") || strings.Contains(j, " wheel")) {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` makes a user an administrator")
			return
		}
	case "dsenableroot":
		s.deny(vocab.SecurityWeakening, "`"+c.text+"` enables the root account")
		return
	case "sysadminctl":
		if strings.Contains(j, "-admin") || strings.Contains(j, "-guestAccount on") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` adds an administrator or the guest account")
			return
		}
	}
	s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` changes system security settings or accounts")
}

var adminGroups = pattern.Lazy(`(^|,)(sudo|wheel|admin|root|adm|0)(,|$)`)

func judgeAccounts(s *sh, c *cmd) {
	args := c.args
	switch c.name {
	case "useradd", "adduser", "usermod", "pw":
		const withArg = "bcdefgGKkpsuUlLR"
		groups := append(clusterValues(args, 'G', withArg), clusterValues(args, 'g', withArg)...)
		groups = append(groups, shell.OptValues(args, "", "groups", "gid")...)
		for _, g := range groups {
			if adminGroups.MatchString(g) {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` gives an account administrator or root group rights")
				return
			}
		}
		for _, u := range append(clusterValues(args, 'u', "bcdefgGKkpsuUlLR"), shell.OptValues(args, "", "uid")...) {
			if u == "0" {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` creates a second root account (uid 0)")
				return
			}
		}
		if c.name == "adduser" && len(args) == 3 && adminGroups.MatchString(args[2]) {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` gives an account administrator rights")
			return
		}
	case "gpasswd":
		if len(shell.OptValues(args, "-a", "add")) > 0 {
			if ops := shell.Operands(args, "adMA"); len(ops) > 0 && adminGroups.MatchString(ops[len(ops)-1]) {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` gives an account administrator rights")
				return
			}
		}
	case "chage":
		if shell.HasShort(args, 'l', "") {
			s.allow("chage -l")
			return
		}
	case "passwd":
		if shell.HasShort(args, 'S', "") || shell.HasLong(args, "status") {
			s.allow("passwd -S")
			return
		}
		if shell.HasShort(args, 'd', "") || shell.HasLong(args, "delete") {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` removes an account's password")
			return
		}
	}
	s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` changes accounts, groups or passwords")
}

func judgeCrontab(s *sh, c *cmd) {
	p, _ := command.Parse(c.args)
	switch {
	case p.Has("list"):
		s.allow("crontab -l")
	case p.Does()&command.RemovesCronJobs != 0:
		s.esc(vocab.Destructive, medium, "`"+c.text+"` removes every cron job")
	default:
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` installs cron jobs (a lasting change)")
	}
}

func judgeAt(s *sh, c *cmd) {
	if shell.HasShort(c.args, 'l', "") || shell.HasShort(c.args, 'c', "") {
		s.allow("at -l")
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` schedules commands for later")
}

func judgeMount(s *sh, c *cmd) {
	if (c.name == "mount" || c.name == "swapon" || c.name == "losetup" || c.name == "zpool" || c.name == "zfs") && len(shell.Operands(c.args, "tOoL")) == 0 ||
		c.name == "zpool" && shell.HasWord(c.args, "list", "status") || c.name == "zfs" && shell.HasWord(c.args, "list", "get") {
		s.allow(c.name)
		return
	}
	if c.name == "zfs" && shell.HasWord(c.args, "destroy") || c.name == "zpool" && shell.HasWord(c.args, "destroy") ||
		c.name == "lvremove" || c.name == "vgremove" || c.name == "pvremove" || c.name == "cryptsetup" && shell.HasWord(c.args, "erase", "luksErase") {
		s.esc(vocab.Destructive, high, "`"+c.text+"` destroys a volume")
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes mounted file systems or devices")
}

func judgeKernel(s *sh, c *cmd) {
	switch c.name {
	case "getcap":
		s.allow("getcap")
		return
	case "sysctl":
		if len(c.args) == 1 || shell.HasShort(c.args, 'a', "pw") || shell.HasShort(c.args, 'n', "pw") && !shell.HasShort(c.args, 'w', "p") && !strings.Contains(strings.Join(c.args, " "), "=") {
			s.allow("sysctl")
			return
		}
		if !shell.HasShort(c.args, 'w', "p") && !shell.HasShort(c.args, 'p', "") && !strings.Contains(strings.Join(c.args, " "), "=") {
			s.allow("sysctl")
			return
		}
		for _, a := range c.args {
			if strings.Contains(a, "randomize_va_space=0") || strings.Contains(a, "ptrace_scope=0") || strings.Contains(a, "kptr_restrict=0") || strings.Contains(a, "dmesg_restrict=0") {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns off a kernel protection")
				return
			}
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes kernel settings")
		return
	case "setcap":
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` gives a program capabilities")
		return
	}
	s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` changes the kernel or process privileges")
}

func judgePkill(s *sh, c *cmd) {
	if c.name == "killall5" {
		s.deny(vocab.Destructive, "`"+c.text+"` signals every process")
		return
	}
	ops := shell.Operands(c.args, "sgGPtuUn", "signal", "pgroup", "group", "parent", "terminal", "euid", "uid", "ns")
	for _, o := range ops {
		if criticalProcess(o) {
			s.esc(vocab.Destructive, high, "`"+c.text+"` kills a system process ("+o+")")
			return
		}
	}
	if len(shell.OptValues(c.args, "-u", "euid")) > 0 || len(shell.OptValues(c.args, "-U", "uid")) > 0 {
		s.esc(vocab.Destructive, medium, "`"+c.text+"` kills every process of a user")
		return
	}
	s.esc(vocab.Destructive, low, "`"+c.text+"` kills processes by name")
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

func judgeShutdown(s *sh, c *cmd) {
	if c.name == "init" || c.name == "telinit" {
		if !shell.HasWord(c.args, "0", "6", "1", "S", "s") {
			s.allow(c.name)
			return
		}
	}
	if c.name == "shutdown" && shell.HasShort(c.args, 'c', "") {
		s.allow("shutdown -c")
		return
	}
	s.esc(vocab.Destructive, high, "`"+c.text+"` stops or restarts the machine")
}

func judgeMkfs(s *sh, c *cmd) {
	for _, p := range shell.Operands(c.args, "tbcCEfgGiIjJlLmMnNoOrsSTUvzdFe") {
		pl := s.where(p, c.cwd)
		if pl.zone == zDevice && !isScratchDevice(pl.abs) {
			s.deny(vocab.Destructive, "`"+c.text+"` formats "+pl.abs+", destroying what it holds")
			return
		}
	}
	s.esc(vocab.Destructive, high, "`"+c.text+"` formats a file system")
}

func judgeDisk(s *sh, c *cmd) {
	switch c.name {
	case "fdisk", "sfdisk", "parted", "gdisk", "sgdisk":
		if shell.HasShort(c.args, 'l', "") || shell.HasWord(c.args, "print", "-p", "--list") || c.name == "sfdisk" && (shell.HasShort(c.args, 'd', "") || shell.HasLong(c.args, "dump")) {
			s.allow(c.name + " -l")
			return
		}
	case "diskutil":
		if len(c.args) > 1 && (c.args[1] == "list" || c.args[1] == "info") {
			s.allow("diskutil")
			return
		}
	case "hdparm", "badblocks", "e2fsck", "fsck", "tune2fs":
		if !shell.HasShort(c.args, 'w', "") && !shell.HasLong(c.args, "security-erase", "security-erase-enhanced", "trim-sector-ranges") && c.name != "tune2fs" {
			s.esc(vocab.Routine, low, "`"+c.text+"` checks a disk")
			return
		}
	}
	for _, p := range shell.Operands(c.args, "") {
		pl := s.where(p, c.cwd)
		if pl.zone == zDevice && !isScratchDevice(pl.abs) && c.name != "resize2fs" && c.name != "e2fsck" && c.name != "fsck" {
			s.deny(vocab.Destructive, "`"+c.text+"` rewrites the disk "+pl.abs)
			return
		}
	}
	s.esc(vocab.Destructive, high, "`"+c.text+"` changes disks or partitions")
}

func judgeUpdateAlternatives(s *sh, c *cmd) {
	if shell.HasLong(c.args, "display", "list", "query", "get-selections") || c.name == "trust" && shell.HasWord(c.args, "list") {
		s.allow(c.name)
		return
	}
	s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes system configuration")
}
