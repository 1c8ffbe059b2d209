package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/wardenhome"
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
	tr := newHookTrace()
	defer tr.write()
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
	tr.mark("input")
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
	cfg, closeAll, err := hookConfig(ctx, f, tr)
	if err != nil {
		return answer(h.Fail(err.Error()), stdout, stderr)
	}
	tr.mark("config")
	ans := cfg.Handle(ctx, h, input)
	tr.mark("decision")
	if err := closeAll(); err != nil && ans.Code == 0 {
		ans = h.Fail("recording the decision: " + err.Error())
	}
	tr.mark("store")
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
func hookConfig(ctx context.Context, f *hook.File, tr *hookTrace) (cfg *hook.Config, closeAll func() error, err error) {
	return governConfig(ctx, f, false, tr)
}

// governConfig is hookConfig for a hook (live false: the default store
// receives the events when the hook closes) or a long-lived session (live:
// `warden mcp`, whose events reach the default store as they happen). tr
// times a hook's phases; nil times nothing.
func governConfig(ctx context.Context, f *hook.File, live bool, tr *hookTrace) (cfg *hook.Config, closeAll func() error, err error) {
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
			ls := openStoreAside(ctx, tr)
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
		entries, err := policyfile.Resolve(f.Approval, f.Dir, policyfile.Approval, approval.Registered, approval.Names())
		if err != nil {
			return nil, f.At("approval", err)
		}
		if cfg.Approval, err = approval.Compile(entries); err != nil {
			return nil, f.At("approval", err)
		}
		cfg.ApprovalEntries = entries
	}
	if f.Review != "" {
		entries, err := policyfile.Resolve(f.Review, f.Dir, policyfile.Review, review.Registered, review.Names())
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
			ReviewModel: model, ModelSpec: model, Workdir: workdir, Person: person, DryRun: decider.KernelDryRun()})
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

// storeAside is the default store of a hook, opened beside the decision
// once the hook has an event to record (a hook that records nothing opens
// no store), with store.OpenRecorder: the events a hook records are kept
// and committed, in one transaction, when it closes. The store is left
// open: the process exits right after, and closing it would checkpoint its
// write-ahead log (fsyncs, 10–60 ms on every tool call here); the commit is
// in the log, which the store's next opener reads.
type storeAside struct {
	ctx    context.Context
	tr     *hookTrace
	start  sync.Once
	opened chan struct{}
	st     *store.Store
	err    error
	mu     sync.Mutex
	events []event.Event
}

func openStoreAside(ctx context.Context, tr *hookTrace) *storeAside {
	return &storeAside{ctx: ctx, tr: tr, opened: make(chan struct{})}
}

// open starts opening the store, once.
func (s *storeAside) open() {
	s.start.Do(func() {
		go func() {
			defer close(s.opened)
			start := time.Now()
			s.st, s.err = store.OpenRecorder(s.ctx, "")
			s.tr.beside("store-open", time.Since(start))
		}()
	})
}

// Write implements event.Sink: it keeps e for Close, and starts opening
// the store.
func (s *storeAside) Write(e event.Event) error {
	s.open()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

// Close commits the events kept; an error (the store could not be opened
// or written) is the host's deny.
func (s *storeAside) Close() error {
	s.mu.Lock()
	none := len(s.events) == 0
	s.mu.Unlock()
	if none {
		return nil
	}
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

// envHookTrace names a file each `warden hook` process appends the times
// of its phases to, as one JSON line: when the command began (Unix
// nanoseconds: the time since the process was started is the runtime's
// and the packages' initialisation) and how long each phase took after it.
// BenchmarkX1_HookProcess reads it (docs/hooks.md, Speed).
const envHookTrace = "WARDEN_HOOK_TRACE"

// hookTrace times a hook process's phases for $WARDEN_HOOK_TRACE; nil (no
// file named) times nothing.
type hookTrace struct {
	file    string
	last    time.Time
	lastCPU time.Duration
	mu      sync.Mutex
	line    hookTraceLine
}

// hookTraceLine is one process's line of $WARDEN_HOOK_TRACE.
type hookTraceLine struct {
	// Begin is when the command began, in Unix nanoseconds, and BeginCPU
	// the process's CPU time (user and system) until then, in
	// microseconds.
	Begin    int64 `json:"begin_unix_ns"`
	BeginCPU int64 `json:"begin_cpu_us"`
	// Phases are the phases one after another, Beside those that ran
	// beside them, each with its microseconds.
	Phases []hookPhase `json:"phases"`
	Beside []hookPhase `json:"beside,omitempty"`
	// PeakRSS is the process's peak resident memory in KiB, as its end
	// (VmHWM; 0 where it cannot be read).
	PeakRSS int64 `json:"peak_rss_kib,omitempty"`
}

// hookPhase is a phase and how long it took, in microseconds: wall time,
// and the process's CPU time (all its threads; 0 for a phase beside).
type hookPhase struct {
	Name   string `json:"name"`
	Micros int64  `json:"us"`
	CPU    int64  `json:"cpu_us,omitempty"`
}

// processCPU returns the CPU time, user and system, the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func newHookTrace() *hookTrace {
	f := os.Getenv(envHookTrace)
	if f == "" {
		return nil
	}
	now, cpu := time.Now(), processCPU()
	return &hookTrace{file: f, last: now, lastCPU: cpu, line: hookTraceLine{Begin: now.UnixNano(), BeginCPU: cpu.Microseconds()}}
}

// mark ends the phase name, begun when the last ended.
func (t *hookTrace) mark(name string) {
	if t == nil {
		return
	}
	now, cpu := time.Now(), processCPU()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line.Phases = append(t.line.Phases, hookPhase{name, now.Sub(t.last).Microseconds(), (cpu - t.lastCPU).Microseconds()})
	t.last, t.lastCPU = now, cpu
}

// beside records the phase name that took d beside the others.
func (t *hookTrace) beside(name string, d time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line.Beside = append(t.line.Beside, hookPhase{Name: name, Micros: d.Microseconds()})
}

// write appends the process's line to the trace file; a trace that cannot
// be written is left out (it decides nothing).
func (t *hookTrace) write() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.line.PeakRSS = peakRSS()
	b, err := json.Marshal(t.line)
	t.mu.Unlock()
	if err != nil {
		return
	}
	f, err := os.OpenFile(t.file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// peakRSS returns the process's peak resident memory in KiB (Linux's
// VmHWM), 0 where it cannot be read. The rusage a parent reads for a child
// started with vfork counts the parent's memory too.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kib, _ := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	return kib
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
