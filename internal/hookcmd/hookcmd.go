// Package hookcmd is the command `warden hook HOST`: its flags and
// configuration file, the policies and control plane they name, and a
// hook process's answer and timing. Both mains run it: cmd/warden, and
// cmd/warden-hook, which links no model, store, server client, first pass
// or sandbox and hands a hook that may need one to the full warden
// (docs/hooks.md, Speed). `warden mcp` shares its flags and configuration.
package hookcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/cli"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/plane"
	"github.com/wardenhq/warden/internal/sandboxmode"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// Usage is the usage of `warden hook`.
const Usage = `usage: warden hook HOST [--config FILE] [--approval X] [--review X] [--rules FILE]...
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

// Options are what a main gives Run.
type Options struct {
	// Full returns the path of the full warden. Given, this main is
	// warden-hook, which links no model: Run hands a hook whose decision
	// may need one (auto-review) over to `FULL hook HOST …`, with stdin,
	// stdout and stderr as they are, and the shell calls it sandboxes run
	// under `FULL exec`. Nil: this main is the full warden.
	Full func() (string, error)
	// Plane opens the control plane's parts a hook names: the store
	// (--db, $WARDEN_DB: storeplane.Open in the full warden) and the
	// server (--server, $WARDEN_SERVER: serverplane.Open). A part left nil
	// (warden-hook, which links no database and no HTTP client): Run hands
	// such a hook to the full warden (Full), else it is the host's deny.
	Plane plane.Openers
}

// Run runs `warden hook ARGS` (HOST and flags; not install or doctor,
// which warden-hook hands to the full warden): it reads one hook event of
// HOST from stdin, decides it and answers on stdout and stderr in HOST's
// format; it returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, o Options) int {
	if o.Full != nil && len(args) > 0 && (args[0] == "install" || args[0] == "doctor") {
		return handoff(o, nil, args, stderr, nil)
	}
	tr := newTrace()
	defer tr.write()
	c := cli.New("warden hook", Usage, stderr)
	gf := AddFlags(c.FS, "hooks.yaml", true)
	pos, code, ok := c.Parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.Fail("give one HOST (%s)", strings.Join(hook.Hosts(), ", "))
	}
	h, err := hook.Lookup(pos[0])
	if err != nil {
		return c.Fail("%v", err)
	}
	// From here on, every failure is the host's deny: never silence, never
	// exit 1 (which Claude Code and Gemini CLI read as "proceed"), and
	// always after the input is read (a host whose write of it fails may
	// read that as the hook's failure).
	fail := func(msg string) int {
		_, _ = io.Copy(io.Discard, io.LimitReader(stdin, maxInput))
		return answer(h.Fail(msg), stdout, stderr)
	}
	f, err := gf.Load()
	if err == nil && f.Sandbox != "" {
		if _, perr := sandboxmode.Parse(f.Sandbox); perr != nil {
			err = f.At("sandbox", perr)
		}
	}
	var cfg *hook.Config
	if err == nil {
		cfg, err = resolve(f, o)
	}
	if err != nil && o.Full != nil {
		// What warden-hook cannot resolve — an approver or reviewer only
		// the full warden registers, a model, a store, a server — the full
		// warden resolves and answers, before stdin is read: the full
		// warden reads it.
		return handoff(o, h, args, stderr, err)
	}
	if err != nil {
		return fail(err.Error())
	}
	input, err := io.ReadAll(io.LimitReader(stdin, maxInput))
	if err != nil {
		return answer(h.Fail("reading the hook input: "+err.Error()), stdout, stderr)
	}
	tr.mark("input")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	closeAll, err := connect(ctx, &cfg.Config, f, false, o.Plane)
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

// Flags are the flags `warden hook` and `warden mcp` share: the keys of
// their configuration file, which a flag given replaces.
type Flags struct {
	fs         *flag.FlagSet
	file       string
	flags      govern.File
	rules      cli.List
	reviewers  string
	configPath *string
}

// AddFlags defines the shared flags on fs; file is the default
// configuration file's name in $WARDEN_HOME; sandbox adds --sandbox.
func AddFlags(fs *flag.FlagSet, file string, sandbox bool) *Flags {
	g := &Flags{fs: fs, file: file}
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

// Load reads the configuration file (--config, else the default one if
// it exists) and lays the flags given over it.
func (g *Flags) Load() (*govern.File, error) {
	path := *g.configPath
	if path == "" {
		path = filepath.Join(wardenhome.Home(), g.file)
	}
	f, err := govern.LoadFile(path, *g.configPath == "")
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
			f.ApprovalsReviewer, err = approvalsreviewer.Parse(g.reviewers)
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

// maxInput bounds the hook input read (a tool's whole output may be in
// it).
const maxInput = 64 << 20

// Connect connects cfg, resolved from f, to the control plane f names
// (--server, --db; else the default store, which receives the session's
// events but decides nothing), for a hook (live false: its run is marked
// in the default store's spool when the hook closes) or a long-lived
// session (live: `warden mcp`, whose runs are marked beside its calls, at
// most every half spool.Interval); the store imports marked runs'
// transcripts when it is next opened or drained (internal/spool). closeAll
// delivers what is buffered and closes the connections. o opens the
// store and the server (storeplane.Open and serverplane.Open in the full
// warden).
func Connect(ctx context.Context, cfg *govern.Config, f *govern.File, live bool, o plane.Openers) (closeAll func() error, err error) {
	return connect(ctx, cfg, f, live, o)
}

// connect is Connect.
func connect(ctx context.Context, cfg *govern.Config, f *govern.File, live bool, o plane.Openers) (closeAll func() error, err error) {
	pl, err := plane.Open(ctx, f.Server, f.DB, o)
	if err != nil {
		return nil, err
	}
	cfg.Queue = pl.Queue
	if f.Server == "" && wardenhome.DBURL(f.DB) == "" {
		// The session's events go to the default store, for the panel of
		// a `warden serve` on it; nobody decides through it. A hook, and a
		// long-lived session (live) beside its calls, mark the run in the
		// store's spool instead of opening it; the store imports the
		// transcript's lines when it is next opened or drained.
		m := newSpoolMarks(wardenhome.Home())
		if live {
			m = newLiveMarks(wardenhome.Home())
		}
		pl.Sinks = append(pl.Sinks, m)
		pl.Closers = append(pl.Closers, m.Close)
	}
	if s := pl.Sink(); s != nil {
		cfg.Sink = s
	}
	return pl.Close, nil
}

// errNeedsFull is resolve's answer, for warden-hook, when the decision
// may need what only the full warden links: a model, the first pass, a
// store or a server people decide through.
var errNeedsFull = errors.New("the decision may need what only the full warden links (a model, the first pass, a store, a server)")

// Resolve resolves what f names without connecting anything (a governed
// session's configuration, govern.Resolve) and the sandbox shell calls run
// under. `warden check` checks a configuration file with it.
func Resolve(f *govern.File) (*hook.Config, error) { return resolve(f, Options{}) }

// resolve is Resolve for the main o describes: for warden-hook
// (o.Full), errNeedsFull when the decision may need what it does not link
// (needsFull), and the full warden as the sandbox's runner.
func resolve(f *govern.File, o Options) (*hook.Config, error) {
	if o.Full != nil && needsFull(f, o) {
		return nil, errNeedsFull
	}
	gc, err := govern.Resolve(f, wardenhome.Home(), wardenhome.KeyPath())
	if err != nil {
		return nil, err
	}
	cfg := &hook.Config{Config: *gc}
	if f.Sandbox != "" && f.Sandbox != string(sandboxmode.FullAccess) {
		exe, err := runner(o)
		if err != nil {
			return nil, f.At("sandbox", err)
		}
		cfg.Sandbox, cfg.Exe = f.Sandbox, exe
	}
	return cfg, nil
}

// needsFull reports whether deciding by f may need what the main o does
// not link: a store (--db, $WARDEN_DB) or a server (--server,
// $WARDEN_SERVER) people decide through, a boundary decider other than a
// person alone (the first pass, the reviewer agent), or the reviewer
// agent's model (--auto-review-model). A policy naming an approver the
// main does not register (an approval policy's auto_review) fails to
// resolve, which hands it over too (Run).
func needsFull(f *govern.File, o Options) bool {
	return o.Plane.Store == nil && wardenhome.DBURL(f.DB) != "" ||
		o.Plane.Server == nil && plane.ServerURL(f.Server) != "" ||
		!approvalsreviewer.Buildable(f.ApprovalsReviewer) ||
		f.AutoReviewModel != "" && slices.ContainsFunc(f.ApprovalsReviewer, isAutoReview)
}

// runner is the warden whose `exec` runs the sandboxed shell calls: the
// full one.
func runner(o Options) (string, error) {
	if o.Full != nil {
		return o.Full()
	}
	return os.Executable()
}

// isAutoReview reports whether the approver named n is the reviewer
// agent, which opens a model.
func isAutoReview(n string) bool {
	if now, ok := approval.Renamed(n); ok {
		n = now
	}
	return n == approvalsreviewer.AutoReview
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

// handoff replaces this process with the full warden's `warden hook ARGS`
// (stdin, stdout and stderr as they are): for a hook of h whose decision
// may need what warden-hook does not link (why), and for install and
// doctor. A full warden that cannot be found or started is h's deny, which
// says why the hook was handed over (a usage error without a host).
func handoff(o Options, h *hook.Host, args []string, stderr io.Writer, why error) int {
	full, err := o.Full()
	if err == nil {
		err = syscall.Exec(full, append([]string{full, "hook"}, args...), os.Environ())
		err = fmt.Errorf("starting %s: %w", full, err)
	}
	if why != nil {
		err = fmt.Errorf("%w; handing the hook to the full warden: %w", why, err)
	} else {
		err = fmt.Errorf("handing the hook to the full warden: %w", err)
	}
	if h == nil {
		fmt.Fprintf(stderr, "warden hook: %v\n", err)
		return cli.ExitUsage
	}
	a := h.Fail(err.Error())
	_, _ = os.Stdout.Write(a.Stdout)
	_, _ = io.WriteString(stderr, a.Stderr)
	return a.Code
}

// FindFull returns the full warden's path: `warden` beside this
// executable, else on $PATH.
func FindFull() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		p := filepath.Join(filepath.Dir(exe), "warden")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("warden")
	if err != nil {
		return "", fmt.Errorf("no warden beside %s nor on $PATH: %w", exe, err)
	}
	return filepath.Abs(p)
}
