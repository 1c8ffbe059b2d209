package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/wardenhome"
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

// maxHookInput bounds the hook input read (a tool's whole output may be in
// it).
const maxHookInput = 64 << 20

// hookConfig resolves f: the policies compiled, the exec rules loaded, the
// control plane connected (--server, --db; else the default store, which
// receives the session's events but decides nothing). closeAll delivers
// what is buffered and closes the connections.
func hookConfig(ctx context.Context, f *govern.File, tr *hookTrace) (cfg *hook.Config, closeAll func() error, err error) {
	if cfg, err = resolveHook(f); err != nil {
		return nil, nil, err
	}
	if closeAll, err = governConnect(ctx, &cfg.Config, f, false, tr); err != nil {
		return nil, nil, err
	}
	return cfg, closeAll, nil
}

// governConnect connects a governed session's configuration cfg, resolved
// from f, for a hook (live false: the default store receives the events
// when the hook closes) or a long-lived session (live: `warden mcp`, whose
// events reach the default store as they happen). tr times a hook's
// phases; nil times nothing.
func governConnect(ctx context.Context, cfg *govern.Config, f *govern.File, live bool, tr *hookTrace) (closeAll func() error, err error) {
	pl, err := openPlane(ctx, f.Server, f.DB)
	if err != nil {
		return nil, err
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
				return nil, fmt.Errorf("the store: %w", err)
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
	return pl.Close, nil
}

// resolveHook resolves what f names without connecting anything (a
// governed session's configuration, govern.Resolve) and the sandbox shell
// calls run under. `warden check` checks a configuration file with it.
func resolveHook(f *govern.File) (*hook.Config, error) {
	gc, err := govern.Resolve(f, wardenhome.Home(), task.KeyPath())
	if err != nil {
		return nil, err
	}
	cfg := &hook.Config{Config: *gc}
	if f.Sandbox != "" && f.Sandbox != string(sandbox.FullAccess) {
		exe, err := os.Executable()
		if err != nil {
			return nil, f.At("sandbox", err)
		}
		cfg.Sandbox, cfg.Exe = f.Sandbox, exe
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
	f, err := govern.LoadFile(path, false)
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
