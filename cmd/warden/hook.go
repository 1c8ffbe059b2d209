package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
)

const hookUsage = `usage: warden hook HOST [--config FILE] [--approval X] [--review X] [--rules FILE]...
                   [--approvals-reviewer user|auto_review|LIST] [--auto-review-model M]
                   [--server URL] [--db URL] [--timeout D] [--sandbox MODE]
       warden hook install HOST [--scope user|project] [--uninstall]
       warden hook doctor HOST [--scope user|project]

Governs a coding agent warden does not run (HOST: claude-code, codex, gemini,
cursor): reads one hook event of HOST on stdin, decides it with the approval
policy (before a call), the review policy (after it) or the boundary decider
(the host's permission requests, exec rules' prompts, escalations), and answers
on stdout in HOST's format and exit codes. Anything warden cannot decide — input
that does not parse, an unknown event, an unreachable store or server — is
HOST's deny. The host session is a warden run: $WARDEN_HOME/runs/RUN_ID.jsonl
and the store. See docs/hooks.md.
`

// hookCmd implements `warden hook`.
func hookCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "install":
			return hookInstallCmd(args[1:], stdout, stderr, false)
		case "doctor":
			return hookInstallCmd(args[1:], stdout, stderr, true)
		}
	}
	c := newCommand("warden hook", hookUsage, stderr)
	gf := addGovernFlags(c.fs, "hooks.yaml", true)
	pos, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.fail("give one HOST (%s)", strings.Join(hook.Hosts(), ", "))
	}
	h, err := hook.Lookup(pos[0])
	if err != nil {
		return c.fail("%v", err)
	}
	// From here on, every failure is the host's deny: never silence, never
	// exit 1 (which Claude Code and Gemini CLI read as "proceed").
	input, err := io.ReadAll(io.LimitReader(stdin, maxHookInput))
	if err != nil {
		return answer(h.Fail("reading the hook input: "+err.Error()), stdout, stderr)
	}
	f, err := gf.load()
	if err != nil {
		return answer(h.Fail(err.Error()), stdout, stderr)
	}
	if f.Sandbox != "" {
		if _, err := sandbox.ParseMode(f.Sandbox); err != nil {
			return answer(h.Fail(f.At("sandbox", err).Error()), stdout, stderr)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, closeAll, err := hookConfig(ctx, f)
	if err != nil {
		return answer(h.Fail(err.Error()), stdout, stderr)
	}
	ans := cfg.Handle(ctx, h, input)
	if err := closeAll(); err != nil && ans.Code == 0 {
		ans = h.Fail("recording the decision: " + err.Error())
	}
	return answer(ans, stdout, stderr)
}

// governFlags are the flags `warden hook` and `warden mcp` share: the
// keys of their configuration file, which a flag given replaces.
type governFlags struct {
	fs         *flag.FlagSet
	file       string
	flags      hook.File
	rules      stringList
	reviewers  string
	configPath *string
}

// addGovernFlags defines the shared flags on fs; file is the default
// configuration file's name in $WARDEN_HOME; sandbox adds --sandbox.
func addGovernFlags(fs *flag.FlagSet, file string, sandbox bool) *governFlags {
	g := &governFlags{fs: fs, file: file}
	g.configPath = fs.String("config", "", "the configuration `FILE` (default $WARDEN_HOME/"+file+"): the keys of these flags; a flag given replaces its key")
	fs.StringVar(&g.flags.Approval, "approval", "", "approval policy file or registered approver name, for calls before they run")
	fs.StringVar(&g.flags.Review, "review", "", "review policy file or registered reviewer name, for results after calls ran")
	fs.Var(&g.rules, "rules", "exec rules `FILE` (Codex .rules or YAML) every shell command is judged by (repeatable)")
	fs.StringVar(&g.reviewers, "approvals-reviewer", "", "who decides boundary requests: user, auto_review, or approvers in order such as first_pass,auto_review,human")
	fs.StringVar(&g.flags.AutoReviewModel, "auto-review-model", "", "model of the reviewer agent")
	fs.StringVar(&g.flags.Server, "server", "", "a `URL` of `warden serve`: people decide escalations in its panel, and it receives the session's events")
	fs.StringVar(&g.flags.DB, "db", "", "the store's `URL` (sqlite:PATH or postgres://…; default $WARDEN_DB, else SQLite in $WARDEN_HOME); given, people decide escalations through it")
	if sandbox {
		fs.StringVar(&g.flags.Sandbox, "sandbox", "", "run the shell calls a policy lets run under warden's sandbox in `MODE` (read-only, workspace-write), where the host takes changed input")
	}
	fs.DurationVar(&g.flags.Timeout, "timeout", 0, "how long an escalation waits for a decision (default 5m); its outcome is a denial that says so")
	return g
}

// load reads the configuration file (--config, else the default one if
// it exists) and lays the flags given over it.
func (g *governFlags) load() (*hook.File, error) {
	path := *g.configPath
	if path == "" {
		path = filepath.Join(wardenhome.Home(), g.file)
	}
	f, err := hook.LoadFile(path, *g.configPath == "")
	if err != nil {
		return nil, err
	}
	g.fs.Visit(func(fl *flag.Flag) {
		f.Given(strings.ReplaceAll(fl.Name, "-", "_"))
		switch fl.Name {
		case "approval":
			f.Approval = absIfFile(g.flags.Approval)
		case "review":
			f.Review = absIfFile(g.flags.Review)
		case "rules":
			f.Rules = nil
			for _, r := range g.rules {
				f.Rules = append(f.Rules, absIfFile(r))
			}
		case "approvals-reviewer":
			f.ApprovalsReviewer, err = decider.Parse(g.reviewers)
		case "auto-review-model":
			f.AutoReviewModel = g.flags.AutoReviewModel
		case "server":
			f.Server = g.flags.Server
		case "db":
			f.DB = g.flags.DB
		case "timeout":
			f.Timeout = g.flags.Timeout
		case "sandbox":
			f.Sandbox = g.flags.Sandbox
		}
	})
	if err != nil {
		return nil, fmt.Errorf("--approvals-reviewer: %w", err)
	}
	return f, nil
}

// maxHookInput bounds the hook input read (a tool's whole output may be in
// it).
const maxHookInput = 64 << 20

// defaultHookTimeout is how long an escalation waits by default: below the
// timeouts `warden hook install` gives the hosts, so that warden's denial,
// not the host's timeout (which some hosts read as "proceed"), ends it.
const defaultHookTimeout = 5 * time.Minute

// hookConfig resolves f: the policies compiled, the exec rules loaded, the
// control plane connected (--server, --db; else the default store, which
// receives the session's events but decides nothing). closeAll delivers
// what is buffered and closes the connections.
func hookConfig(ctx context.Context, f *hook.File) (cfg *hook.Config, closeAll func() error, err error) {
	return governConfig(ctx, f, false)
}

// governConfig is hookConfig for a hook (live false: the default store
// receives the events when the hook closes) or a long-lived session (live:
// `warden mcp`, whose events reach the default store as they happen).
func governConfig(ctx context.Context, f *hook.File, live bool) (cfg *hook.Config, closeAll func() error, err error) {
	if cfg, err = resolveHook(f); err != nil {
		return nil, nil, err
	}
	pl, err := openPlane(ctx, f.Server, f.DB)
	if err != nil {
		return nil, nil, err
	}
	cfg.Queue = pl.queue
	if f.Server == "" && store.URL(f.DB) == "" {
		// The session's events go to the default store, for the panel of
		// a `warden serve` on it; nobody decides through it. A hook opens
		// it while it decides.
		if live {
			st, err := store.Open(ctx, "")
			if err != nil {
				pl.Close()
				return nil, nil, fmt.Errorf("the store: %w", err)
			}
			b := st.Buffer()
			pl.sinks = append(pl.sinks, b)
			pl.closers = append(pl.closers, b.Close, st.Close)
		} else {
			ls := openStoreAside(ctx)
			pl.sinks = append(pl.sinks, ls)
			pl.closers = append(pl.closers, ls.Close)
		}
	}
	if s := pl.sink(); s != nil {
		cfg.Sink = s
	}
	return cfg, pl.Close, nil
}

// resolveHook resolves what f names without connecting anything: the
// policies compiled, the exec rules loaded, the boundary decider's
// approvers checked. `warden check` checks a configuration file with it.
func resolveHook(f *hook.File) (cfg *hook.Config, err error) {
	home := wardenhome.Home()
	cfg = &hook.Config{Timeout: f.Timeout, Paths: hook.Paths{Runs: filepath.Join(home, "runs"), Key: task.KeyPath()}}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultHookTimeout
	}
	if f.Approval != "" {
		entries, err := policy.Resolve(f.Approval, f.Dir, policy.Approval, approval.Registered, approval.Names())
		if err != nil {
			return nil, f.At("approval", err)
		}
		if cfg.Approval, err = approval.Compile(entries); err != nil {
			return nil, f.At("approval", err)
		}
		cfg.ApprovalEntries = entries
	}
	if f.Review != "" {
		entries, err := policy.Resolve(f.Review, f.Dir, policy.Review, review.Registered, review.Names())
		if err != nil {
			return nil, f.At("review", err)
		}
		if cfg.Review, err = review.Compile(entries); err != nil {
			return nil, f.At("review", err)
		}
		cfg.ReviewEntries = entries
	}
	if f.Sandbox != "" && f.Sandbox != string(sandbox.FullAccess) {
		exe, err := os.Executable()
		if err != nil {
			return nil, f.At("sandbox", err)
		}
		cfg.Sandbox, cfg.Exe = f.Sandbox, exe
	}
	ruleFiles := f.RulePaths()
	if len(ruleFiles) > 0 {
		if cfg.Rules, err = rules.Load(ruleFiles...); err != nil {
			return nil, f.At("rules", err)
		}
	}
	who, model := f.ApprovalsReviewer, f.AutoReviewModel
	cfg.Boundary = func(workdir string, person approval.Approver) (*approval.Policy, error) {
		return decider.New(decider.Config{Reviewers: who, RuleFiles: ruleFiles, Rules: cfg.Rules,
			ReviewModel: model, ModelSpec: model, Workdir: workdir, Person: person})
	}
	return cfg, nil
}

// isHookConfig reports whether `warden check` reads path as warden hook's
// configuration file (hooks.yaml) rather than a task.
func isHookConfig(path string) bool {
	b := filepath.Base(path)
	return b == "hooks.yaml" || b == "hooks.yml"
}

// checkHookConfig checks warden hook's configuration file at path as a
// hook would resolve it, reporting problems at file:line:col.
func checkHookConfig(path string, stdout, stderr io.Writer) int {
	f, err := hook.LoadFile(path, false)
	if err == nil {
		var cfg *hook.Config
		if cfg, err = resolveHook(f); err == nil {
			if _, err = cfg.Boundary(filepath.Dir(path), approval.Auto(approval.Escalate, "check")); err != nil {
				err = f.At("approvals_reviewer", err)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: ok (warden hook configuration)\n", path)
	return exitOK
}

// storeAside is the default store of a hook, opened beside the decision:
// the events a hook records are kept and committed, in one transaction,
// when it closes. The store is left open: the process exits right after,
// and closing it would checkpoint its write-ahead log (fsyncs, 10–60 ms on
// every tool call here); the commit is in the log, which the store's next
// opener reads.
type storeAside struct {
	opened chan struct{}
	st     *store.Store
	err    error
	mu     sync.Mutex
	events []event.Event
}

func openStoreAside(ctx context.Context) *storeAside {
	s := &storeAside{opened: make(chan struct{})}
	go func() {
		defer close(s.opened)
		s.st, s.err = store.Open(ctx, "")
	}()
	return s
}

// Write implements event.Sink: it keeps e for Close.
func (s *storeAside) Write(e event.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

// Close commits the events kept; an error (the store could not be opened
// or written) is the host's deny.
func (s *storeAside) Close() error {
	<-s.opened
	if s.err != nil {
		return fmt.Errorf("the store: %w", s.err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.st.Buffer()
	for _, e := range s.events {
		if err := b.Write(e); err != nil {
			b.Close()
			return err
		}
	}
	return b.Close()
}

// absIfFile returns p absolute when it names a file, so that a flag's path
// is against the working directory while the configuration file's are
// against its own; anything else (a registered name) as it is.
func absIfFile(p string) string {
	if _, err := os.Stat(p); err == nil {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
	}
	return p
}

// answer writes a hook's answer and returns its exit code.
func answer(a hook.Answer, stdout, stderr io.Writer) int {
	_, _ = stdout.Write(a.Stdout)
	_, _ = io.WriteString(stderr, a.Stderr)
	return a.Code
}

var _ event.Sink = (*store.Store)(nil)
