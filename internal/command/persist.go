package command

import (
	"path"
	"strings"
)

// Persistent reports whether writing the file p (an absolute or
// home-relative path) changes what runs or who may log in later — a shell
// start-up file, SSH authorized keys, a cron table, a systemd unit, a
// launch agent, a git hook, a CI workflow, sudoers, a boot script — and
// describes it ("a shell start-up file").
func Persistent(p string) (bool, string) {
	abs := p
	l := strings.ToLower(abs)
	base := path.Base(l)
	switch base {
	case ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
		".zshenv", ".zlogin", ".shrc", ".kshrc", ".cshrc", ".tcshrc", ".login", ".xprofile", ".xinitrc",
		"config.fish", ".inputrc":
		return true, "a shell start-up file"
	case "authorized_keys", "authorized_keys2":
		return true, "SSH authorized keys"
	case "ld.so.preload":
		return true, "the dynamic linker's preload list"
	case "rc.local", "rc":
		if base == "rc" && !strings.HasSuffix(l, ".ssh/rc") {
			break
		}
		return true, "a boot script"
	}
	switch {
	case l == "/etc/profile" || l == "/etc/bashrc" || l == "/etc/bash.bashrc" || l == "/etc/zshrc" ||
		strings.HasPrefix(l, "/etc/profile.d/") || strings.HasPrefix(l, "/etc/environment"):
		return true, "a system-wide shell start-up file"
	case strings.Contains(l, "/cron") || strings.HasPrefix(l, "/var/spool/cron") || strings.HasPrefix(l, "/etc/anacrontab"):
		return true, "a cron table"
	case strings.Contains(l, "/systemd/") && (strings.HasSuffix(l, ".service") || strings.HasSuffix(l, ".timer") ||
		strings.HasSuffix(l, ".socket") || strings.HasSuffix(l, ".path")):
		return true, "a systemd unit"
	case strings.Contains(l, "launchagents/") || strings.Contains(l, "launchdaemons/"):
		return true, "a launch agent"
	case strings.Contains(l, "/.config/autostart/"):
		return true, "an autostart entry"
	case strings.Contains(l, ".git/hooks/"):
		return true, "a git hook"
	case strings.Contains(l, ".github/workflows/") || strings.HasSuffix(l, ".gitlab-ci.yml") ||
		strings.Contains(l, ".circleci/") || strings.HasSuffix(base, "jenkinsfile"):
		return true, "a CI workflow"
	case strings.HasPrefix(l, "/etc/sudoers"):
		return true, "sudoers"
	case strings.HasPrefix(l, "/etc/pam.d/") || strings.HasPrefix(l, "/etc/ssh/sshd_config"):
		return true, "authentication configuration"
	case strings.Contains(l, "/site-packages/") && (strings.HasSuffix(base, ".pth") || base == "sitecustomize.py" || base == "usercustomize.py"):
		return true, "a Python start-up hook"
	}
	return false, ""
}
