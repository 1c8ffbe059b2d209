package program

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/internal/wordset"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = judge.RegisterJudges(map[string]func(*judge.Script, *judge.Command){
	"alembic":            judgeAlembic,
	"build_tool":         judgeBuildTool,
	"cargo":              judgeCargo,
	"dev_tool":           judgeDevTool,
	"gem":                judgeGem,
	"gh":                 judgeGh,
	"git":                judgeGit,
	"go":                 judgeGo,
	"manage":             judgeManage,
	"node":               judgeNode,
	"npm":                judgeNpm,
	"npx":                judgeNpx,
	"perl":               judgePerl,
	"pipx":               judgePipx,
	"poetry":             judgePoetry,
	"rustup":             judgeRustup,
	"script_interpreter": judgeScriptInterp,
	"server_config_test": judgeServerConfigTest,
	"uv":                 judgeUv,
	"yarn":               judgeYarn,
})

func judgeDevTool(s *judge.Script, c *judge.Command) {
	if (c.Name == "kotlinc" || c.Name == "kotlin") && shell.HasWord(c.Args, "-script") {
		// kotlinc -script x.kts runs the script, not a build.
		for _, op := range shell.Operands(c.Args, "") {
			if extOf(op) == "kts" || extOf(op) == "kt" {
				runsFile(s, c, op)
				return
			}
		}
	}
	switch c.Name {
	case "trivy", "grype", "syft", "gitleaks", "semgrep", "trufflehog":
		// Scanners print what they find; gitleaks without --redact
		// prints the secrets it finds.
		if c.Name == "gitleaks" && !shell.HasLong(c.Args, "redact") && !shell.HasWord(c.Args, "protect") {
			s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` may print the secrets it finds (no --redact)")
		}
	case "migrate", "goose", "dbmate", "atlas":
		if shell.HasWord(c.Args, "down", "drop", "reset", "force", "redo") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` rolls back or drops database migrations")
			return
		}
	case "prisma":
		if shell.HasWord(c.Args, "reset") || shell.HasLong(c.Args, "force-reset", "accept-data-loss") {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` resets a database")
			return
		}
	case "ab", "hey", "wrk", "k6":
		for _, a := range c.Args[1:] {
			if strings.Contains(a, "://") && !network.LocalURL(a) {
				s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` sends load to a remote host")
				return
			}
		}
	case "java":
		for i := 1; i < len(c.Args); i++ {
			a := c.Args[i]
			switch {
			case strings.HasPrefix(a, "-javaagent") || strings.HasPrefix(a, "-agentpath"):
				s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` loads an agent into the JVM")
			case a == "-cp" || a == "-classpath" || a == "--class-path" || a == "-p" || a == "--module-path":
				i++
			case a == "-jar" || a == "-m" || a == "--module" || !strings.HasPrefix(a, "-"):
				// A class, a jar or a source file: code the request
				// does not show, like python f.py.
				s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs Java code whose text is not in the request")
				i = len(c.Args)
			}
		}
	case "uvicorn", "gunicorn", "hypercorn", "flask", "jupyter":
		for _, h := range append(shell.OptValues(c.Args, "", "host"), shell.OptValues(c.Args, "-b", "bind", "ip")...) {
			if strings.HasPrefix(h, "0.0.0.0") || h == "::" || strings.HasPrefix(h, "[::]") {
				s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` serves on every network interface")
			}
		}
	}
	for _, o := range shell.OptValues(c.Args, "-o", "output", "out", "outfile", "out-file") {
		s.Write(c, s.Where(o, c.Cwd), "")
	}
	s.Allow(c.Name)
}

// Git.

// SharedBranch matches the names of branches a team shares.
var SharedBranch = pattern.Lazy(`^(refs/heads/)?(main|master|trunk|develop|development|dev|release.*|production|prod|staging|stable|gh-pages|HEAD)$`)

func judgeGit(s *judge.Script, c *judge.Command) {
	args := c.Args
	i := command.Subcommand(args)
	for _, kv := range command.GitConfigs(args) {
		gitConfig(s, c, []string{kv}, false)
	}
	if i >= len(args) {
		s.Allow("git")
		return
	}
	sub, rest := args[i], args[i:]
	switch sub {
	case "ls-remote", "fetch", "pull", "clone", "push", "remote", "submodule", "archive", "request-pull":
		// The remote's address carries what is put in it, as a URL does.
		var urls, hosts []string
		for _, a := range rest[1:] {
			if strings.Contains(a, "://") || strings.Contains(a, "$(") || strings.Contains(a, "`") || strings.Contains(a, "@") {
				urls = append(urls, a)
				if h, ok := network.URLHost(a); ok {
					hosts = append(hosts, h)
				}
			}
		}
		if urlsCarry(s, c, urls, hosts) {
			return
		}
	}
	p, _ := command.Parse(args)
	// Options that write the output to a file are writes there.
	for _, o := range append(p.Values("output"), p.Values("output-directory")...) {
		s.Write(c, s.Where(o, c.Cwd), "")
	}
	does := p.Does()
	switch sub {
	case "status", "diff", "log", "show", "blame", "annotate", "rev-parse", "rev-list", "ls-files", "ls-tree",
		"cat-file", "describe", "shortlog", "merge-base", "show-ref", "count-objects", "version", "whatchanged",
		"diff-tree", "diff-files", "diff-index", "for-each-ref", "name-rev", "check-ignore", "grep", "help",
		"var", "cherry", "range-diff", "fsck", "verify-commit", "verify-tag", "check-attr", "check-ref-format",
		"ls-remote", "bugreport":
		s.Allow("git " + sub)
	case "add", "mv", "init", "clone", "fetch", "pull", "merge", "rebase", "cherry-pick", "revert", "switch", "bisect",
		"apply", "am", "format-patch", "submodule", "lfs", "gc", "prune", "worktree", "notes", "commit-graph",
		"maintenance", "sparse-checkout", "archive", "bundle", "request-pull", "mergetool", "difftool":
		if s.Escalated && (sub == "init" || sub == "clone" || sub == "worktree" || sub == "submodule") {
			// Outside the sandbox, a .git it creates is not found and moved
			// away afterwards, as one made in the sandbox is (G15): a
			// repository whose hooks and configuration the agent chose.
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` creates a repository (.git) outside the sandbox")
			return
		}
		if does&command.RemovesWorktree != 0 {
			s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` removes a worktree with its changes")
			return
		}
		s.Allow("git " + sub)
	case "rm":
		if shell.HasLong(rest, "cached") {
			s.Allow("git rm --cached")
			return
		}
		for _, p := range shell.Operands(rest, "") {
			s.Remove(c, p, shell.HasShort(rest, 'r', ""))
		}
		s.Allow("git rm")
	case "commit":
		if shell.HasLong(rest, "no-verify") || shell.HasShort(rest, 'n', "mFCcSt") {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` skips the commit hooks (--no-verify), which may scan for secrets")
			return
		}
		s.Allow("git commit")
	case "checkout", "restore", "reset", "clean", "branch", "tag", "stash", "reflog":
		for _, v := range gitEffectVerdicts {
			if v.sub == sub && does&v.effect != 0 {
				s.Esc(vocab.Destructive, v.risk, "`"+c.Text+"` "+v.what)
				return
			}
		}
		s.Allow("git " + sub)
	case "remote":
		if len(rest) > 1 && (rest[1] == "remove" || rest[1] == "rm" || rest[1] == "set-url") {
			s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` changes where the repository pushes")
			return
		}
		s.Allow("git remote")
	case "config":
		ops := shell.Operands(rest, "f", "file", "blob", "type", "default")
		global := shell.HasLong(rest, "global", "system")
		if len(ops) >= 2 || shell.HasLong(rest, "add", "replace-all") || len(ops) >= 1 && len(rest) > 1 && rest[1] == "set" {
			if len(ops) >= 1 && ops[0] == "set" {
				ops = ops[1:]
			}
			kv := ops
			if len(kv) >= 2 {
				kv = []string{kv[0] + "=" + kv[1]}
			}
			if gitConfig(s, c, kv, global) {
				return
			}
		}
		if shell.HasLong(rest, "edit") || shell.HasShort(rest, 'e', "f") {
			s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` edits the git configuration")
			return
		}
		if global && len(ops) >= 2 {
			key := strings.ToLower(ops[0])
			if !strings.HasPrefix(key, "user.") && !strings.HasPrefix(key, "color.") && !strings.HasPrefix(key, "init.") &&
				!strings.HasPrefix(key, "pull.") && !strings.HasPrefix(key, "push.") && !strings.HasPrefix(key, "alias.") &&
				!strings.HasPrefix(key, "core.autocrlf") && !strings.HasPrefix(key, "rebase.") && !strings.HasPrefix(key, "merge.") {
				s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` changes the user's global git configuration")
				return
			}
		}
		s.Allow("git config")
	case "push":
		gitPush(s, c, rest, does)
	case "filter-branch", "filter-repo", "replace", "update-ref", "symbolic-ref", "commit-tree", "hash-object",
		"update-index", "read-tree", "write-tree", "pack-refs", "prune-packed", "repack":
		if sub == "update-ref" && does&command.DeletesRef == 0 {
			s.Esc(vocab.Destructive, judge.Low, "`"+c.Text+"` rewrites a ref")
			return
		}
		if sub == "hash-object" && !shell.HasShort(rest, 'w', "") || sub == "repack" || sub == "pack-refs" {
			s.Allow("git " + sub)
			return
		}
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` rewrites history or refs")
	case "credential", "credential-store", "credential-cache":
		if shell.HasWord(rest, "fill", "get") {
			s.Deny(vocab.CredentialProbing, "`"+c.Text+"` prints stored git credentials")
			return
		}
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` manages stored git credentials")
	case "send-email", "daemon", "instaweb", "http-backend", "shell", "upload-pack", "receive-pack":
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` sends or serves the repository")
	default:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"`: git "+sub+" is not a subcommand the first pass knows")
	}
}

// gitEffectVerdicts are how the first pass passes on what a git
// subcommand does (command.Does): the first row of the subcommand whose
// effect the command has gives the risk and the reason.
var gitEffectVerdicts = []struct {
	sub    string
	effect command.Effect
	risk   int
	what   string
}{
	{"checkout", command.DiscardsChanges, judge.Medium, "discards uncommitted changes (--force)"},
	{"checkout", command.DiscardsAllChanges, judge.Medium, "discards every uncommitted change"},
	{"restore", command.DiscardsAllChanges, judge.Medium, "discards every uncommitted change"},
	{"reset", command.DiscardsChanges | command.MayDiscardChanges, judge.Medium, "discards uncommitted changes (--hard)"},
	{"clean", command.DeletesIgnored, judge.Medium, "deletes untracked and ignored files (.env and local data included)"},
	{"clean", command.DeletesUntracked, judge.Medium, "deletes untracked files"},
	{"branch", command.DeletesUnmergedBranch, judge.Medium, "deletes a branch that may not be merged"},
	{"tag", command.DeletesOrMovesTag, judge.Low, "deletes or moves a tag"},
	{"stash", command.DiscardsStash, judge.Medium, "discards stashed changes"},
	{"reflog", command.DropsRecoveryPoints, judge.High, "drops recovery points"},
}

// gitConfig judges configuration settings "key=value" (or "key value"
// split by the caller); it reports whether it found something.
func gitConfig(s *judge.Script, c *judge.Command, kvs []string, global bool) bool {
	found := false
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.ToLower(k)
		v = strings.ToLower(strings.TrimSpace(v))
		switch {
		case k == "http.sslverify" && (v == "false" || v == "0" || v == "no" || v == "off"):
			if global {
				s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns TLS verification off for every git repository")
			} else {
				s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` turns TLS verification off")
			}
			found = true
		case command.GitConfigRunsCommand(k) && (!strings.HasPrefix(k, "alias.") || strings.HasPrefix(v, "!")):
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` sets "+k+", which runs commands")
			found = true
		case k == "commit.gpgsign" && v == "false" || k == "transfer.fsckobjects" && v == "false":
			s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` turns a git safety check off")
			found = true
		}
	}
	return found
}

// gitPush judges git push with the words rest after push.
func gitPush(s *judge.Script, c *judge.Command, rest []string, does command.Effect) {
	force := does&command.ForcePush != 0
	del := does&command.DeletesRemoteRef != 0
	ops := shell.Operands(rest, "o", "push-option", "repo", "receive-pack", "exec")
	if does&command.PushesEverything != 0 {
		s.Esc(vocab.Destructive, judge.Low, "`"+c.Text+"` pushes every branch or tag")
		return
	}
	var refs []string
	if len(ops) > 1 {
		refs = ops[1:]
	}
	shared := len(refs) == 0
	for _, r := range refs {
		src, dst, ok := strings.Cut(strings.TrimPrefix(r, "+"), ":")
		if !ok {
			dst = src
		}
		if SharedBranch.MatchString(dst) || strings.HasPrefix(dst, "refs/tags") || strings.HasPrefix(dst, "v") && len(dst) > 1 && dst[1] >= '0' && dst[1] <= '9' {
			shared = true
		}
		if strings.Contains(r, "$") {
			shared = true
		}
	}
	switch {
	case del:
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes a remote branch or tag")
	case force && shared:
		s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` rewrites the history of a shared branch (force push)")
	case force:
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` rewrites remote history (force push)")
	case shared && len(refs) == 0:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` pushes the current branch, which may be shared")
	case shared:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` pushes to a shared branch or a release tag")
	default:
		s.Allow("git push to a feature branch")
	}
}

// GitHub CLI.

func judgeGh(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, "gh", "-R", "--repo", "--hostname")
	if !ok {
		return
	}
	group := c.Args[i]
	verb := ""
	if i+1 < len(c.Args) {
		verb = c.Args[i+1]
	}
	switch group {
	case "auth":
		switch verb {
		case "status":
			if shell.HasShort(c.Args, 't', "h") || shell.HasLong(c.Args, "show-token") {
				s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` prints the GitHub token")
				return
			}
			s.Allow("gh auth status")
		case "token":
			c.Out, c.OutWhat = secret.Critical, "the GitHub token"
			s.Esc(vocab.CredentialProbing, judge.High, "`"+c.Text+"` prints the GitHub token")
		default:
			s.Esc(vocab.CredentialProbing, judge.Low, "`"+c.Text+"` changes the GitHub login")
		}
		return
	case "api":
		if len(shell.OptValues(c.Args, "-X", "method")) > 0 || len(shell.OptValues(c.Args, "-f", "raw-field")) > 0 ||
			len(shell.OptValues(c.Args, "-F", "field")) > 0 || shell.HasLong(c.Args, "input") {
			for _, m := range shell.OptValues(c.Args, "-X", "method") {
				if strings.EqualFold(m, "GET") {
					s.Allow("gh api GET")
					return
				}
			}
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes something through the GitHub API")
			return
		}
		s.Allow("gh api")
		return
	case "secret", "ssh-key", "gpg-key", "variable":
		if verb == "list" {
			s.Allow("gh " + group + " list")
			return
		}
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes "+group+"s")
		return
	case "repo":
		switch verb {
		case "view", "list", "clone", "fork", "sync":
			s.Allow("gh repo " + verb)
			return
		case "delete", "archive":
			s.Esc(vocab.Destructive, judge.High, "`"+c.Text+"` deletes or archives a repository")
			return
		case "edit":
			if shell.HasLong(c.Args, "visibility") {
				s.Esc(vocab.Exfiltration, judge.High, "`"+c.Text+"` changes a repository's visibility")
				return
			}
		}
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` changes a repository")
		return
	case "extension", "alias":
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` installs or defines commands")
		return
	}
	switch verb {
	case "list", "view", "status", "diff", "checks", "watch", "download", "checkout", "search", "browse", "ls":
		s.Allow("gh " + group + " " + verb)
	case "create":
		if group == "pr" {
			s.Allow("gh pr create")
			return
		}
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` creates a GitHub "+group)
	case "delete":
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` deletes a GitHub "+group)
	case "merge":
		if shell.HasLong(c.Args, "admin") {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` merges past branch protection (--admin)")
			return
		}
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` merges a pull request")
	default:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` changes GitHub state (gh "+group+" "+verb+")")
	}
}

// Go, Rust, JavaScript, Python.

func judgeGo(s *judge.Script, c *judge.Command) {
	if len(c.Args) < 2 {
		s.Allow("go")
		return
	}
	switch c.Args[1] {
	case "env":
		if shell.HasShort(c.Args, 'w', "") {
			for _, a := range c.Args[2:] {
				name, val, _ := strings.Cut(a, "=")
				if r := judge.TlsOffVar(name, val); r != "" || name == "GOINSECURE" || name == "GOPROXY" && strings.Contains(val, "http://") {
					s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` weakens module verification for good")
					return
				}
			}
		}
	case "run", "test", "build", "install", "generate", "vet", "list":
		for _, a := range c.Args[2:] {
			if strings.HasPrefix(a, "-toolexec") || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "--toolexec") {
				s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs a tool around the build")
			}
		}
		for _, o := range shell.OptValues(c.Args, "-o", "") {
			s.Write(c, s.Where(o, c.Cwd), "")
		}
		if c.Args[1] == "run" || c.Args[1] == "install" {
			// go run/install MODULE@VERSION fetches code the project
			// does not declare and builds (and runs) it.
			for _, a := range shell.Operands(c.Args[1:], "o", "exec", "toolexec", "tags", "ldflags", "gcflags", "mod", "modfile", "C", "p") {
				if strings.HasSuffix(a, ".go") || strings.ContainsAny(a, "$`") {
					// go run FILE.go: source outside the project, or
					// written by this very script, is code the request
					// does not show the effect of.
					if pl := s.Where(a, c.Cwd); pl.Zone != judge.ZWork || s.WroteFile(pl.Abs) {
						s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` builds and runs "+a+", source that is not the project's")
					}
				}
				if mod, _, ok := strings.Cut(a, "@"); ok && !knownGoModule(mod) {
					s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` fetches and builds "+mod+", which the project does not declare")
				}
			}
		}
	}
	s.Allow("go " + c.Args[1])
}

// knownGoModule reports whether a Go module path belongs to the Go
// project or a widely used tool.
func knownGoModule(mod string) bool {
	for _, p := range []string{"golang.org/x/", "google.golang.org/", "honnef.co/go/tools/", "mvdan.cc/", "github.com/golangci/",
		"github.com/go-delve/delve/", "gotest.tools/", "github.com/golang/", "github.com/goreleaser/", "github.com/air-verse/air",
		"github.com/swaggo/swag/", "github.com/sqlc-dev/sqlc/", "github.com/vektra/mockery/", "go.uber.org/mock/", "github.com/bufbuild/buf/"} {
		if strings.HasPrefix(mod+"/", p) || strings.HasPrefix(mod, p) {
			return true
		}
	}
	return false
}

func judgeCargo(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, "cargo", "--manifest-path", "-Z", "--config", "--color")
	if !ok {
		return
	}
	switch v := c.Args[i]; v {
	case "publish", "login", "logout", "owner", "yank":
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes to or changes the crates registry")
	case "add", "install":
		if shell.HasLong(c.Args, "git", "path", "index", "registry") {
			if shell.HasLong(c.Args, "path") {
				s.Allow("cargo " + v + " from a path")
				return
			}
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` installs a crate from outside crates.io")
			return
		}
		packages(s, c, shell.Operands(c.Args[i:], "FpjZ", "features", "package", "rename", "version", "vers", "target", "root", "bin", "example", "branch", "tag", "rev", "jobs"), s.V.K.List("popular_crates"), "crate")
	default:
		s.Allow("cargo " + v)
	}
}

func judgeNpm(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, "npm", "--prefix", "-w", "--workspace", "-C")
	if !ok {
		return
	}
	rest := c.Args[i:]
	if r := shell.OptValues(c.Args, "", "registry"); len(r) > 0 {
		for _, u := range r {
			if !strings.HasPrefix(u, "https://registry.npmjs.org") && !strings.HasPrefix(u, "https://registry.yarnpkg.com") {
				s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` uses the registry "+u)
			}
		}
	}
	switch v := rest[0]; v {
	case "ci", "test", "t", "tst", "outdated", "ls", "list", "ll", "la", "audit", "view", "info", "show", "v",
		"pack", "whoami", "help", "doctor", "ping", "prune", "dedupe", "ddp", "rebuild", "rb", "link", "ln",
		"uninstall", "remove", "rm", "un", "unlink", "init", "create", "explain", "why", "fund", "query", "search", "find-dupes", "root", "bin", "prefix", "completion", "docs", "home", "bugs", "repo":
		s.Allow("npm " + v)
	case "install", "i", "add", "isntall", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "update", "up", "upgrade":
		pkgs := shell.Operands(rest, "w", "workspace", "prefix", "tag", "registry", "omit", "include")
		if shell.HasShort(rest, 'g', "") || shell.HasLong(rest, "global") {
			packages(s, c, pkgs, s.V.K.List("popular_npm"), "global npm package")
			return
		}
		packages(s, c, pkgs, s.V.K.List("popular_npm"), "npm package")
	case "run", "run-script", "rum", "urn":
		if len(rest) < 2 {
			s.Allow("npm run")
			return
		}
		target(s, c, "npm run", rest[1])
	case "start", "stop", "restart":
		s.Allow("npm " + v)
	case "exec", "x":
		npx(s, c, rest[1:])
	case "publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "team", "org", "adduser", "login", "logout", "token", "star", "hook":
		if v == "token" || v == "login" || v == "adduser" {
			s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` manages npm credentials")
			return
		}
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes to or changes the npm registry")
	case "version":
		s.Allow("npm version")
	case "config", "c", "set", "get":
		if len(rest) > 1 && (rest[1] == "get" || rest[1] == "list" || rest[1] == "ls") || v == "get" {
			s.Allow("npm config get")
			return
		}
		kv := strings.Join(rest[1:], " ")
		if strings.Contains(kv, "strict-ssl") && (strings.Contains(kv, "false") || strings.Contains(kv, "0")) {
			s.Deny(vocab.SecurityWeakening, "`"+c.Text+"` turns TLS verification off for npm for good")
			return
		}
		if strings.Contains(kv, "script-shell") || strings.Contains(kv, "shell") || strings.Contains(kv, "node-options") ||
			strings.Contains(kv, "git ") || strings.Contains(kv, "git=") || strings.Contains(kv, "editor") || strings.Contains(kv, "browser") {
			s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` chooses a program npm runs")
			return
		}
		if strings.Contains(kv, "registry") || strings.Contains(kv, "_auth") || strings.Contains(kv, "ignore-scripts") {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes npm's registry or credentials")
			return
		}
		s.Allow("npm config")
	case "cache":
		s.Allow("npm cache")
	default:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"`: npm "+v+" is not a subcommand the first pass knows")
	}
}

func judgeNpx(s *judge.Script, c *judge.Command) { npx(s, c, c.Args[1:]) }

// npx runs a package's program, downloading the package when it is not
// installed: well-known development tools are routine.
func npx(s *judge.Script, c *judge.Command, rest []string) {
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		if rest[0] == "-p" || rest[0] == "--package" || rest[0] == "-c" || rest[0] == "--call" {
			if len(rest) > 1 {
				if rest[0] == "-c" || rest[0] == "--call" {
					s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs a command string")
					return
				}
				rest = rest[1:]
			}
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		s.Allow("npx")
		return
	}
	name := pkgName(rest[0])
	for _, a := range rest[1:] {
		switch a {
		case "upload", "publish", "deploy", "release", "push":
			s.Esc(vocab.Exfiltration, judge.Low, "`"+c.Text+"` runs "+name+" "+a)
			return
		}
	}
	if s.V.K.List("popular_npm").Has(name) || isDevToolName(s, name) {
		s.Allow("npx " + name)
		return
	}
	s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` downloads and runs the npm package "+name)
}

// isDevToolName reports whether n names a development tool: a program the
// programs file judges as a dev_tool, or one of its npx_tools.
func isDevToolName(s *judge.Script, n string) bool {
	if p := s.V.K.Prog(n); p != nil && p.JudgeName == "dev_tool" {
		return true
	}
	return s.V.K.List("npx_tools").Has(n)
}

func judgeYarn(s *judge.Script, c *judge.Command) {
	i, ok := subcommand(s, c.Args, c.Name+" install", "--cwd", "--filter", "-F", "-C", "--dir", "--prefix")
	if !ok {
		return
	}
	rest := c.Args[i:]
	switch v := rest[0]; v {
	case "install", "i", "ci", "test", "t", "build", "lint", "outdated", "list", "ls", "why", "info", "audit",
		"remove", "rm", "uninstall", "dedupe", "prune", "licenses", "check", "init", "create", "start", "dev", "bin", "config", "store", "cache", "workspaces", "recursive", "-r":
		if v == "create" {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` downloads and runs a project generator")
			return
		}
		s.Allow(c.Name + " " + v)
	case "add", "upgrade", "up", "update":
		packages(s, c, shell.Operands(rest, "", "filter"), s.V.K.List("popular_npm"), c.Name+" package")
	case "run", "run-script":
		if len(rest) < 2 {
			s.Allow(c.Name + " run")
			return
		}
		target(s, c, c.Name+" run", rest[1])
	case "dlx", "exec", "x":
		npx(s, c, rest[1:])
	case "publish", "npm", "login", "logout":
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes to or logs in to a registry")
	default:
		// yarn SCRIPT runs a package.json script.
		target(s, c, c.Name, v)
	}
}

// target judges running a named target or script of the project (make
// test, npm run build): names that say they build, test, check or format
// are routine; names that deploy, publish, reset or tear down are passed
// on, as are names that say nothing.
func target(s *judge.Script, c *judge.Command, tool, name string) {
	ws := argument.Words(name)
	for _, w := range ws {
		if s.V.K.List("risky_target_words").Has(w) {
			s.Esc(vocab.Destructive, judge.Low, "`"+c.Text+"` runs the "+tool+" target "+name+", which may change shared state")
			return
		}
	}
	for _, w := range ws {
		if s.V.K.List("routine_target_words").Has(w) {
			s.Allow(tool + " " + name)
			return
		}
	}
	s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs the "+tool+" target "+name+", whose recipe the first pass does not read")
}

var (
	PkgVersion = pattern.Lazy(`(\[[^\]]*\])?\s*([=<>!~^]=?|@).*$`)
)

// pkgName strips a package spec down to its name: versions, extras and
// quotes (requests==2.3, 'pkg[extra]>=1', lodash@^4, @scope/pkg@1).
func pkgName(spec string) string {
	spec = strings.Trim(spec, `"' `)
	scoped := strings.HasPrefix(spec, "@")
	if scoped {
		spec = spec[1:]
	}
	spec = PkgVersion.ReplaceAllString(spec, "")
	spec = strings.ToLower(spec)
	if scoped {
		spec = "@" + spec
	}
	return spec
}

// packages judges installing named packages: none (the project's
// manifest) or well-known ones are routine; a name close to a well-known
// one may be a typosquat; others are passed on. URLs and paths are
// judged as sources.
func packages(s *judge.Script, c *judge.Command, specs []string, popular *wordset.Set, what string) {
	if len(specs) == 0 {
		s.Allow("installs the project's dependencies")
		return
	}
	for _, sp := range specs {
		if sp == "" || sp == "." || strings.HasPrefix(sp, "./") || strings.HasPrefix(sp, "../") || strings.HasPrefix(sp, "file:") {
			continue
		}
		if strings.Contains(sp, "://") || strings.HasPrefix(sp, "git+") || strings.HasPrefix(sp, "github:") ||
			strings.HasPrefix(sp, "git@") || strings.Contains(sp, ".tgz") || strings.HasSuffix(sp, ".whl") ||
			strings.HasSuffix(sp, ".tar.gz") || strings.Count(sp, "/") == 1 && !strings.HasPrefix(sp, "@") && what != "crate" {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` installs a "+what+" from outside the registry ("+sp+")")
			continue
		}
		name := pkgName(sp)
		if popular.Has(name) {
			continue
		}
		if near := nearPopular(name, popular); near != "" {
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` installs the "+what+" "+name+", one typo away from "+near+" (possible typosquat)")
			continue
		}
		s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` installs the "+what+" "+name+", which the first pass does not know")
	}
	s.Allow("installs well-known packages")
}

// nearPopular returns a well-known name within edit distance 2 of name
// (1 for short names), "" when there is none.
func nearPopular(name string, popular *wordset.Set) string {
	if len(name) < 4 {
		return ""
	}
	limit := 2
	if len(name) < 7 {
		limit = 1
	}
	for p := range popular.All() {
		if d := len(p) - len(name); d > limit || d < -limit {
			continue
		}
		if editDistance(name, p, limit) <= limit {
			return p
		}
	}
	return ""
}

// editDistance is the optimal string alignment distance (Damerau), capped
// at limit+1.
func editDistance(a, b string, limit int) int {
	n, m := len(a), len(b)
	prev2 := make([]int, m+1)
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := 0; j <= m; j++ {
		prev[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= m; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[m]
}

func judgeNode(s *judge.Script, c *judge.Command) {
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "-e" || a == "--eval" || a == "-p" || a == "--print":
			if i+1 < len(c.Args) {
				inlineCode(s, c, c.Args[i+1])
			}
			s.Allow(c.Name)
			return
		case a == "--version" || a == "-v" || a == "--help" || a == "-h":
			s.Allow(c.Name)
			return
		case a == "-r" || a == "--require" || a == "--import" || a == "--loader":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if c.Name == "deno" && (a == "fmt" || a == "lint" || a == "check" || a == "doc" || a == "info") {
				// Formats, lints or type-checks files; runs none of them.
				for _, op := range shell.Operands(c.Args[i:], "") {
					if a == "fmt" && !shell.HasLong(c.Args, "check") {
						s.Write(c, s.Where(op, c.Cwd), "")
					} else {
						s.Read(c, op, false)
					}
				}
				s.Allow("deno " + a)
				return
			}
			if c.Name == "deno" && (a == "test" || a == "bench") {
				// The project's tests or benchmarks, as go test: its
				// files are read, and run under deno's permissions.
				for _, op := range shell.Operands(c.Args[i+1:], "") {
					s.Read(c, op, false)
				}
				s.Allow("deno " + a)
				return
			}
			if c.Name == "deno" && (a == "run" || a == "task") {
				continue
			}
			runsFile(s, c, a)
			return
		}
	}
	s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts an interactive "+c.Name)
}

// runsFile judges c running the script file with an interpreter.
func runsFile(s *judge.Script, c *judge.Command, file string) {
	if t := offensiveScript(file); t != "" {
		s.Deny(vocab.CredentialProbing, "`"+c.Text+"` runs "+t+", a credential dumping or attack tool")
		return
	}
	pl := s.Where(file, c.Cwd)
	switch pl.Zone {
	case judge.ZWork:
		// Its code is not in the request: written or fetched in this run,
		// or the project's, it may do anything (SPEC G15).
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs "+file+", whose code is not in the request")
	default:
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs "+file+" from "+pl.Zone.String())
	}
}

func judgeScriptInterp(s *judge.Script, c *judge.Command) {
	if c.Name == "osascript" {
		code := strings.Join(shell.OptValues(c.Args, "-e", ""), "\n")
		low := strings.ToLower(code)
		if strings.Contains(low, "hidden answer") || strings.Contains(low, "password") && strings.Contains(low, "display dialog") {
			s.Deny(vocab.CredentialProbing, "`"+c.Text+"` shows a dialog asking for a password")
			return
		}
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` controls other applications (AppleScript)")
		return
	}
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "-e" || a == "-r" && c.Name == "php" || a == "-c" || a == "-Command" || a == "-command" || a == "--eval":
			if i+1 < len(c.Args) {
				inlineCode(s, c, c.Args[i+1])
			}
			s.Allow(c.Name)
			return
		case a == "--version" || a == "-v" || a == "--help":
			s.Allow(c.Name)
			return
		case c.Name == "php" && (a == "-l" || a == "--syntax-check"):
			s.Allow("php checks syntax")
			return
		case strings.HasPrefix(a, "-"):
		default:
			runsFile(s, c, a)
			return
		}
	}
	s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts an interactive "+c.Name)
}

func judgePerl(s *judge.Script, c *judge.Command) {
	code := ""
	inPlace := false
	var ops []string
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "--":
			ops = append(ops, c.Args[i+1:]...)
			i = len(c.Args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'e', 'E':
					if j == len(a)-1 && i+1 < len(c.Args) {
						code += "\n" + c.Args[i+1]
						i++
					} else {
						code += "\n" + a[j+1:]
					}
					j = len(a)
				case 'i':
					inPlace = true
					j = len(a)
				case 'l', '0':
					// An optional octal number attached: -l, -l015, -0777.
					for j+1 < len(a) && a[j+1] >= '0' && a[j+1] <= '7' {
						j++
					}
				case 'M', 'm', 'I', 'x', 'F', 'C':
					if a[j] == 'M' || a[j] == 'm' {
						code += "\nuse " + a[j+1:]
					}
					j = len(a)
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if code == "" {
		if len(ops) == 0 {
			s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` reads a Perl program from input")
			return
		}
		runsFile(s, c, ops[0])
		return
	}
	inlineCode(s, c, code)
	if inPlace {
		s.InPlaceConfigEdit(c, []string{code}, ops)
	}
	for _, p := range ops {
		if inPlace {
			s.Write(c, s.Where(p, c.Cwd), "")
		} else {
			s.Read(c, p, true)
		}
	}
	s.Allow("perl")
}

// inlineCode judges inline code of interpreters (python -c, perl -e,
// node -e) by its effects (see command.CodeEffects): a secret source sent
// to the network is exfiltration; the network, running commands, deleting
// or writing files are passed on; plain computation is routine.
func inlineCode(s *judge.Script, c *judge.Command, code string) {
	e := command.CodeEffects(command.Inline{Code: code, Known: true})
	net, secret := e.Net, e.Secret
	if !secret && codeNamesSecret(s, c, code) {
		// A path in the code's strings that names a secret
		// (open('~/.config/google-chrome/Local State')).
		secret = true
	}
	switch {
	case net && secret:
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` sends secrets (the environment or credential files) over the network")
	case net:
		s.RemoteSink = true
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` runs code that uses the network")
	case e.Exec:
		s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` runs code that starts other programs")
	case e.Destroy:
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` runs code that deletes or changes files")
	case secret:
		s.Esc(vocab.CredentialProbing, judge.Medium, "`"+c.Text+"` runs code that reads the environment or credential files")
	case e.Write:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs code that writes files")
	default:
		if !strongInline(s, c, code) {
			s.Allow(c.Name + " computes")
		}
	}
}

// codeNamesSecret reports whether a string literal of inline code names a
// path that holds secrets.
func codeNamesSecret(s *judge.Script, c *judge.Command, code string) bool {
	for _, q := range []byte{'\'', '"'} {
		rest := code
		for n := 0; n < 32; n++ {
			i := strings.IndexByte(rest, q)
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i+1:], q)
			if j < 0 {
				break
			}
			lit := rest[i+1 : i+1+j]
			rest = rest[i+1+j+1:]
			if len(lit) < 3 || !(strings.HasPrefix(lit, "/") || strings.HasPrefix(lit, "~/")) {
				continue
			}
			if l, _ := s.Secret(s.Where(lit, c.Cwd)); l > secret.None {
				return true
			}
		}
	}
	return false
}

func judgePython(s *judge.Script, c *judge.Command) {
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "-c":
			if i+1 < len(c.Args) {
				inlineCode(s, c, c.Args[i+1])
			}
			return
		case a == "-m":
			if i+1 >= len(c.Args) {
				s.Allow(c.Name)
				return
			}
			mod := c.Args[i+1]
			rest := append([]string{mod}, c.Args[i+2:]...)
			switch mod {
			case "pip":
				judgePip(s, c, i+2)
			case "http.server", "SimpleHTTPServer":
				httpServer(s, c, rest)
			case "smtpd", "ftplib", "telnetlib", "pyftpdlib":
				s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` runs a network service or client")
			default:
				if s.V.K.List("routine_python_modules").Has(mod) {
					s.Allow(c.Name + " -m " + mod)
					return
				}
				s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` runs the Python module "+mod)
			}
			return
		case a == "-W" || a == "-X" || a == "-Q":
			i++
		case a == "--version" || a == "-V" || a == "--help" || a == "-h":
			s.Allow(c.Name)
			return
		case strings.HasPrefix(a, "-"):
		default:
			if judge.ShortBase(a) == "manage.py" {
				judgeManage(s, &judge.Command{Sc: c.Sc, Name: "manage.py", Args: c.Args[i:], Known: c.Known[i:], Text: c.Text, Cwd: c.Cwd})
				return
			}
			runsFile(s, c, a)
			return
		}
	}
	s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` starts an interactive Python")
}

// httpServer judges python -m http.server: serving the workspace on
// loopback is routine; on every interface it exposes files; serving the
// home directory or / that way exposes keys.
func httpServer(s *judge.Script, c *judge.Command, rest []string) {
	bind := shell.OptValues(rest, "-b", "bind")
	dirs := shell.OptValues(rest, "-d", "directory")
	dir := "."
	if len(dirs) > 0 {
		dir = dirs[0]
	}
	pl := s.Where(dir, c.Cwd)
	loopback := false
	for _, b := range bind {
		if network.Local(b) && b != "0.0.0.0" {
			loopback = true
		}
	}
	if loopback {
		s.Allow("serves files on loopback")
		return
	}
	if b := s.BroadPath(pl); b != "" || pl.Zone == judge.ZHome && pl.Abs == s.Home {
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` serves "+dir+" (keys and credentials included) to the network")
		return
	}
	s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` serves files on every network interface")
}

func judgePip(s *judge.Script, c *judge.Command, from int) {
	args := append([]string{c.Name}, c.Args[from:]...)
	i, ok := subcommand(s, args, "pip", "--index-url", "-i", "--proxy", "--cert", "--python")
	if !ok {
		return
	}
	rest := args[i:]
	switch v := rest[0]; v {
	case "install", "download", "wheel":
		pipInstall(s, c, rest, s.V.K.List("popular_python"), "Python package")
	case "list", "show", "freeze", "check", "help", "search", "inspect", "index", "hash", "debug", "cache", "completion":
		s.Allow("pip " + v)
	case "uninstall":
		s.Allow("pip uninstall")
	case "config":
		if len(rest) > 1 && (rest[1] == "list" || rest[1] == "get" || rest[1] == "debug") {
			s.Allow("pip config")
			return
		}
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes pip's configuration")
	default:
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"`: pip "+v+" is not a subcommand the first pass knows")
	}
}

// pipInstall judges pip install: manifests and local paths are routine,
// package sources other than PyPI over HTTPS are passed on.
func pipInstall(s *judge.Script, c *judge.Command, rest []string, popular *wordset.Set, what string) {
	for _, u := range append(shell.OptValues(rest, "-i", "index-url"), shell.OptValues(rest, "", "extra-index-url")...) {
		switch {
		case strings.HasPrefix(u, "http://"):
			s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` installs from an index over plain HTTP ("+u+")")
		case !strings.HasPrefix(u, "https://pypi.org/"):
			s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` installs from the index "+u)
		}
	}
	if shell.HasLong(rest, "trusted-host") {
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` skips TLS verification for a package host (--trusted-host)")
	}
	for _, r := range append(shell.OptValues(rest, "-r", "requirement"), shell.OptValues(rest, "-c", "constraint")...) {
		if strings.Contains(r, "://") {
			// Requirements fetched at install time: not the project's
			// declared dependencies.
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` installs what a remote requirements file ("+r+") lists")
			continue
		}
		s.Read(c, r, false)
	}
	specs := shell.Operands(rest, "rcieftb", "requirement", "constraint", "index-url", "extra-index-url", "find-links",
		"target", "build", "src", "root", "prefix", "trusted-host", "proxy", "cert", "client-cert", "platform",
		"python-version", "implementation", "abi", "upgrade-strategy", "progress-bar", "editable", "config-settings", "only-binary", "no-binary", "report", "python")
	if len(specs) > 0 && specs[0] == rest[0] {
		specs = specs[1:]
	}
	if len(specs) == 0 {
		s.Allow("installs the project's dependencies")
		return
	}
	packages(s, c, specs, popular, what)
}

func judgeUv(s *judge.Script, c *judge.Command) {
	if len(c.Args) < 2 {
		s.Allow("uv")
		return
	}
	switch v := c.Args[1]; v {
	case "pip":
		if len(c.Args) > 2 && c.Args[2] == "install" {
			pipInstall(s, c, c.Args[2:], s.V.K.List("popular_python"), "Python package")
			return
		}
		s.Allow("uv pip")
	case "add":
		packages(s, c, shell.Operands(c.Args[1:], "", "group", "optional", "extra", "index", "python", "package"), s.V.K.List("popular_python"), "Python package")
	case "publish":
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes a package")
	case "tool":
		if len(c.Args) > 3 && (c.Args[2] == "install" || c.Args[2] == "run") {
			packages(s, c, c.Args[3:4], s.V.K.List("popular_python"), "Python tool")
			return
		}
		s.Allow("uv tool")
	default:
		s.Allow("uv " + v)
	}
}

func judgePoetry(s *judge.Script, c *judge.Command) {
	if len(c.Args) < 2 {
		s.Allow(c.Name)
		return
	}
	switch v := c.Args[1]; v {
	case "add":
		packages(s, c, shell.Operands(c.Args[1:], "GE", "group", "extras", "source", "python", "platform"), s.V.K.List("popular_python"), "Python package")
	case "publish", "upload":
		s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes a package")
	case "config", "source":
		s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` changes package sources or settings")
	case "run":
		s.Allow(c.Name + " run")
	default:
		s.Allow(c.Name + " " + v)
	}
}

func judgePipx(s *judge.Script, c *judge.Command) {
	if len(c.Args) > 2 && (c.Args[1] == "install" || c.Args[1] == "run") {
		packages(s, c, c.Args[2:3], s.V.K.List("popular_python"), "Python tool")
		return
	}
	s.Allow("pipx")
}

func judgeGem(s *judge.Script, c *judge.Command) {
	if len(c.Args) > 1 && c.Args[1] == "install" {
		packages(s, c, shell.Operands(c.Args[1:], "v", "version", "source"), s.V.K.List("popular_gems"), "gem")
		return
	}
	escOrAllow(s, c, len(c.Args) > 1 && (c.Args[1] == "push" || c.Args[1] == "signin" || c.Args[1] == "owner" || c.Args[1] == "yank"),
		vocab.Exfiltration, judge.Medium, "publishes to or changes RubyGems", "gem")
}

func judgeManage(s *judge.Script, c *judge.Command) {
	if len(c.Args) < 2 {
		s.Allow("manage.py")
		return
	}
	switch v := c.Args[1]; v {
	case "flush", "reset_db", "sqlflush", "dbshell", "drop_test_database", "reset_schema":
		s.Esc(vocab.Destructive, judge.Medium, "`"+c.Text+"` empties or opens the database")
	case "createsuperuser", "changepassword":
		s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` manages accounts")
	case "shell", "shell_plus":
		s.Esc(vocab.Routine, judge.Low, "`"+c.Text+"` opens an interactive shell")
	case "runserver":
		for _, a := range c.Args[2:] {
			if strings.HasPrefix(a, "0.0.0.0") || strings.HasPrefix(a, "[::]") {
				s.Esc(vocab.Exfiltration, judge.Low, "`"+c.Text+"` serves on every network interface")
				return
			}
		}
		s.Allow("manage.py runserver")
	default:
		s.Allow("manage.py " + v)
	}
}

func judgeAlembic(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasWord(c.Args, "downgrade", "stamp"),
		vocab.Destructive, judge.Medium, "rolls database migrations back", "alembic")
}

func judgeRustup(s *judge.Script, c *judge.Command) {
	escOrAllow(s, c, shell.HasWord(c.Args, "self") && shell.HasWord(c.Args, "uninstall"),
		vocab.Destructive, judge.Medium, "uninstalls the Rust toolchain", "rustup")
}

// judgeBuildTool judges make and its kin by the targets they are asked to
// run.
func judgeBuildTool(s *judge.Script, c *judge.Command) {
	args := c.Args
	var targets []string
	skipNext := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if skipNext {
			skipNext = false
			continue
		}
		switch {
		case a == "-C" || a == "-f" || a == "--file" || a == "--directory" || a == "-j" && i+1 < len(args) && strings.Trim(args[i+1], "0123456789") == "" ||
			a == "-p" || a == "--project" || a == "-c" || a == "--configuration" || a == "-P" || a == "-D" && c.Name != "mvn" ||
			a == "--settings" || a == "-s" && c.Name == "mvn" || a == "-o" && c.Name == "make" || a == "--filter" || a == "-t" && c.Name == "dotnet" || a == "--framework" ||
			(c.Name == "mvn" || c.Name == "mvnw") && (a == "-pl" || a == "--projects" || a == "-rf" || a == "--resume-from" || a == "-T" ||
				a == "--threads" || a == "-l" || a == "--log-file" || a == "-gs" || a == "--global-settings" || a == "-b" || a == "--builder"):
			skipNext = true
		case strings.HasPrefix(a, "-"):
		case judge.IsAssignWord(a):
		default:
			targets = append(targets, a)
		}
	}
	tool := c.Name
	switch c.Name {
	case "dotnet":
		if len(targets) > 0 {
			switch targets[0] {
			case "nuget":
				if shell.HasWord(args, "push", "delete") {
					s.Esc(vocab.Exfiltration, judge.Medium, "`"+c.Text+"` publishes a package")
					return
				}
			case "add":
				s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` adds a package")
				return
			}
			targets = targets[:1]
		}
	case "flutter", "dart", "swift", "stack", "cabal", "mix", "bundle", "composer", "lein":
		if len(targets) > 1 && (targets[0] == "run" || targets[0] == "script") && strings.Contains(targets[1], ".") {
			// dart run x.dart, swift run, mix run x.exs: a file's code.
			runsFile(s, c, targets[1])
			return
		}
		if len(targets) > 0 {
			switch targets[0] {
			case "pub", "deps.get", "install", "get", "fetch", "update", "resolve":
				s.Allow(c.Name + " " + targets[0])
				return
			case "require", "add":
				s.Esc(vocab.SecurityWeakening, judge.Low, "`"+c.Text+"` adds a package")
				return
			case "exec":
				if len(targets) > 1 {
					t := targets[1]
					if isDevToolName(s, t) || t == "rails" || t == "rake" || t == "rspec" || t == "rubocop" || rubySiteTools[t] {
						s.Allow(c.Name + " exec " + t)
						return
					}
				}
			}
			targets = targets[:1]
		}
	case "meson":
		if len(targets) > 0 {
			switch targets[0] {
			case "setup", "configure", "compile", "test", "introspect", "dist", "format", "fmt", "init", "wrap", "subprojects":
				// Configures, builds or tests the project in its build
				// directory (meson install is left to the targets below).
				s.Allow("meson " + targets[0])
				return
			}
		}
	case "bazel", "bazelisk":
		if len(targets) > 0 {
			switch targets[0] {
			case "build", "test", "coverage", "query", "cquery", "aquery", "info", "fetch", "clean", "sync", "version", "help", "mod":
				// Builds or tests labels of the workspace with its own
				// rules; bazel run runs a program and stays below.
				s.Allow("bazel " + targets[0])
				return
			}
		}
	case "xcodebuild":
		targets = nil
		for _, a := range args[1:] {
			if a == "build" || a == "test" || a == "clean" || a == "analyze" || a == "archive" {
				targets = append(targets, a)
			}
		}
		if len(targets) == 0 {
			s.Allow("xcodebuild")
			return
		}
	}
	if len(targets) == 0 {
		s.Allow(tool + " (default target)")
		return
	}
	for _, t := range targets {
		t = strings.TrimPrefix(t, ":")
		if i := strings.LastIndexAny(t, ":/"); i >= 0 && c.Name != "make" {
			t = t[i+1:]
		}
		before := s.V.Worst.Rank()
		target(s, c, tool, t)
		if s.V.Worst.Rank() > before && s.V.Worst.Dec != vocab.Allow {
			return
		}
	}
}

// rubySiteTools are the project's own Ruby tools that bundle exec runs to
// build a site, test or lint: the project's code, as rake or rspec.
var rubySiteTools = judge.Set("jekyll", "middleman", "bridgetown", "nanoc", "cucumber", "standardrb", "erblint", "erb_lint",
	"haml-lint", "slim-lint", "yard", "rdoc", "brakeman", "bundle-audit", "reek", "minitest")

// judgeServerConfigTest allows checking a web server's configuration;
// starting, stopping or reloading one is passed on.
func judgeServerConfigTest(s *judge.Script, c *judge.Command) {
	if shell.HasWord(c.Args, "-t", "-T", "-v", "-V", "configtest", "validate", "-c") && !shell.HasWord(c.Args, "-s", "start", "stop", "restart", "reload", "graceful", "run") ||
		c.Name == "caddy" && len(c.Args) > 1 && (c.Args[1] == "validate" || c.Args[1] == "fmt" || c.Args[1] == "version") {
		if shell.HasWord(c.Args, "-t", "-T", "-v", "-V", "configtest", "validate") || c.Name == "caddy" {
			s.Allow(c.Name + " checks its configuration")
			return
		}
	}
	s.Esc(vocab.Routine, judge.Medium, "`"+c.Text+"` starts, stops or reloads a server")
}
