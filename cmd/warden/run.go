package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/human"
	"github.com/wardenhq/warden/internal/plane"
	"github.com/wardenhq/warden/internal/plane/serverplane"
	"github.com/wardenhq/warden/internal/plane/storeplane"
	"github.com/wardenhq/warden/internal/render"
	"github.com/wardenhq/warden/internal/safetext"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

const runUsage = `usage: warden run TASK.yaml [flags]
       warden run --resume RUN_ID --input TEXT [flags]

Runs a task (or continues a stored run with a new request), renders its
events on stderr, and prints the final answer and a summary on stdout.
Exit codes: 0 completed, 3 limited, 1 run error, 2 usage or configuration.
`

// runCmd implements `warden run`.
func runCmd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden run", runUsage, stderr)
	fs := c.fs
	var (
		opts  task.Options
		quiet bool
	)
	fs.StringVar(&opts.Transcript, "transcript", "", "transcript path (default $WARDEN_HOME/runs/RUN_ID.jsonl)")
	fs.BoolVar(&quiet, "quiet", false, "do not render events as they happen")
	var interactive bool
	fs.BoolVar(&interactive, "interactive", false, "after each turn, read the next request from the console (/approve lets a person allow one retry of a denial)")
	var resume, input string
	fs.StringVar(&resume, "resume", "", "continue the stored run RUN_ID with a new turn (give --input)")
	fs.StringVar(&input, "input", "", "the person's request for the resumed turn")
	fs.BoolVar(&opts.KeepWorkdir, "keep-workdir", false, "keep the temporary working directory made for a task without workdir: when the run ends (needed to --resume it)")
	pf := prepareFlags(fs, &opts)
	var serverURL, dbURL string
	fs.StringVar(&serverURL, "server", "", "a `URL` of `warden serve`: people decide the run's human requests in its panel or API, and it receives the run's events (default $WARDEN_SERVER)")
	fs.StringVar(&dbURL, "db", "", "also store the run's events in the store at `URL` (sqlite:PATH or postgres://…; default $WARDEN_DB), and queue its human requests there when no --server is given")
	pos, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	switch {
	case resume != "" && input == "":
		return c.fail("--resume needs --input TEXT: the request for the resumed turn")
	case resume != "" && len(pos) != 0:
		return c.fail("--resume continues a stored run: give no TASK.yaml (got %q)", pos[0])
	case resume == "" && input != "":
		return c.fail("--input needs --resume RUN_ID: a task's request is its input:")
	case resume == "" && len(pos) == 0:
		return c.fail("missing TASK.yaml (or --resume RUN_ID --input TEXT)")
	case resume == "" && len(pos) > 1:
		return c.fail("one TASK.yaml at a time, got %d", len(pos))
	}
	if !pf.finish(stderr) {
		return exitUsage
	}

	stats := &render.Stats{}
	live := event.SinkFunc(func(e event.Event) error { stats.Add(e); return nil })
	var tw *render.TextWriter
	if !quiet {
		out := stderr
		if stderr == io.Writer(os.Stderr) {
			out = human.Default().Log() // never breaks into a console prompt
		}
		tw = render.NewTextWriter(out)
		live = event.SinkFunc(func(e event.Event) error { stats.Add(e); return tw.Write(e) })
	}
	opts.Sink = live
	pl, err := plane.Open(context.Background(), serverURL, dbURL, planes)
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	defer func() {
		if err := pl.Close(); err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
		}
	}()
	if s := pl.Sink(); s != nil {
		opts.Sink = event.Tee(live, s)
	}
	opts.Queue = pl.Queue
	var p *task.Prepared
	if resume != "" {
		path := opts.Transcript
		if path == "" {
			path = task.TranscriptPath(resume)
		}
		opts.RunID = resume // the transcript must be that run's
		p, err = task.Resume(path, input, opts)
	} else {
		var t *task.Task
		if t, err = task.Load(pos[0]); err == nil {
			for _, w := range t.Warnings(opts) {
				fmt.Fprintf(stderr, "warden: warning: %s\n", w)
			}
			p, err = t.Prepare(opts)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	if tw != nil {
		// Calls are shown as policy patterns see them (issue 18 item 9).
		tw.SetOrders(agentOrders(p.Agent))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := p.Execute(ctx)
	if answer := chat.Text(res.Messages, chat.Assistant); answer != "" {
		fmt.Fprintf(stdout, "%s\n\n", answer)
	}
	if interactive {
		res = moreTurns(ctx, p, res, human.Default(), stdout)
	}
	if err := p.Close(); err != nil && res.Err == nil {
		res.Status, res.Err = event.StatusError, err
	}
	// A temporary working directory goes when the run ends (issue 10 item
	// 8), unless asked to keep it or the run is one to resume: that one is
	// kept, and said so. Its path is printed either way.
	if why := p.KeepReason(res, ctx.Err() != nil); p.TempWorkdir && !p.KeepWorkdir && why != "" {
		p.KeepWorkdir = true
		fmt.Fprintf(stderr, "warden: kept the temporary workdir %s for --resume: %s; remove it when done\n", p.Workdir, why)
	}
	if removed, err := p.Cleanup(); err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
	} else if removed {
		fmt.Fprintf(stderr, "warden: removed the temporary workdir %s (--keep-workdir keeps it)\n", p.Workdir)
	}
	// One summary, from the events this command recorded (SPEC: issue 10
	// item 4): every quantity is counted once, from one source.
	fmt.Fprintf(stdout, "%s\nworkdir: %s\ntranscript: %s\n", stats, p.Workdir, p.TranscriptPath)
	switch res.Status {
	case event.StatusCompleted:
		return exitOK
	case event.StatusLimited:
		fmt.Fprintf(stderr, "warden: run limited: %v\n", res.Limit)
		return exitLimited
	}
	fmt.Fprintf(stderr, "warden: run error: %v\n", res.Err)
	return exitError
}

// prepFlags are the flags that say how a run is prepared, shared by
// `warden run` and `warden check` (which resolves what run would).
type prepFlags struct {
	opts      *task.Options
	maxOutput optionalInt
	rules     stringList
}

// prepareFlags defines the preparation flags on fs, filling opts.
func prepareFlags(fs *flag.FlagSet, opts *task.Options) *prepFlags {
	pf := &prepFlags{opts: opts}
	fs.StringVar(&opts.Model, "model", "", "model: scripted:PATH, openai/NAME or anthropic/NAME (default: the task's model:)")
	fs.StringVar(&opts.Approval, "approval", "", "approval policy file or registered approver name; replaces the task's")
	fs.StringVar(&opts.Review, "review", "", "review policy file or registered reviewer name; replaces the task's")
	fs.Var(&pf.maxOutput, "max-output", "truncate tool results for the model to `N` bytes (0 disables; default the task's max_output or 16384)")
	fs.StringVar(&opts.ModelOptions.BaseURL, "base-url", "", "model API base URL (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	fs.StringVar(&opts.ModelOptions.APIKey, "api-key", "", "model API key (overrides OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	fs.StringVar(&opts.Sandbox, "sandbox", "", "sandbox mode for commands: read-only, workspace-write or full-access (replaces the task's sandbox: mode)")
	fs.BoolVar(&opts.SandboxUnenforced, "sandbox-unenforced", false, "run read-only/workspace-write commands without kernel enforcement where Landlock is missing")
	fs.StringVar(&opts.ApprovalsReviewer, "approvals-reviewer", "", "who decides requests to cross the sandbox boundary: user, auto_review, or approvers in order such as first_pass,auto_review,human (replaces the task's approvals_reviewer)")
	fs.StringVar(&opts.AutoReviewModel, "auto-review-model", "", "model of the reviewer agent (default: the run's model)")
	fs.BoolVar(&opts.PinPolicy, "pin-policy", false, "apply the run's --approval/--review (else the task's policies) to every agent, replacing sub-agents' own")
	fs.IntVar(&opts.MaxConcurrentCalls, "max-concurrent-calls", 0, "run at most N calls of one model message at once (default the task's max_concurrent_calls or 8)")
	fs.IntVar(&opts.MaxCallsPerMessage, "max-calls-per-message", 0, "execute at most N calls of one model message; the rest get a parsing error (default the task's max_calls_per_message or 64)")
	fs.Var(&pf.rules, "rules", "exec rules `FILE` (Codex .rules or YAML), added to the task's rules: (repeatable)")
	return pf
}

// finish checks the preparation flags and sets what they give on opts;
// false means a usage error, already reported on stderr.
func (pf *prepFlags) finish(stderr io.Writer) bool {
	opts := pf.opts
	if pf.maxOutput.set && pf.maxOutput.n >= 0 {
		opts.MaxOutput = &pf.maxOutput.n
	}
	if opts.MaxConcurrentCalls < 0 || opts.MaxCallsPerMessage < 0 {
		fmt.Fprint(stderr, "warden: --max-concurrent-calls and --max-calls-per-message must be ≥ 1\n")
		return false
	}
	opts.Rules = pf.rules
	if opts.ApprovalsReviewer != "" {
		if _, err := task.ParseApprovalsReviewer(opts.ApprovalsReviewer); err != nil {
			fmt.Fprintf(stderr, "warden: --approvals-reviewer: %v\n", err)
			return false
		}
	}
	if opts.Sandbox != "" {
		if _, err := sandbox.ParseMode(opts.Sandbox); err != nil {
			fmt.Fprintf(stderr, "warden: --sandbox: %v\n", err)
			return false
		}
	}
	return true
}

// moreTurns reads further requests from the console after each turn that
// did not fail, until an empty line or the end of input. "/approve" lists
// the run's latest auto-review denials and lets the person allow one retry
// of exactly one of them (SPEC G12).
func moreTurns(ctx context.Context, p *task.Prepared, res *agent.Result, con *human.Console, stdout io.Writer) *agent.Result {
	for res.Status != event.StatusError {
		line, err := con.Line(ctx, "\nnext request (/approve allows one retry of a denial; an empty line ends) > ")
		line = strings.TrimSpace(line)
		if err != nil || line == "" {
			return res
		}
		if line == "/approve" {
			approveDenial(ctx, p, con)
			continue
		}
		res = p.Next(ctx, res.Messages, line)
		if answer := chat.Text(res.Messages[len(res.Messages)-1:], chat.Assistant); answer != "" {
			fmt.Fprintf(stdout, "%s\n\n", answer)
		}
	}
	return res
}

// approveDenial is the console's /approve picker.
func approveDenial(ctx context.Context, p *task.Prepared, con *human.Console) {
	denials := p.Gate.Denials()
	if len(denials) == 0 {
		_, _ = fmt.Fprintln(con.Log(), "no denials to approve")
		return
	}
	var b strings.Builder
	b.WriteString("the latest denials:\n")
	for i, d := range denials {
		fmt.Fprintf(&b, "  %d. %s  %s\n     %s\n", i+1, d.ID, safetext.Escape(string(d.Action)), safetext.Escape(d.Rationale))
	}
	b.WriteString("number to approve one retry of (empty: none) > ")
	pick, err := con.Line(ctx, b.String())
	n, convErr := strconv.Atoi(strings.TrimSpace(pick))
	if err != nil || convErr != nil || n < 1 || n > len(denials) {
		_, _ = fmt.Fprintln(con.Log(), "nothing approved")
		return
	}
	if err := p.Gate.Override(denials[n-1].ID, "console", ""); err != nil {
		_, _ = fmt.Fprintf(con.Log(), "warden: %v\n", err)
		return
	}
	_, _ = fmt.Fprintf(con.Log(), "approved one retry of %s\n", denials[n-1].ID)
}

// agentOrders returns the orders the calls of a and of every agent it can
// hand off to render in, by tool name (SPEC P2).
func agentOrders(a *agent.Agent) render.Orders {
	var tools []tool.Tool
	seen := map[*agent.Agent]bool{}
	var walk func(*agent.Agent)
	walk = func(a *agent.Agent) {
		if a == nil || seen[a] {
			return
		}
		seen[a] = true
		tools = append(tools, a.Tools...)
		for _, h := range a.Handoffs {
			walk(h)
		}
	}
	walk(a)
	return render.OrdersOf(tools...)
}

// planes are the parts of the control plane the full warden links: the
// store and the server.
var planes = plane.Openers{Store: storeplane.Open, Server: serverplane.Open}
