package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// The judges of this file, by the name programs.yaml gives them (judge:).
var _ = registerJudges(map[string]func(*sh, *cmd){
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

func judgeDevTool(s *sh, c *cmd) {
	if (c.name == "kotlinc" || c.name == "kotlin") && shell.HasWord(c.args, "-script") {
		// kotlinc -script x.kts runs the script, not a build.
		for _, op := range shell.Operands(c.args, "") {
			if extOf(op) == "kts" || extOf(op) == "kt" {
				s.runsFile(c, op)
				return
			}
		}
	}
	switch c.name {
	case "trivy", "grype", "syft", "gitleaks", "semgrep", "trufflehog":
		// Scanners print what they find; gitleaks without --redact
		// prints the secrets it finds.
		if c.name == "gitleaks" && !shell.HasLong(c.args, "redact") && !shell.HasWord(c.args, "protect") {
			s.esc(vocab.CredentialProbing, low, "`"+c.text+"` may print the secrets it finds (no --redact)")
		}
	case "migrate", "goose", "dbmate", "atlas":
		if shell.HasWord(c.args, "down", "drop", "reset", "force", "redo") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` rolls back or drops database migrations")
			return
		}
	case "prisma":
		if shell.HasWord(c.args, "reset") || shell.HasLong(c.args, "force-reset", "accept-data-loss") {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` resets a database")
			return
		}
	case "ab", "hey", "wrk", "k6":
		for _, a := range c.args[1:] {
			if strings.Contains(a, "://") && !network.LocalURL(a) {
				s.esc(vocab.Routine, medium, "`"+c.text+"` sends load to a remote host")
				return
			}
		}
	case "java":
		for i := 1; i < len(c.args); i++ {
			a := c.args[i]
			switch {
			case strings.HasPrefix(a, "-javaagent") || strings.HasPrefix(a, "-agentpath"):
				s.esc(vocab.Routine, medium, "`"+c.text+"` loads an agent into the JVM")
			case a == "-cp" || a == "-classpath" || a == "--class-path" || a == "-p" || a == "--module-path":
				i++
			case a == "-jar" || a == "-m" || a == "--module" || !strings.HasPrefix(a, "-"):
				// A class, a jar or a source file: code the request
				// does not show, like python f.py.
				s.esc(vocab.Routine, medium, "`"+c.text+"` runs Java code whose text is not in the request")
				i = len(c.args)
			}
		}
	case "uvicorn", "gunicorn", "hypercorn", "flask", "jupyter":
		for _, h := range append(shell.OptValues(c.args, "", "host"), shell.OptValues(c.args, "-b", "bind", "ip")...) {
			if strings.HasPrefix(h, "0.0.0.0") || h == "::" || strings.HasPrefix(h, "[::]") {
				s.esc(vocab.Exfiltration, medium, "`"+c.text+"` serves on every network interface")
			}
		}
	}
	for _, o := range shell.OptValues(c.args, "-o", "output", "out", "outfile", "out-file") {
		s.write(c, s.where(o, c.cwd), "")
	}
	s.allow(c.name)
}

// Git.

var sharedBranch = pattern.Lazy(`^(refs/heads/)?(main|master|trunk|develop|development|dev|release.*|production|prod|staging|stable|gh-pages|HEAD)$`)

func judgeGit(s *sh, c *cmd) {
	args := c.args
	i := command.Subcommand(args)
	for _, kv := range command.GitConfigs(args) {
		s.gitConfig(c, []string{kv}, false)
	}
	if i >= len(args) {
		s.allow("git")
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
		if s.urlsCarry(c, urls, hosts) {
			return
		}
	}
	p, _ := command.Parse(args)
	// Options that write the output to a file are writes there.
	for _, o := range append(p.Values("output"), p.Values("output-directory")...) {
		s.write(c, s.where(o, c.cwd), "")
	}
	does := p.Does()
	switch sub {
	case "status", "diff", "log", "show", "blame", "annotate", "rev-parse", "rev-list", "ls-files", "ls-tree",
		"cat-file", "describe", "shortlog", "merge-base", "show-ref", "count-objects", "version", "whatchanged",
		"diff-tree", "diff-files", "diff-index", "for-each-ref", "name-rev", "check-ignore", "grep", "help",
		"var", "cherry", "range-diff", "fsck", "verify-commit", "verify-tag", "check-attr", "check-ref-format",
		"ls-remote", "bugreport":
		s.allow("git " + sub)
	case "add", "mv", "init", "clone", "fetch", "pull", "merge", "rebase", "cherry-pick", "revert", "switch", "bisect",
		"apply", "am", "format-patch", "submodule", "lfs", "gc", "prune", "worktree", "notes", "commit-graph",
		"maintenance", "sparse-checkout", "archive", "bundle", "request-pull", "mergetool", "difftool":
		if s.escalated && (sub == "init" || sub == "clone" || sub == "worktree" || sub == "submodule") {
			// Outside the sandbox, a .git it creates is not found and moved
			// away afterwards, as one made in the sandbox is (G15): a
			// repository whose hooks and configuration the agent chose.
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` creates a repository (.git) outside the sandbox")
			return
		}
		if does&command.RemovesWorktree != 0 {
			s.esc(vocab.Destructive, medium, "`"+c.text+"` removes a worktree with its changes")
			return
		}
		s.allow("git " + sub)
	case "rm":
		if shell.HasLong(rest, "cached") {
			s.allow("git rm --cached")
			return
		}
		for _, p := range shell.Operands(rest, "") {
			s.remove(c, p, shell.HasShort(rest, 'r', ""))
		}
		s.allow("git rm")
	case "commit":
		if shell.HasLong(rest, "no-verify") || shell.HasShort(rest, 'n', "mFCcSt") {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` skips the commit hooks (--no-verify), which may scan for secrets")
			return
		}
		s.allow("git commit")
	case "checkout", "restore", "reset", "clean", "branch", "tag", "stash", "reflog":
		for _, v := range gitEffectVerdicts {
			if v.sub == sub && does&v.effect != 0 {
				s.esc(vocab.Destructive, v.risk, "`"+c.text+"` "+v.what)
				return
			}
		}
		s.allow("git " + sub)
	case "remote":
		if len(rest) > 1 && (rest[1] == "remove" || rest[1] == "rm" || rest[1] == "set-url") {
			s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` changes where the repository pushes")
			return
		}
		s.allow("git remote")
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
			if s.gitConfig(c, kv, global) {
				return
			}
		}
		if shell.HasLong(rest, "edit") || shell.HasShort(rest, 'e', "f") {
			s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` edits the git configuration")
			return
		}
		if global && len(ops) >= 2 {
			key := strings.ToLower(ops[0])
			if !strings.HasPrefix(key, "user.") && !strings.HasPrefix(key, "color.") && !strings.HasPrefix(key, "init.") &&
				!strings.HasPrefix(key, "pull.") && !strings.HasPrefix(key, "push.") && !strings.HasPrefix(key, "alias.") &&
				!strings.HasPrefix(key, "core.autocrlf") && !strings.HasPrefix(key, "rebase.") && !strings.HasPrefix(key, "merge.") {
				s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` changes the user's global git configuration")
				return
			}
		}
		s.allow("git config")
	case "push":
		s.gitPush(c, rest, does)
	case "filter-branch", "filter-repo", "replace", "update-ref", "symbolic-ref", "commit-tree", "hash-object",
		"update-index", "read-tree", "write-tree", "pack-refs", "prune-packed", "repack":
		if sub == "update-ref" && does&command.DeletesRef == 0 {
			s.esc(vocab.Destructive, low, "`"+c.text+"` rewrites a ref")
			return
		}
		if sub == "hash-object" && !shell.HasShort(rest, 'w', "") || sub == "repack" || sub == "pack-refs" {
			s.allow("git " + sub)
			return
		}
		s.esc(vocab.Destructive, medium, "`"+c.text+"` rewrites history or refs")
	case "credential", "credential-store", "credential-cache":
		if shell.HasWord(rest, "fill", "get") {
			s.deny(vocab.CredentialProbing, "`"+c.text+"` prints stored git credentials")
			return
		}
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` manages stored git credentials")
	case "send-email", "daemon", "instaweb", "http-backend", "shell", "upload-pack", "receive-pack":
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` sends or serves the repository")
	default:
		s.esc(vocab.Routine, low, "`"+c.text+"`: git "+sub+" is not a subcommand the first pass knows")
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
	{"checkout", command.DiscardsChanges, medium, "discards uncommitted changes (--force)"},
	{"checkout", command.DiscardsAllChanges, medium, "discards every uncommitted change"},
	{"restore", command.DiscardsAllChanges, medium, "discards every uncommitted change"},
	{"reset", command.DiscardsChanges | command.MayDiscardChanges, medium, "discards uncommitted changes (--hard)"},
	{"clean", command.DeletesIgnored, medium, "deletes untracked and ignored files (.env and local data included)"},
	{"clean", command.DeletesUntracked, medium, "deletes untracked files"},
	{"branch", command.DeletesUnmergedBranch, medium, "deletes a branch that may not be merged"},
	{"tag", command.DeletesOrMovesTag, low, "deletes or moves a tag"},
	{"stash", command.DiscardsStash, medium, "discards stashed changes"},
	{"reflog", command.DropsRecoveryPoints, high, "drops recovery points"},
}

// gitConfig judges configuration settings "key=value" (or "key value"
// split by the caller); it reports whether it found something.
func (s *sh) gitConfig(c *cmd, kvs []string, global bool) bool {
	found := false
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.ToLower(k)
		v = strings.ToLower(strings.TrimSpace(v))
		switch {
		case k == "http.sslverify" && (v == "false" || v == "0" || v == "no" || v == "off"):
			if global {
				s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns TLS verification off for every git repository")
			} else {
				s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` turns TLS verification off")
			}
			found = true
		case command.GitConfigRunsCommand(k) && (!strings.HasPrefix(k, "alias.") || strings.HasPrefix(v, "!")):
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` sets "+k+", which runs commands")
			found = true
		case k == "commit.gpgsign" && v == "false" || k == "transfer.fsckobjects" && v == "false":
			s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` turns a git safety check off")
			found = true
		}
	}
	return found
}

func (s *sh) gitPush(c *cmd, rest []string, does command.Effect) {
	force := does&command.ForcePush != 0
	del := does&command.DeletesRemoteRef != 0
	ops := shell.Operands(rest, "o", "push-option", "repo", "receive-pack", "exec")
	if does&command.PushesEverything != 0 {
		s.esc(vocab.Destructive, low, "`"+c.text+"` pushes every branch or tag")
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
		if sharedBranch.MatchString(dst) || strings.HasPrefix(dst, "refs/tags") || strings.HasPrefix(dst, "v") && len(dst) > 1 && dst[1] >= '0' && dst[1] <= '9' {
			shared = true
		}
		if strings.Contains(r, "$") {
			shared = true
		}
	}
	switch {
	case del:
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes a remote branch or tag")
	case force && shared:
		s.esc(vocab.Destructive, high, "`"+c.text+"` rewrites the history of a shared branch (force push)")
	case force:
		s.esc(vocab.Destructive, medium, "`"+c.text+"` rewrites remote history (force push)")
	case shared && len(refs) == 0:
		s.esc(vocab.Routine, low, "`"+c.text+"` pushes the current branch, which may be shared")
	case shared:
		s.esc(vocab.Routine, low, "`"+c.text+"` pushes to a shared branch or a release tag")
	default:
		s.allow("git push to a feature branch")
	}
}

// GitHub CLI.

func judgeGh(s *sh, c *cmd) {
	i := sub(c.args, "-R", "--repo", "--hostname")
	if i >= len(c.args) {
		s.allow("gh")
		return
	}
	group := c.args[i]
	verb := ""
	if i+1 < len(c.args) {
		verb = c.args[i+1]
	}
	switch group {
	case "auth":
		switch verb {
		case "status":
			if shell.HasShort(c.args, 't', "h") || shell.HasLong(c.args, "show-token") {
				s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints the GitHub token")
				return
			}
			s.allow("gh auth status")
		case "token":
			c.out, c.outWhat = secret.Critical, "the GitHub token"
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` prints the GitHub token")
		default:
			s.esc(vocab.CredentialProbing, low, "`"+c.text+"` changes the GitHub login")
		}
		return
	case "api":
		if len(shell.OptValues(c.args, "-X", "method")) > 0 || len(shell.OptValues(c.args, "-f", "raw-field")) > 0 ||
			len(shell.OptValues(c.args, "-F", "field")) > 0 || shell.HasLong(c.args, "input") {
			for _, m := range shell.OptValues(c.args, "-X", "method") {
				if strings.EqualFold(m, "GET") {
					s.allow("gh api GET")
					return
				}
			}
			s.esc(vocab.Routine, medium, "`"+c.text+"` changes something through the GitHub API")
			return
		}
		s.allow("gh api")
		return
	case "secret", "ssh-key", "gpg-key", "variable":
		if verb == "list" {
			s.allow("gh " + group + " list")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes "+group+"s")
		return
	case "repo":
		switch verb {
		case "view", "list", "clone", "fork", "sync":
			s.allow("gh repo " + verb)
			return
		case "delete", "archive":
			s.esc(vocab.Destructive, high, "`"+c.text+"` deletes or archives a repository")
			return
		case "edit":
			if shell.HasLong(c.args, "visibility") {
				s.esc(vocab.Exfiltration, high, "`"+c.text+"` changes a repository's visibility")
				return
			}
		}
		s.esc(vocab.Routine, medium, "`"+c.text+"` changes a repository")
		return
	case "extension", "alias":
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` installs or defines commands")
		return
	}
	switch verb {
	case "list", "view", "status", "diff", "checks", "watch", "download", "checkout", "search", "browse", "ls":
		s.allow("gh " + group + " " + verb)
	case "create":
		if group == "pr" {
			s.allow("gh pr create")
			return
		}
		s.esc(vocab.Routine, low, "`"+c.text+"` creates a GitHub "+group)
	case "delete":
		s.esc(vocab.Destructive, medium, "`"+c.text+"` deletes a GitHub "+group)
	case "merge":
		if shell.HasLong(c.args, "admin") {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` merges past branch protection (--admin)")
			return
		}
		s.esc(vocab.Routine, low, "`"+c.text+"` merges a pull request")
	default:
		s.esc(vocab.Routine, low, "`"+c.text+"` changes GitHub state (gh "+group+" "+verb+")")
	}
}

// Go, Rust, JavaScript, Python.

func judgeGo(s *sh, c *cmd) {
	if len(c.args) < 2 {
		s.allow("go")
		return
	}
	switch c.args[1] {
	case "env":
		if shell.HasShort(c.args, 'w', "") {
			for _, a := range c.args[2:] {
				name, val, _ := strings.Cut(a, "=")
				if r := tlsOffVar(name, val); r != "" || name == "GOINSECURE" || name == "GOPROXY" && strings.Contains(val, "http://") {
					s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` weakens module verification for good")
					return
				}
			}
		}
	case "run", "test", "build", "install", "generate", "vet", "list":
		for _, a := range c.args[2:] {
			if strings.HasPrefix(a, "-toolexec") || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "--toolexec") {
				s.esc(vocab.Routine, low, "`"+c.text+"` runs a tool around the build")
			}
		}
		for _, o := range shell.OptValues(c.args, "-o", "") {
			s.write(c, s.where(o, c.cwd), "")
		}
		if c.args[1] == "run" || c.args[1] == "install" {
			// go run/install MODULE@VERSION fetches code the project
			// does not declare and builds (and runs) it.
			for _, a := range shell.Operands(c.args[1:], "o", "exec", "toolexec", "tags", "ldflags", "gcflags", "mod", "modfile", "C", "p") {
				if strings.HasSuffix(a, ".go") || strings.ContainsAny(a, "$`") {
					// go run FILE.go: source outside the project, or
					// written by this very script, is code the request
					// does not show the effect of.
					if pl := s.where(a, c.cwd); pl.zone != zWork || s.wroteFile(pl.abs) {
						s.esc(vocab.Routine, medium, "`"+c.text+"` builds and runs "+a+", source that is not the project's")
					}
				}
				if mod, _, ok := strings.Cut(a, "@"); ok && !knownGoModule(mod) {
					s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` fetches and builds "+mod+", which the project does not declare")
				}
			}
		}
	}
	s.allow("go " + c.args[1])
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

func judgeCargo(s *sh, c *cmd) {
	i := sub(c.args, "--manifest-path", "-Z", "--config", "--color")
	if i >= len(c.args) {
		s.allow("cargo")
		return
	}
	switch v := c.args[i]; v {
	case "publish", "login", "logout", "owner", "yank":
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes to or changes the crates registry")
	case "add", "install":
		if shell.HasLong(c.args, "git", "path", "index", "registry") {
			if shell.HasLong(c.args, "path") {
				s.allow("cargo " + v + " from a path")
				return
			}
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` installs a crate from outside crates.io")
			return
		}
		s.packages(c, shell.Operands(c.args[i:], "FpjZ", "features", "package", "rename", "version", "vers", "target", "root", "bin", "example", "branch", "tag", "rev", "jobs"), s.v.k.List("popular_crates"), "crate")
	default:
		s.allow("cargo " + v)
	}
}

func judgeNpm(s *sh, c *cmd) {
	i := sub(c.args, "--prefix", "-w", "--workspace", "-C")
	if i >= len(c.args) {
		s.allow("npm")
		return
	}
	rest := c.args[i:]
	if r := shell.OptValues(c.args, "", "registry"); len(r) > 0 {
		for _, u := range r {
			if !strings.HasPrefix(u, "https://registry.npmjs.org") && !strings.HasPrefix(u, "https://registry.yarnpkg.com") {
				s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` uses the registry "+u)
			}
		}
	}
	switch v := rest[0]; v {
	case "ci", "test", "t", "tst", "outdated", "ls", "list", "ll", "la", "audit", "view", "info", "show", "v",
		"pack", "whoami", "help", "doctor", "ping", "prune", "dedupe", "ddp", "rebuild", "rb", "link", "ln",
		"uninstall", "remove", "rm", "un", "unlink", "init", "create", "explain", "why", "fund", "query", "search", "find-dupes", "root", "bin", "prefix", "completion", "docs", "home", "bugs", "repo":
		s.allow("npm " + v)
	case "install", "i", "add", "isntall", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "update", "up", "upgrade":
		pkgs := shell.Operands(rest, "w", "workspace", "prefix", "tag", "registry", "omit", "include")
		if shell.HasShort(rest, 'g', "") || shell.HasLong(rest, "global") {
			s.packages(c, pkgs, s.v.k.List("popular_npm"), "global npm package")
			return
		}
		s.packages(c, pkgs, s.v.k.List("popular_npm"), "npm package")
	case "run", "run-script", "rum", "urn":
		if len(rest) < 2 {
			s.allow("npm run")
			return
		}
		s.target(c, "npm run", rest[1])
	case "start", "stop", "restart":
		s.allow("npm " + v)
	case "exec", "x":
		s.npx(c, rest[1:])
	case "publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "team", "org", "adduser", "login", "logout", "token", "star", "hook":
		if v == "token" || v == "login" || v == "adduser" {
			s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` manages npm credentials")
			return
		}
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes to or changes the npm registry")
	case "version":
		s.allow("npm version")
	case "config", "c", "set", "get":
		if len(rest) > 1 && (rest[1] == "get" || rest[1] == "list" || rest[1] == "ls") || v == "get" {
			s.allow("npm config get")
			return
		}
		kv := strings.Join(rest[1:], " ")
		if strings.Contains(kv, "strict-ssl") && (strings.Contains(kv, "false") || strings.Contains(kv, "0")) {
			s.deny(vocab.SecurityWeakening, "`"+c.text+"` turns TLS verification off for npm for good")
			return
		}
		if strings.Contains(kv, "script-shell") || strings.Contains(kv, "shell") || strings.Contains(kv, "node-options") ||
			strings.Contains(kv, "git ") || strings.Contains(kv, "git=") || strings.Contains(kv, "editor") || strings.Contains(kv, "browser") {
			s.esc(vocab.Routine, medium, "`"+c.text+"` chooses a program npm runs")
			return
		}
		if strings.Contains(kv, "registry") || strings.Contains(kv, "_auth") || strings.Contains(kv, "ignore-scripts") {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes npm's registry or credentials")
			return
		}
		s.allow("npm config")
	case "cache":
		s.allow("npm cache")
	default:
		s.esc(vocab.Routine, low, "`"+c.text+"`: npm "+v+" is not a subcommand the first pass knows")
	}
}

func judgeNpx(s *sh, c *cmd) { s.npx(c, c.args[1:]) }

// npx runs a package's program, downloading the package when it is not
// installed: well-known development tools are routine.
func (s *sh) npx(c *cmd, rest []string) {
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		if rest[0] == "-p" || rest[0] == "--package" || rest[0] == "-c" || rest[0] == "--call" {
			if len(rest) > 1 {
				if rest[0] == "-c" || rest[0] == "--call" {
					s.esc(vocab.Routine, low, "`"+c.text+"` runs a command string")
					return
				}
				rest = rest[1:]
			}
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		s.allow("npx")
		return
	}
	name := pkgName(rest[0])
	for _, a := range rest[1:] {
		switch a {
		case "upload", "publish", "deploy", "release", "push":
			s.esc(vocab.Exfiltration, low, "`"+c.text+"` runs "+name+" "+a)
			return
		}
	}
	if s.v.k.List("popular_npm")[name] || s.isDevToolName(name) {
		s.allow("npx " + name)
		return
	}
	s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` downloads and runs the npm package "+name)
}

// isDevToolName reports whether n names a development tool: a program the
// programs file judges as a dev_tool, or one of its npx_tools.
func (s *sh) isDevToolName(n string) bool {
	if p := s.v.k.prog(n); p != nil && p.judgeName == "dev_tool" {
		return true
	}
	return s.v.k.List("npx_tools")[n]
}

func judgeYarn(s *sh, c *cmd) {
	i := sub(c.args, "--cwd", "--filter", "-F", "-C", "--dir", "--prefix")
	if i >= len(c.args) {
		s.allow(c.name + " install")
		return
	}
	rest := c.args[i:]
	switch v := rest[0]; v {
	case "install", "i", "ci", "test", "t", "build", "lint", "outdated", "list", "ls", "why", "info", "audit",
		"remove", "rm", "uninstall", "dedupe", "prune", "licenses", "check", "init", "create", "start", "dev", "bin", "config", "store", "cache", "workspaces", "recursive", "-r":
		if v == "create" {
			s.esc(vocab.Routine, low, "`"+c.text+"` downloads and runs a project generator")
			return
		}
		s.allow(c.name + " " + v)
	case "add", "upgrade", "up", "update":
		s.packages(c, shell.Operands(rest, "", "filter"), s.v.k.List("popular_npm"), c.name+" package")
	case "run", "run-script":
		if len(rest) < 2 {
			s.allow(c.name + " run")
			return
		}
		s.target(c, c.name+" run", rest[1])
	case "dlx", "exec", "x":
		s.npx(c, rest[1:])
	case "publish", "npm", "login", "logout":
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes to or logs in to a registry")
	default:
		// yarn SCRIPT runs a package.json script.
		s.target(c, c.name, v)
	}
}

// target judges running a named target or script of the project (make
// test, npm run build): names that say they build, test, check or format
// are routine; names that deploy, publish, reset or tear down are passed
// on, as are names that say nothing.
func (s *sh) target(c *cmd, tool, name string) {
	ws := argument.Words(name)
	for _, w := range ws {
		if s.v.k.List("risky_target_words")[w] {
			s.esc(vocab.Destructive, low, "`"+c.text+"` runs the "+tool+" target "+name+", which may change shared state")
			return
		}
	}
	for _, w := range ws {
		if s.v.k.List("routine_target_words")[w] {
			s.allow(tool + " " + name)
			return
		}
	}
	s.esc(vocab.Routine, low, "`"+c.text+"` runs the "+tool+" target "+name+", whose recipe the first pass does not read")
}

var (
	pkgVersion = pattern.Lazy(`(\[[^\]]*\])?\s*([=<>!~^]=?|@).*$`)
)

// pkgName strips a package spec down to its name: versions, extras and
// quotes (requests==2.3, 'pkg[extra]>=1', lodash@^4, @scope/pkg@1).
func pkgName(spec string) string {
	spec = strings.Trim(spec, `"' `)
	scoped := strings.HasPrefix(spec, "@")
	if scoped {
		spec = spec[1:]
	}
	spec = pkgVersion.ReplaceAllString(spec, "")
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
func (s *sh) packages(c *cmd, specs []string, popular map[string]bool, what string) {
	if len(specs) == 0 {
		s.allow("installs the project's dependencies")
		return
	}
	for _, sp := range specs {
		if sp == "" || sp == "." || strings.HasPrefix(sp, "./") || strings.HasPrefix(sp, "../") || strings.HasPrefix(sp, "file:") {
			continue
		}
		if strings.Contains(sp, "://") || strings.HasPrefix(sp, "git+") || strings.HasPrefix(sp, "github:") ||
			strings.HasPrefix(sp, "git@") || strings.Contains(sp, ".tgz") || strings.HasSuffix(sp, ".whl") ||
			strings.HasSuffix(sp, ".tar.gz") || strings.Count(sp, "/") == 1 && !strings.HasPrefix(sp, "@") && what != "crate" {
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` installs a "+what+" from outside the registry ("+sp+")")
			continue
		}
		name := pkgName(sp)
		if popular[name] {
			continue
		}
		if near := nearPopular(name, popular); near != "" {
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` installs the "+what+" "+name+", one typo away from "+near+" (possible typosquat)")
			continue
		}
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` installs the "+what+" "+name+", which the first pass does not know")
	}
	s.allow("installs well-known packages")
}

// nearPopular returns a well-known name within edit distance 2 of name
// (1 for short names), "" when there is none.
func nearPopular(name string, popular map[string]bool) string {
	if len(name) < 4 {
		return ""
	}
	limit := 2
	if len(name) < 7 {
		limit = 1
	}
	for p := range popular {
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

func judgeNode(s *sh, c *cmd) {
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-e" || a == "--eval" || a == "-p" || a == "--print":
			if i+1 < len(c.args) {
				s.inlineCode(c, c.args[i+1])
			}
			s.allow(c.name)
			return
		case a == "--version" || a == "-v" || a == "--help" || a == "-h":
			s.allow(c.name)
			return
		case a == "-r" || a == "--require" || a == "--import" || a == "--loader":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if c.name == "deno" && (a == "fmt" || a == "lint" || a == "check" || a == "doc" || a == "info") {
				// Formats, lints or type-checks files; runs none of them.
				for _, op := range shell.Operands(c.args[i:], "") {
					if a == "fmt" && !shell.HasLong(c.args, "check") {
						s.write(c, s.where(op, c.cwd), "")
					} else {
						s.read(c, op, false)
					}
				}
				s.allow("deno " + a)
				return
			}
			if c.name == "deno" && (a == "test" || a == "bench") {
				// The project's tests or benchmarks, as go test: its
				// files are read, and run under deno's permissions.
				for _, op := range shell.Operands(c.args[i+1:], "") {
					s.read(c, op, false)
				}
				s.allow("deno " + a)
				return
			}
			if c.name == "deno" && (a == "run" || a == "task") {
				continue
			}
			s.runsFile(c, a)
			return
		}
	}
	s.esc(vocab.Routine, low, "`"+c.text+"` starts an interactive "+c.name)
}

// script judges running a script file with an interpreter.
func (s *sh) runsFile(c *cmd, file string) {
	if t := offensiveScript(file); t != "" {
		s.deny(vocab.CredentialProbing, "`"+c.text+"` runs "+t+", a credential dumping or attack tool")
		return
	}
	pl := s.where(file, c.cwd)
	switch pl.zone {
	case zWork:
		// Its code is not in the request: written or fetched in this run,
		// or the project's, it may do anything (SPEC G15).
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs "+file+", whose code is not in the request")
	default:
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs "+file+" from "+pl.zone.String())
	}
}

func judgeScriptInterp(s *sh, c *cmd) {
	if c.name == "osascript" {
		code := strings.Join(shell.OptValues(c.args, "-e", ""), "\n")
		low := strings.ToLower(code)
		if strings.Contains(low, "hidden answer") || strings.Contains(low, "password") && strings.Contains(low, "display dialog") {
			s.deny(vocab.CredentialProbing, "`"+c.text+"` shows a dialog asking for a password")
			return
		}
		s.esc(vocab.Routine, medium, "`"+c.text+"` controls other applications (AppleScript)")
		return
	}
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-e" || a == "-r" && c.name == "php" || a == "-c" || a == "-Command" || a == "-command" || a == "--eval":
			if i+1 < len(c.args) {
				s.inlineCode(c, c.args[i+1])
			}
			s.allow(c.name)
			return
		case a == "--version" || a == "-v" || a == "--help":
			s.allow(c.name)
			return
		case c.name == "php" && (a == "-l" || a == "--syntax-check"):
			s.allow("php checks syntax")
			return
		case strings.HasPrefix(a, "-"):
		default:
			s.runsFile(c, a)
			return
		}
	}
	s.esc(vocab.Routine, low, "`"+c.text+"` starts an interactive "+c.name)
}

func judgePerl(s *sh, c *cmd) {
	code := ""
	inPlace := false
	var ops []string
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "--":
			ops = append(ops, c.args[i+1:]...)
			i = len(c.args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'e', 'E':
					if j == len(a)-1 && i+1 < len(c.args) {
						code += "\n" + c.args[i+1]
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
			s.esc(vocab.Routine, low, "`"+c.text+"` reads a Perl program from input")
			return
		}
		s.runsFile(c, ops[0])
		return
	}
	s.inlineCode(c, code)
	if inPlace {
		s.inPlaceConfigEdit(c, []string{code}, ops)
	}
	for _, p := range ops {
		if inPlace {
			s.write(c, s.where(p, c.cwd), "")
		} else {
			s.read(c, p, true)
		}
	}
	s.allow("perl")
}

// inlineCode judges inline code of interpreters (python -c, perl -e,
// node -e) by its effects (see command.CodeEffects): a secret source sent
// to the network is exfiltration; the network, running commands, deleting
// or writing files are passed on; plain computation is routine.
func (s *sh) inlineCode(c *cmd, code string) {
	e := command.CodeEffects(command.Inline{Code: code, Known: true})
	net, secret := e.Net, e.Secret
	if !secret && s.codeNamesSecret(c, code) {
		// A path in the code's strings that names a secret
		// (open('~/.config/google-chrome/Local State')).
		secret = true
	}
	switch {
	case net && secret:
		s.deny(vocab.Exfiltration, "`"+c.text+"` sends secrets (the environment or credential files) over the network")
	case net:
		s.remoteSink = true
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` runs code that uses the network")
	case e.Exec:
		s.esc(vocab.Routine, medium, "`"+c.text+"` runs code that starts other programs")
	case e.Destroy:
		s.esc(vocab.Destructive, medium, "`"+c.text+"` runs code that deletes or changes files")
	case secret:
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` runs code that reads the environment or credential files")
	case e.Write:
		s.esc(vocab.Routine, low, "`"+c.text+"` runs code that writes files")
	default:
		if !s.strongInline(c, code) {
			s.allow(c.name + " computes")
		}
	}
}

// codeNamesSecret reports whether a string literal of inline code names a
// path that holds secrets.
func (s *sh) codeNamesSecret(c *cmd, code string) bool {
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
			if l, _ := s.secret(s.where(lit, c.cwd)); l > secret.None {
				return true
			}
		}
	}
	return false
}

func isPython(n string) bool {
	if n == "python" || n == "python2" || n == "python3" || n == "pypy" || n == "pypy3" || n == "py" {
		return true
	}
	if rest, ok := strings.CutPrefix(n, "python"); ok {
		return strings.Trim(rest, "0123456789.") == ""
	}
	return false
}

func judgePython(s *sh, c *cmd) {
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-c":
			if i+1 < len(c.args) {
				s.inlineCode(c, c.args[i+1])
			}
			return
		case a == "-m":
			if i+1 >= len(c.args) {
				s.allow(c.name)
				return
			}
			mod := c.args[i+1]
			rest := append([]string{mod}, c.args[i+2:]...)
			switch mod {
			case "pip":
				judgePip(s, c, i+2)
			case "http.server", "SimpleHTTPServer":
				s.httpServer(c, rest)
			case "smtpd", "ftplib", "telnetlib", "pyftpdlib":
				s.esc(vocab.Exfiltration, medium, "`"+c.text+"` runs a network service or client")
			default:
				if s.v.k.List("routine_python_modules")[mod] {
					s.allow(c.name + " -m " + mod)
					return
				}
				s.esc(vocab.Routine, low, "`"+c.text+"` runs the Python module "+mod)
			}
			return
		case a == "-W" || a == "-X" || a == "-Q":
			i++
		case a == "--version" || a == "-V" || a == "--help" || a == "-h":
			s.allow(c.name)
			return
		case strings.HasPrefix(a, "-"):
		default:
			if shortBase(a) == "manage.py" {
				judgeManage(s, &cmd{sc: c.sc, name: "manage.py", args: c.args[i:], known: c.known[i:], text: c.text, cwd: c.cwd})
				return
			}
			s.runsFile(c, a)
			return
		}
	}
	s.esc(vocab.Routine, low, "`"+c.text+"` starts an interactive Python")
}

// httpServer judges python -m http.server: serving the workspace on
// loopback is routine; on every interface it exposes files; serving the
// home directory or / that way exposes keys.
func (s *sh) httpServer(c *cmd, rest []string) {
	bind := shell.OptValues(rest, "-b", "bind")
	dirs := shell.OptValues(rest, "-d", "directory")
	dir := "."
	if len(dirs) > 0 {
		dir = dirs[0]
	}
	pl := s.where(dir, c.cwd)
	loopback := false
	for _, b := range bind {
		if network.Local(b) && b != "0.0.0.0" {
			loopback = true
		}
	}
	if loopback {
		s.allow("serves files on loopback")
		return
	}
	if b := s.broadPath(pl); b != "" || pl.zone == zHome && pl.abs == s.home {
		s.deny(vocab.Exfiltration, "`"+c.text+"` serves "+dir+" (keys and credentials included) to the network")
		return
	}
	s.esc(vocab.Exfiltration, medium, "`"+c.text+"` serves files on every network interface")
}

func judgePip(s *sh, c *cmd, from int) {
	args := append([]string{c.name}, c.args[from:]...)
	i := sub(args, "--index-url", "-i", "--proxy", "--cert", "--python")
	if i >= len(args) {
		s.allow("pip")
		return
	}
	rest := args[i:]
	switch v := rest[0]; v {
	case "install", "download", "wheel":
		s.pipInstall(c, rest, s.v.k.List("popular_python"), "Python package")
	case "list", "show", "freeze", "check", "help", "search", "inspect", "index", "hash", "debug", "cache", "completion":
		s.allow("pip " + v)
	case "uninstall":
		s.allow("pip uninstall")
	case "config":
		if len(rest) > 1 && (rest[1] == "list" || rest[1] == "get" || rest[1] == "debug") {
			s.allow("pip config")
			return
		}
		s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` changes pip's configuration")
	default:
		s.esc(vocab.Routine, low, "`"+c.text+"`: pip "+v+" is not a subcommand the first pass knows")
	}
}

// pipInstall judges pip install: manifests and local paths are routine,
// package sources other than PyPI over HTTPS are passed on.
func (s *sh) pipInstall(c *cmd, rest []string, popular map[string]bool, what string) {
	for _, u := range append(shell.OptValues(rest, "-i", "index-url"), shell.OptValues(rest, "", "extra-index-url")...) {
		switch {
		case strings.HasPrefix(u, "http://"):
			s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` installs from an index over plain HTTP ("+u+")")
		case !strings.HasPrefix(u, "https://pypi.org/"):
			s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` installs from the index "+u)
		}
	}
	if shell.HasLong(rest, "trusted-host") {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` skips TLS verification for a package host (--trusted-host)")
	}
	for _, r := range append(shell.OptValues(rest, "-r", "requirement"), shell.OptValues(rest, "-c", "constraint")...) {
		if strings.Contains(r, "://") {
			// Requirements fetched at install time: not the project's
			// declared dependencies.
			s.esc(vocab.SecurityWeakening, medium, "`"+c.text+"` installs what a remote requirements file ("+r+") lists")
			continue
		}
		s.read(c, r, false)
	}
	specs := shell.Operands(rest, "rcieftb", "requirement", "constraint", "index-url", "extra-index-url", "find-links",
		"target", "build", "src", "root", "prefix", "trusted-host", "proxy", "cert", "client-cert", "platform",
		"python-version", "implementation", "abi", "upgrade-strategy", "progress-bar", "editable", "config-settings", "only-binary", "no-binary", "report", "python")
	if len(specs) > 0 && specs[0] == rest[0] {
		specs = specs[1:]
	}
	if len(specs) == 0 {
		s.allow("installs the project's dependencies")
		return
	}
	s.packages(c, specs, popular, what)
}

func judgeUv(s *sh, c *cmd) {
	if len(c.args) < 2 {
		s.allow("uv")
		return
	}
	switch v := c.args[1]; v {
	case "pip":
		if len(c.args) > 2 && c.args[2] == "install" {
			s.pipInstall(c, c.args[2:], s.v.k.List("popular_python"), "Python package")
			return
		}
		s.allow("uv pip")
	case "add":
		s.packages(c, shell.Operands(c.args[1:], "", "group", "optional", "extra", "index", "python", "package"), s.v.k.List("popular_python"), "Python package")
	case "publish":
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes a package")
	case "tool":
		if len(c.args) > 3 && (c.args[2] == "install" || c.args[2] == "run") {
			s.packages(c, c.args[3:4], s.v.k.List("popular_python"), "Python tool")
			return
		}
		s.allow("uv tool")
	default:
		s.allow("uv " + v)
	}
}

func judgePoetry(s *sh, c *cmd) {
	if len(c.args) < 2 {
		s.allow(c.name)
		return
	}
	switch v := c.args[1]; v {
	case "add":
		s.packages(c, shell.Operands(c.args[1:], "GE", "group", "extras", "source", "python", "platform"), s.v.k.List("popular_python"), "Python package")
	case "publish", "upload":
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes a package")
	case "config", "source":
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` changes package sources or settings")
	case "run":
		s.allow(c.name + " run")
	default:
		s.allow(c.name + " " + v)
	}
}

func judgePipx(s *sh, c *cmd) {
	if len(c.args) > 2 && (c.args[1] == "install" || c.args[1] == "run") {
		s.packages(c, c.args[2:3], s.v.k.List("popular_python"), "Python tool")
		return
	}
	s.allow("pipx")
}

func judgeGem(s *sh, c *cmd) {
	if len(c.args) > 1 && c.args[1] == "install" {
		s.packages(c, shell.Operands(c.args[1:], "v", "version", "source"), s.v.k.List("popular_gems"), "gem")
		return
	}
	if len(c.args) > 1 && (c.args[1] == "push" || c.args[1] == "signin" || c.args[1] == "owner" || c.args[1] == "yank") {
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes to or changes RubyGems")
		return
	}
	s.allow("gem")
}

func judgeManage(s *sh, c *cmd) {
	if len(c.args) < 2 {
		s.allow("manage.py")
		return
	}
	switch v := c.args[1]; v {
	case "flush", "reset_db", "sqlflush", "dbshell", "drop_test_database", "reset_schema":
		s.esc(vocab.Destructive, medium, "`"+c.text+"` empties or opens the database")
	case "createsuperuser", "changepassword":
		s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` manages accounts")
	case "shell", "shell_plus":
		s.esc(vocab.Routine, low, "`"+c.text+"` opens an interactive shell")
	case "runserver":
		for _, a := range c.args[2:] {
			if strings.HasPrefix(a, "0.0.0.0") || strings.HasPrefix(a, "[::]") {
				s.esc(vocab.Exfiltration, low, "`"+c.text+"` serves on every network interface")
				return
			}
		}
		s.allow("manage.py runserver")
	default:
		s.allow("manage.py " + v)
	}
}

func judgeAlembic(s *sh, c *cmd) {
	if shell.HasWord(c.args, "downgrade", "stamp") {
		s.esc(vocab.Destructive, medium, "`"+c.text+"` rolls database migrations back")
		return
	}
	s.allow("alembic")
}

func judgeRustup(s *sh, c *cmd) {
	if shell.HasWord(c.args, "self") && shell.HasWord(c.args, "uninstall") {
		s.esc(vocab.Destructive, medium, "`"+c.text+"` uninstalls the Rust toolchain")
		return
	}
	s.allow("rustup")
}

// judgeBuildTool judges make and its kin by the targets they are asked to
// run.
func judgeBuildTool(s *sh, c *cmd) {
	args := c.args
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
			a == "-p" || a == "--project" || a == "-c" || a == "--configuration" || a == "-P" || a == "-D" && c.name != "mvn" ||
			a == "--settings" || a == "-s" && c.name == "mvn" || a == "-o" && c.name == "make" || a == "--filter" || a == "-t" && c.name == "dotnet" || a == "--framework" ||
			(c.name == "mvn" || c.name == "mvnw") && (a == "-pl" || a == "--projects" || a == "-rf" || a == "--resume-from" || a == "-T" ||
				a == "--threads" || a == "-l" || a == "--log-file" || a == "-gs" || a == "--global-settings" || a == "-b" || a == "--builder"):
			skipNext = true
		case strings.HasPrefix(a, "-"):
		case isAssignWord(a):
		default:
			targets = append(targets, a)
		}
	}
	tool := c.name
	switch c.name {
	case "dotnet":
		if len(targets) > 0 {
			switch targets[0] {
			case "nuget":
				if shell.HasWord(args, "push", "delete") {
					s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes a package")
					return
				}
			case "add":
				s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` adds a package")
				return
			}
			targets = targets[:1]
		}
	case "flutter", "dart", "swift", "stack", "cabal", "mix", "bundle", "composer", "lein":
		if len(targets) > 1 && (targets[0] == "run" || targets[0] == "script") && strings.Contains(targets[1], ".") {
			// dart run x.dart, swift run, mix run x.exs: a file's code.
			s.runsFile(c, targets[1])
			return
		}
		if len(targets) > 0 {
			switch targets[0] {
			case "pub", "deps.get", "install", "get", "fetch", "update", "resolve":
				s.allow(c.name + " " + targets[0])
				return
			case "require", "add":
				s.esc(vocab.SecurityWeakening, low, "`"+c.text+"` adds a package")
				return
			case "exec":
				if len(targets) > 1 {
					t := targets[1]
					if s.isDevToolName(t) || t == "rails" || t == "rake" || t == "rspec" || t == "rubocop" || rubySiteTools[t] {
						s.allow(c.name + " exec " + t)
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
				s.allow("meson " + targets[0])
				return
			}
		}
	case "bazel", "bazelisk":
		if len(targets) > 0 {
			switch targets[0] {
			case "build", "test", "coverage", "query", "cquery", "aquery", "info", "fetch", "clean", "sync", "version", "help", "mod":
				// Builds or tests labels of the workspace with its own
				// rules; bazel run runs a program and stays below.
				s.allow("bazel " + targets[0])
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
			s.allow("xcodebuild")
			return
		}
	}
	if len(targets) == 0 {
		s.allow(tool + " (default target)")
		return
	}
	for _, t := range targets {
		t = strings.TrimPrefix(t, ":")
		if i := strings.LastIndexAny(t, ":/"); i >= 0 && c.name != "make" {
			t = t[i+1:]
		}
		before := s.v.worst.rank()
		s.target(c, tool, t)
		if s.v.worst.rank() > before && s.v.worst.dec != vocab.Allow {
			return
		}
	}
}

// rubySiteTools are the project's own Ruby tools that bundle exec runs to
// build a site, test or lint: the project's code, as rake or rspec.
var rubySiteTools = set("jekyll", "middleman", "bridgetown", "nanoc", "cucumber", "standardrb", "erblint", "erb_lint",
	"haml-lint", "slim-lint", "yard", "rdoc", "brakeman", "bundle-audit", "reek", "minitest")

// judgeServerConfigTest allows checking a web server's configuration;
// starting, stopping or reloading one is passed on.
func judgeServerConfigTest(s *sh, c *cmd) {
	if shell.HasWord(c.args, "-t", "-T", "-v", "-V", "configtest", "validate", "-c") && !shell.HasWord(c.args, "-s", "start", "stop", "restart", "reload", "graceful", "run") ||
		c.name == "caddy" && len(c.args) > 1 && (c.args[1] == "validate" || c.args[1] == "fmt" || c.args[1] == "version") {
		if shell.HasWord(c.args, "-t", "-T", "-v", "-V", "configtest", "validate") || c.name == "caddy" {
			s.allow(c.name + " checks its configuration")
			return
		}
	}
	s.esc(vocab.Routine, medium, "`"+c.text+"` starts, stops or reloads a server")
}
