package command

import "strings"

// Effect is something a command does that governance weighs: it destroys
// work, rewrites history, prints credentials. What a subcommand or an
// option does is data (optionEffects, read by Does); the exec rules (package rules) and
// the first pass (internal/triage) each turn the effects into their own
// verdicts, so `git checkout -f` means one thing in warden.
type Effect uint32

// The effects a command can have.
const (
	// ForcePush rewrites remote history: git push --force, -f,
	// --force-with-lease, --force-if-includes, --mirror or a +refspec.
	ForcePush Effect = 1 << iota
	// DeletesRemoteRef deletes a remote branch or tag: git push --delete,
	// --prune or a :refspec.
	DeletesRemoteRef
	// PushesEverything pushes every branch or tag: git push --all,
	// --mirror, --tags, --follow-tags.
	PushesEverything
	// DiscardsChanges throws uncommitted changes away: git reset --hard,
	// git checkout --force.
	DiscardsChanges
	// MayDiscardChanges may throw uncommitted changes away: git reset
	// --merge or --keep.
	MayDiscardChanges
	// DiscardsAllChanges throws away the changes of every file: git
	// checkout -- ., git restore . (of the worktree).
	DiscardsAllChanges
	// DeletesUntracked deletes untracked files: git clean -f without
	// --dry-run.
	DeletesUntracked
	// DeletesIgnored deletes ignored files too: git clean -x.
	DeletesIgnored
	// DeletesUnmergedBranch deletes a branch whether merged or not: git
	// branch -D, --delete --force.
	DeletesUnmergedBranch
	// DiscardsStash throws stashed changes away: git stash drop, clear.
	DiscardsStash
	// DropsRecoveryPoints drops reflog entries: git reflog expire, delete.
	DropsRecoveryPoints
	// DeletesRef deletes a ref: git update-ref -d.
	DeletesRef
	// RewritesHistory rewrites a repository's history: git filter-branch,
	// filter-repo.
	RewritesHistory
	// PrintsCredentials prints stored credentials: git credential fill.
	PrintsCredentials
	// DeletesOrMovesTag deletes or moves a tag: git tag -d, -f.
	DeletesOrMovesTag
	// RemovesWorktree removes a worktree with its changes: git worktree
	// remove --force.
	RemovesWorktree
	// RemovesCronJobs removes every cron job of a user: crontab -r.
	RemovesCronJobs
	// ConnectsProgram runs a program or shell command on a network
	// connection: nc -e, -c, --exec, --sh-exec, --lua-exec.
	ConnectsProgram
	// RecursiveForce deletes recursively without asking: rm -rf in any
	// spelling.
	RecursiveForce
	// Recursive acts on whole directory trees: rm -r, chmod -R, chown -R.
	Recursive
	// NoPreserveRoot lets rm, chmod or chown act on / itself.
	NoPreserveRoot
)

// optionEffect says that a command of path (program and subcommands, as
// Parsed.Path) has effect when it is given one option of any (or always,
// when any is empty), every option of all, and no option of unless.
type optionEffect struct {
	path   string
	any    []string
	all    []string
	unless []string
	effect Effect
}

// optionEffects are the effects of subcommands and options, by meaning:
// the option names are the grammar's canonical names, so every spelling
// (-f, --force, --forc, -fd) counts.
var optionEffects = []optionEffect{
	{path: "git push", any: []string{"force", "force-with-lease", "force-if-includes", "mirror"}, effect: ForcePush},
	{path: "git push", any: []string{"delete", "prune"}, effect: DeletesRemoteRef},
	{path: "git push", any: []string{"all", "mirror", "tags", "follow-tags"}, effect: PushesEverything},
	{path: "git reset", any: []string{"hard"}, effect: DiscardsChanges},
	{path: "git reset", any: []string{"merge", "keep"}, effect: MayDiscardChanges},
	{path: "git checkout", any: []string{"force"}, effect: DiscardsChanges},
	{path: "git clean", any: []string{"force"}, unless: []string{"dry-run"}, effect: DeletesUntracked},
	{path: "git clean", all: []string{"force", "ignored-too"}, unless: []string{"dry-run"}, effect: DeletesIgnored},
	{path: "git branch", all: []string{"delete", "force"}, effect: DeletesUnmergedBranch},
	{path: "git stash drop", effect: DiscardsStash},
	{path: "git stash clear", effect: DiscardsStash},
	{path: "git reflog expire", effect: DropsRecoveryPoints},
	{path: "git reflog delete", effect: DropsRecoveryPoints},
	{path: "git update-ref", any: []string{"delete"}, effect: DeletesRef},
	{path: "git filter-branch", effect: RewritesHistory},
	{path: "git filter-repo", effect: RewritesHistory},
	{path: "git credential fill", effect: PrintsCredentials},
	{path: "git tag", any: []string{"delete", "force"}, effect: DeletesOrMovesTag},
	{path: "git worktree remove", any: []string{"force"}, effect: RemovesWorktree},
	{path: "crontab", any: []string{"remove"}, effect: RemovesCronJobs},
	{path: "nc", any: []string{"exec", "sh-exec", "lua-exec"}, effect: ConnectsProgram},
	{path: "ncat", any: []string{"exec", "sh-exec", "lua-exec"}, effect: ConnectsProgram},
	{path: "netcat", any: []string{"exec", "sh-exec", "lua-exec"}, effect: ConnectsProgram},
	{path: "rm", all: []string{"recursive", "force"}, effect: RecursiveForce},
	{path: "rm", any: []string{"recursive"}, effect: Recursive},
	{path: "chmod", any: []string{"recursive"}, effect: Recursive},
	{path: "chown", any: []string{"recursive"}, effect: Recursive},
	{path: "chgrp", any: []string{"recursive"}, effect: Recursive},
	{path: "rm", any: []string{"no-preserve-root"}, effect: NoPreserveRoot},
	{path: "chmod", any: []string{"no-preserve-root"}, effect: NoPreserveRoot},
	{path: "chown", any: []string{"no-preserve-root"}, effect: NoPreserveRoot},
	{path: "chgrp", any: []string{"no-preserve-root"}, effect: NoPreserveRoot},
}

// effectsByPath indexes optionEffects by path; built with the grammars.
var effectsByPath map[string][]optionEffect

func indexEffects() {
	effectsByPath = map[string][]optionEffect{}
	for _, e := range optionEffects {
		effectsByPath[e.path] = append(effectsByPath[e.path], e)
	}
}

// Does returns what the command argv does, by its program's grammar
// and optionEffects, and what its operands show (a +refspec forces a
// push, `git checkout -- .` discards every change); 0 for a program with
// no grammar. An option the grammar does not know is read letter by
// letter for the flags it may hold (`git clean -zf` counts as forced), so
// an unknown letter never hides an effect.
func Does(argv []string) Effect {
	p, ok := Parse(argv)
	if !ok {
		return 0
	}
	return p.Does()
}

// Does returns what the parsed command does (see the function Does).
func (p *Parsed) Does() Effect {
	loadGrammars.Do(registerAll)
	var e Effect
	var buf [64]byte
	key := buf[:0]
	for i, w := range p.Path {
		if i > 0 {
			key = append(key, ' ')
		}
		key = append(key, w...)
	}
	effects := effectsByPath[string(key)] // no allocation: a lookup by the bytes (not in a range clause, where it copies)
	for _, oe := range effects {
		if p.matches(oe) {
			e |= oe.effect
		}
	}
	return e | p.operandEffects()
}

// matches reports whether p has the options oe asks for.
func (p *Parsed) matches(oe optionEffect) bool {
	for _, u := range oe.unless {
		if p.has(u) {
			return false
		}
	}
	for _, a := range oe.all {
		if !p.has(a) {
			return false
		}
	}
	if len(oe.any) == 0 {
		return true
	}
	for _, a := range oe.any {
		if p.has(a) {
			return true
		}
	}
	return false
}

// has reports whether the option name was given, or may be among the
// letters of an option the grammar did not know.
func (p *Parsed) has(name string) bool {
	if p.Has(name) {
		return true
	}
	if !p.Unknown {
		return false
	}
	g := p.grammar()
	if g == nil {
		return false
	}
	for _, o := range p.Options {
		if len(o.Name) < 2 || o.Name[0] != '-' || o.Name[1] == '-' {
			continue
		}
		for j := 1; j < len(o.Name); j++ {
			so, ok := g.shortOption(o.Name[j])
			if !ok {
				continue
			}
			for _, n := range g.namesOf(so) {
				if n == name {
					return true
				}
			}
			if so.arg || so.optArg {
				break // the rest is its value
			}
		}
	}
	return false
}

// grammar returns the grammar of p's last subcommand, nil when unknown.
func (p *Parsed) grammar() *Grammar {
	if len(p.Path) == 0 {
		return nil
	}
	g, ok := Lookup(p.Path[0])
	if !ok {
		return nil
	}
	for _, s := range p.Path[1:] {
		next := g.subs[s]
		if next == nil {
			return g
		}
		g = next
	}
	return g
}

// operandEffects are the effects that operands show.
func (p *Parsed) operandEffects() Effect {
	if len(p.Path) < 2 || p.Path[0] != "git" {
		return 0
	}
	var e Effect
	switch p.Path[1] {
	case "push":
		if len(p.Operands) > 1 {
			for _, r := range p.Operands[1:] {
				if strings.HasPrefix(r, "+") {
					e |= ForcePush
				}
				if strings.HasPrefix(r, ":") {
					e |= DeletesRemoteRef
				}
			}
		}
	case "checkout":
		if !p.DashDash && len(p.Operands) < 2 {
			break // `git checkout .` alone may name a branch
		}
		for _, o := range p.Operands {
			if o == "." || o == ":/" || o == "*" {
				e |= DiscardsAllChanges
			}
		}
	case "restore":
		if p.has("staged") && !p.has("worktree") {
			break
		}
		for _, o := range p.Operands {
			if o == "." || o == ":/" || o == "*" {
				e |= DiscardsAllChanges
			}
		}
	}
	return e
}

// GitConfigRunsCommand reports whether a git configuration key (any case)
// names a command git runs: hooks, pagers, editors, ssh, credential
// helpers, filters and diff drivers, aliases.
func GitConfigRunsCommand(key string) bool {
	k := strings.ToLower(key)
	if strings.HasPrefix(k, "alias.") {
		return true
	}
	switch k {
	case "core.hookspath", "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor",
		"core.askpass", "diff.external", "credential.helper", "sequence.editor", "gpg.program":
		return true
	}
	return strings.HasSuffix(k, ".textconv") || strings.HasSuffix(k, ".command") ||
		strings.HasSuffix(k, ".clean") || strings.HasSuffix(k, ".smudge") || strings.HasSuffix(k, ".process")
}

// ChmodArgs is a chmod command read with chmod's grammar.
type ChmodArgs struct {
	// Mode is the mode operand ("u+x", "755", "-w"), "" with --reference.
	Mode string
	// Targets are the files it changes.
	Targets []string
	// Recursive is true with -R or --recursive.
	Recursive bool
}

// Chmod reads a chmod argv (argv[0] is chmod). A word that starts with "-"
// and is not an option of chmod is a mode (chmod -w f); --reference FILE
// gives no mode.
func Chmod(argv []string) ChmodArgs {
	g, _ := Lookup("chmod")
	var out ChmodArgs
	var p Parsed
	var ops []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			ops = append(ops, argv[i+1:]...)
			i = len(argv)
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			var q Parsed
			j := g.option(&q, argv, i)
			if q.Unknown {
				ops = append(ops, a) // a mode such as -w or -rwx
				continue
			}
			p.Options = append(p.Options, q.Options...)
			i = j
		case strings.HasPrefix(a, "--"):
			i = g.option(&p, argv, i)
		default:
			ops = append(ops, a)
		}
	}
	out.Recursive = p.Has("recursive")
	if p.Has("reference") {
		out.Targets = ops
		return out
	}
	if len(ops) > 0 {
		out.Mode, out.Targets = ops[0], ops[1:]
	}
	return out
}

// KillArgs is a kill command read by its words.
type KillArgs struct {
	// List is true when kill lists signals (-l, -L, --list, --table) and
	// sends none.
	List bool
	// Signal is the signal sent (-9, -KILL, -s KILL, -n 9, --signal=KILL),
	// "" for the default.
	Signal string
	// Targets are the processes, process groups (-PGID after the signal
	// or --) and jobs (%1) signalled.
	Targets []string
}

// Kill reads a kill argv (argv[0] is kill): the first word starting with
// "-" before any target is the signal; after a target or "--", words are
// targets (kill -9 -1 signals every process).
func Kill(argv []string) KillArgs {
	var k KillArgs
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-l" || a == "-L" || a == "--list" || a == "--table":
			k.List = true
		case (a == "-s" || a == "-n" || a == "--signal") && k.Signal == "" && len(k.Targets) == 0:
			if i+1 < len(argv) {
				k.Signal = argv[i+1]
				i++
			}
		case strings.HasPrefix(a, "--signal=") && k.Signal == "" && len(k.Targets) == 0:
			k.Signal = a[len("--signal="):]
		case a == "--":
			k.Targets = append(k.Targets, argv[i+1:]...)
			i = len(argv)
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && k.Signal == "" && len(k.Targets) == 0:
			k.Signal = a[1:]
		default:
			k.Targets = append(k.Targets, a)
		}
	}
	return k
}
