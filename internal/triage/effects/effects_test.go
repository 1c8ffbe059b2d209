package effects_test

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/triage/effects"
	"github.com/wardenhq/warden/internal/vocab"
)

// env is a person's home /home/ann, a workspace in it, and /tmp.
var env = effects.Env{Home: "/home/ann", Roots: []string{"/home/ann/proj"}, Temp: []string{"/tmp"}}

// TestG17_ClearHarmIsDeniedNamingTheEffect checks each row of the table
// of clear harms: a report that shows it is denied with a reason that
// names the effect and its path, and reports that show only the command's
// own work are not.
func TestG17_ClearHarmIsDeniedNamingTheEffect(t *testing.T) {
	lookup := effect.Dest{Op: "lookup", Name: "exfil.example"}
	tests := []struct {
		name  string
		r     effect.Report
		rule  string
		class vocab.Class
		names string // what the reason must name
	}{
		{"delete outside the roots", effect.Report{Deletes: []string{"/home/ann/notes/todo.md"}}, "destructive: delete outside the writable roots", vocab.Destructive, "/home/ann/notes/todo.md"},
		{"delete many outside", effect.Report{Deletes: []string{"/home/ann/a", "/home/ann/b", "/srv/c"}}, "destructive: delete outside the writable roots", vocab.Destructive, "3 files outside the writable roots"},
		{"rewrite outside the roots", effect.Report{Writes: []string{"/etc/hosts"}}, "destructive: rewrite outside the writable roots", vocab.Destructive, "/etc/hosts"},
		{"move away outside", effect.Report{Renames: []effect.Rename{{From: "/home/ann/thesis.tex", To: "/home/ann/proj/x"}}}, "destructive: rewrite outside the writable roots", vocab.Destructive, "/home/ann/thesis.tex"},
		{"chmod outside", effect.Report{Chmods: []effect.Chmod{{Path: "/usr/bin/sudo", Mode: "0777", Was: "4755"}}}, "destructive: rewrite outside the writable roots", vocab.Destructive, "/usr/bin/sudo"},
		{"bashrc", effect.Report{Writes: []string{"/home/ann/.bashrc"}}, "persistence: shell start-up file", vocab.SecurityWeakening, "/home/ann/.bashrc"},
		{"profile created", effect.Report{Creates: []string{"/home/ann/.profile"}}, "persistence: shell start-up file", vocab.SecurityWeakening, "/home/ann/.profile"},
		{"zshrc by rename", effect.Report{Renames: []effect.Rename{{From: "/tmp/x", To: "/home/ann/.zshrc"}}}, "persistence: shell start-up file", vocab.SecurityWeakening, "/home/ann/.zshrc"},
		{"root's bashrc", effect.Report{Writes: []string{"/root/.bashrc"}}, "persistence: shell start-up file", vocab.SecurityWeakening, "/root/.bashrc"},
		{"profile.d", effect.Report{Creates: []string{"/etc/profile.d/zz.sh"}}, "persistence: shell start-up file", vocab.SecurityWeakening, "/etc/profile.d/zz.sh"},
		{"fish", effect.Report{Writes: []string{"/home/ann/.config/fish/config.fish"}}, "persistence: shell start-up file", vocab.SecurityWeakening, "config.fish"},
		{"crontab spool", effect.Report{Creates: []string{"/var/spool/cron/crontabs/ann"}}, "persistence: crontab", vocab.SecurityWeakening, "/var/spool/cron/crontabs/ann"},
		{"cron.d", effect.Report{Creates: []string{"/etc/cron.d/job"}}, "persistence: crontab", vocab.SecurityWeakening, "/etc/cron.d/job"},
		{"authorized_keys", effect.Report{Writes: []string{"/home/ann/.ssh/authorized_keys"}}, "persistence: authorized_keys", vocab.SecurityWeakening, "authorized_keys"},
		{"root authorized_keys2", effect.Report{Creates: []string{"/root/.ssh/authorized_keys2"}}, "persistence: authorized_keys", vocab.SecurityWeakening, "authorized_keys2"},
		{"git hook of another repository", effect.Report{Creates: []string{"/home/ann/other/.git/hooks/pre-commit"}}, "persistence: git hooks or config outside the workspace", vocab.SecurityWeakening, "pre-commit"},
		{"git config of another repository", effect.Report{Writes: []string{"/srv/repo/.git/config"}}, "persistence: git hooks or config outside the workspace", vocab.SecurityWeakening, "/srv/repo/.git/config"},
		{"global gitconfig", effect.Report{Writes: []string{"/home/ann/.gitconfig"}}, "persistence: git hooks or config outside the workspace", vocab.SecurityWeakening, ".gitconfig"},
		{"credentials then lookup", effect.Report{Reads: []string{"/home/ann/.aws/credentials"}, Network: []effect.Dest{lookup}}, "exfiltration: credential store then network", vocab.Exfiltration, "exfil.example"},
		{"credentials then connect", effect.Report{Reads: []string{"/home/ann/.ssh/id_ed25519"}, Network: []effect.Dest{{Op: "connect", Family: "ip4", Address: "203.0.113.9", Port: 443}}}, "exfiltration: credential store then network", vocab.Exfiltration, "203.0.113.9:443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, deny := effects.Judge(tt.r, env)
			if !deny {
				t.Fatalf("not denied: %+v", tt.r)
			}
			if h.Rule != tt.rule || h.Class != tt.class {
				t.Fatalf("rule %q class %q, want %q %q", h.Rule, h.Class, tt.rule, tt.class)
			}
			if !strings.Contains(h.Reason(), tt.names) {
				t.Fatalf("the reason %q does not name %q", h.Reason(), tt.names)
			}
			out := effects.Review(tt.r, env, 0)
			if !out.Deny || out.Harm != h || out.Summary == "" {
				t.Fatalf("Review: %+v", out)
			}
		})
	}
}

// TestG17_OwnWorkIsNoHarm checks reports of ordinary work — changes in the
// workspace and the temporary directories, caches created in the home,
// the network without credentials, credentials without the network, the
// workspace's own git hooks — are not denied: they go on to the reviewer.
func TestG17_OwnWorkIsNoHarm(t *testing.T) {
	for name, r := range map[string]effect.Report{
		"nothing":                 {},
		"build in the workspace":  {Writes: []string{"/home/ann/proj/main.o"}, Creates: []string{"/home/ann/proj/bin/app"}, Deletes: []string{"/home/ann/proj/old.o"}},
		"temporary files":         {Creates: []string{"/tmp/cc123.s"}, Deletes: []string{"/tmp/cc123.s"}, Writes: []string{"/tmp/lock"}},
		"cache created":           {Creates: []string{"/home/ann/.cache/go-build/aa"}},
		"network only":            {Network: []effect.Dest{{Op: "lookup", Name: "proxy.golang.org"}}},
		"credentials only":        {Reads: []string{"/home/ann/.netrc"}},
		"credentials, unix":       {Reads: []string{"/home/ann/.netrc"}, Network: []effect.Dest{{Op: "connect", Family: "unix", Address: "/run/nscd/socket"}}},
		"the workspace's hooks":   {Creates: []string{"/home/ann/proj/.git/hooks/pre-commit"}, Writes: []string{"/home/ann/proj/.git/config"}},
		"a file named like a rc":  {Creates: []string{"/home/ann/proj/.bashrc.example"}},
		"programs only":           {Execs: []effect.Exec{{Path: "/usr/bin/rm", Argv: []string{"rm", "-rf", "/"}}}},
		"rename inside the roots": {Renames: []effect.Rename{{From: "/home/ann/proj/a", To: "/home/ann/proj/b"}}},
	} {
		if h, deny := effects.Judge(r, env); deny {
			t.Errorf("%s: denied: %+v", name, h)
		}
	}
}
