// Package effects is the first pass's judgement of what a command did in a
// dry run (SPEC G17, effect-based review). A boundary request the first
// pass passes on is run once in a throw-away view first; Judge reads the
// report against a table of clear harms — deleting or rewriting outside
// the writable roots, writing a shell's start-up files, a crontab,
// authorized_keys, git hooks or configuration outside the workspace,
// opening a credential store and then trying the network — and denies
// when one is there, naming the effect. It never allows: a command can
// behave differently when run for real, so a clean dry run only goes on,
// with its effects, to the reviewer or the person (SPEC G15).
package effects

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/vocab"
)

// Env is where a dry run's paths are judged: the person's home and the
// run's writable roots.
type Env struct {
	// Home is the person's home directory; "" judges no path as in it.
	Home string
	// Roots are the run's writable roots, the workspace first: paths under
	// them are the command's to change.
	Roots []string
	// Temp are the temporary directories private to the run (/tmp,
	// /dev/shm, $TMPDIR): what the command does there is its own.
	Temp []string
}

// inside reports whether p is under a writable root or a temporary
// directory.
func (e Env) inside(p string) bool { return effect.Within(e.Roots, p) || effect.Within(e.Temp, p) }

// Harm is a clear harm a report shows.
type Harm struct {
	// Rule names the rule of the table that found it.
	Rule string `json:"rule"`
	// Class and Risk are the class and risk of the finding.
	Class vocab.Class `json:"class"`
	Risk  action.Risk `json:"risk"`
	// Effect names the effect: what the command would have done, with
	// its path or destination.
	Effect string `json:"effect"`
}

// rule is one row of the table: a name, its class and risk, and the check
// that returns the effect it found.
type rule struct {
	name  string
	class vocab.Class
	risk  action.Risk
	check func(r effect.Report, e Env) (string, bool)
}

// table holds the clear harms, checked in order; the first found decides.
var table = []rule{
	{"persistence: shell start-up file", vocab.SecurityWeakening, action.RiskHigh, changedMatch("write the shell start-up file", isStartup)},
	{"persistence: crontab", vocab.SecurityWeakening, action.RiskHigh, changedMatch("write the crontab", isCrontab)},
	{"persistence: authorized_keys", vocab.SecurityWeakening, action.RiskCritical, changedMatch("write the SSH authorized keys", isAuthorizedKeys)},
	{"persistence: git hooks or config outside the workspace", vocab.SecurityWeakening, action.RiskHigh, changedMatch("write git hooks or configuration outside the workspace", isGitOutside)},
	{"exfiltration: credential store then network", vocab.Exfiltration, action.RiskCritical, credentialsThenNetwork},
	{"destructive: delete outside the writable roots", vocab.Destructive, action.RiskHigh, outside("delete", func(r effect.Report) []string { return r.Deletes })},
	{"destructive: rewrite outside the writable roots", vocab.Destructive, action.RiskHigh, outside("rewrite", rewrites)},
}

// Judge returns the first clear harm of the table that r shows, and true;
// false when it shows none. A report never makes an allow: with no harm,
// the request goes on to the reviewer or the person.
func Judge(r effect.Report, e Env) (Harm, bool) {
	for _, x := range table {
		if what, ok := x.check(r, e); ok {
			return Harm{Rule: x.name, Class: x.class, Risk: x.risk, Effect: what}, true
		}
	}
	return Harm{}, false
}

// Reason is what the agent and the person read of a denial on h.
func (h Harm) Reason() string {
	return "a dry run of the command (in a throw-away copy, nothing real changed) shows that it would " + h.Effect + " (" + h.Rule + ")"
}

// Outcome is the first pass's judgement of a dry run: a denial on a clear
// harm, or none, and the summary the reviewer and the person read.
type Outcome struct {
	// Deny reports a clear harm; Harm is it.
	Deny bool
	Harm Harm
	// Summary is the report's summary (effect.Report.Summary) for the
	// writable roots of e.
	Summary string
}

// Review judges r (Judge) and summarises it for the reviewer within budget
// bytes (effect.Report.Summary): what the first pass does with a dry run,
// for `warden run` and for measurements (internal/eval). It never allows.
func Review(r effect.Report, e Env, budget int) Outcome {
	h, deny := Judge(r, e)
	return Outcome{Deny: deny, Harm: h, Summary: r.Summary(e.Roots, budget)}
}

// DryRun runs the command of a boundary request once in a throw-away view
// and returns what it observed, or why nothing was observed
// (Observed.Unavailable); it never fails otherwise. The assembly of a run
// (internal/decider) builds it.
type DryRun func(ctx context.Context, req *boundary.Request) *effect.Observed

// Check is a dry run and where its report is judged: what the first pass
// needs to review effects.
type Check struct {
	Run DryRun
	Env Env
}

// Applies reports whether a request is one a dry run can show: one with a
// command.
func Applies(req *boundary.Request) bool { return req != nil && strings.TrimSpace(req.Command) != "" }

// changedMatch checks for a write, creation, rename onto, deletion or
// metadata change of a path that match accepts, naming it with verb.
func changedMatch(verb string, match func(p string, e Env) bool) func(effect.Report, Env) (string, bool) {
	return func(r effect.Report, e Env) (string, bool) {
		for _, p := range changed(r) {
			if match(filepath.Clean(p), e) {
				return verb + " " + p, true
			}
		}
		return "", false
	}
}

// changed lists every path whose content, existence or metadata the
// command would change: writes, creates, deletes, both ends of renames,
// metadata changes.
func changed(r effect.Report) []string {
	out := make([]string, 0, len(r.Writes)+len(r.Creates)+len(r.Deletes)+2*len(r.Renames)+len(r.Chmods))
	out = append(append(append(out, r.Writes...), r.Creates...), r.Deletes...)
	for _, m := range r.Renames {
		out = append(out, m.To, m.From)
	}
	for _, c := range r.Chmods {
		out = append(out, c.Path)
	}
	return out
}

// rewrites are the existing files a command would change or replace:
// writes, the sources of renames (moved away) and their destinations when
// they replace a file (not a creation), and metadata changes.
func rewrites(r effect.Report) []string {
	out := append([]string(nil), r.Writes...)
	for _, m := range r.Renames {
		out = append(out, m.From)
	}
	for _, c := range r.Chmods {
		out = append(out, c.Path)
	}
	return out
}

// outside checks for a path of paths outside the writable roots.
func outside(verb string, paths func(effect.Report) []string) func(effect.Report, Env) (string, bool) {
	return func(r effect.Report, e Env) (string, bool) {
		var out []string
		for _, p := range paths(r) {
			if !e.inside(p) {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return "", false
		}
		what := verb + " " + out[0]
		if len(out) > 1 {
			what = verb + " " + strconv.Itoa(len(out)) + " files outside the writable roots, " + out[0] + " first"
		} else {
			what += " outside the writable roots"
		}
		return what, true
	}
}

// credentialsThenNetwork checks for a credential store opened and the
// network tried: a name looked up, or an address connected or sent to (a
// Unix socket is not the network).
func credentialsThenNetwork(r effect.Report, _ Env) (string, bool) {
	if len(r.Reads) == 0 {
		return "", false
	}
	for _, d := range r.Network {
		if d.Family == "unix" {
			continue
		}
		verb := "try " + d.Target()
		if d.Op == "lookup" {
			verb = "look up " + d.Name
		}
		return "open the credential store " + r.Reads[0] + " and then " + verb, true
	}
	return "", false
}

// startupNames are the start-up files of shells, in a home directory.
var startupNames = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".xprofile", ".xsessionrc",
	".config/fish/config.fish", ".config/fish/conf.d", ".config/environment.d", ".pam_environment",
}

// systemStartup are the system-wide start-up files and directories.
var systemStartup = []string{"/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zsh", "/etc/zshrc", "/etc/zprofile", "/etc/environment"}

// isStartup reports whether p is a shell start-up file of a home
// directory (the person's, root's, or any under /home) or of the system.
func isStartup(p string, e Env) bool {
	if rel, ok := inHome(p, e); ok {
		for _, n := range startupNames {
			if under(rel, n) {
				return true
			}
		}
	}
	return effect.Within(systemStartup, p)
}

// inHome returns p relative to the home directory it is in — the
// person's, root's, or one under /home — and true; false when it is in
// none.
func inHome(p string, e Env) (string, bool) {
	if e.Home != "" {
		if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(e.Home, "/")+"/"); ok {
			return rel, true
		}
	}
	if rel, ok := strings.CutPrefix(p, "/root/"); ok {
		return rel, true
	}
	if rest, ok := strings.CutPrefix(p, "/home/"); ok {
		if _, rel, ok := strings.Cut(rest, "/"); ok {
			return rel, true
		}
	}
	return "", false
}

// under reports whether the relative path rel is name or under it.
func under(rel, name string) bool {
	return rel == name || strings.HasPrefix(rel, name) && rel[len(name)] == '/'
}

// isCrontab reports whether p is a crontab or a cron directory's entry.
func isCrontab(p string, _ Env) bool {
	return effect.Within([]string{"/var/spool/cron", "/etc/crontab", "/etc/cron.d", "/etc/cron.hourly", "/etc/cron.daily",
		"/etc/cron.weekly", "/etc/cron.monthly", "/etc/anacrontab", "/var/spool/anacron"}, p)
}

// isAuthorizedKeys reports whether p is an authorized_keys file.
func isAuthorizedKeys(p string, _ Env) bool {
	b := filepath.Base(p)
	return (b == "authorized_keys" || b == "authorized_keys2") && filepath.Base(filepath.Dir(p)) == ".ssh" ||
		effect.Within([]string{"/etc/ssh/authorized_keys"}, p)
}

// isGitOutside reports whether p is a repository's hooks or configuration
// (.git/hooks, .git/config, .git/info/attributes), or a person's or the
// system's git configuration, outside the writable roots.
func isGitOutside(p string, e Env) bool {
	if effect.Within(e.Roots, p) {
		return false
	}
	if rel, ok := inHome(p, e); ok && (under(rel, ".gitconfig") || under(rel, ".config/git")) {
		return true
	}
	if p == "/etc/gitconfig" {
		return true
	}
	i := strings.Index(p, "/.git/")
	if i < 0 {
		return false
	}
	rest := p[i+len("/.git/"):]
	return rest == "config" || under(rest, "hooks") || under(rest, "info")
}
