// Package bash provides the built-in "bash" tool: it runs a shell command as a
// child process in the task's working directory and returns what the command
// printed.
//
// A command runs as "bash -c CMD" (or "sh -c CMD" where bash is missing) in its
// own session, without a controlling terminal (it cannot open /dev/tty nor
// type into the person's console with TIOCSTI), with an empty stdin and with
// stdout and stderr combined in the order they were written.
//
// Every command also runs in a PID namespace of its own, with warden's
// helper as init (see sandbox.Policy.Wrap and sandbox.Contain): when the
// command ends, or a call that outlives its timeout or whose context is
// cancelled kills it, every process it started ends too, including those
// that called setsid or double-forked. A command killed by signal N is then
// reported as "[exit status 128+N]". Commands that run outside the sandbox
// (a task without one, full access, an approved escalation) run through
// sandbox.Cover: warden's state and the person's terminals are out of their
// reach (SPEC G16). Where user namespaces are missing, an escalation fails
// closed with an error that says why; other such commands run with a
// warning in their output, in a PID namespace only where warden may create
// one without a user namespace (it runs as root), and elsewhere only the
// command's process group is killed.
//
// A command that exits with a non-zero status is not an error: the model
// receives the output followed by a line "[exit status N]", so that it can read
// what failed and decide what to do. (Inspect's bash tool, in the versions we
// read, raises a tool error carrying only stderr instead; keeping the status
// with the result gives the model stdout and stderr together, in order, and
// leaves reviewers a plain result to judge.)
//
// Where there is no PID namespace, processes a command leaves running in the
// background are not killed when the shell exits. If they keep the command's
// output open, the call stops reading it one second after the shell exits and
// says so in a final note; redirecting their output (cmd >log 2>&1 &) avoids
// the wait.
//
// The package registers the tool as "bash" when imported.
//
// It runs on Unix systems only: process groups are a Unix notion.
package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/cutreport"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// Name is the name the tool is registered and called by.
const Name = "bash"

// defaultTimeout bounds a call when Options.Timeout is zero.
const defaultTimeout = 180 * time.Second

// defaultMaxBytes is how much output a call keeps when Options.MaxBytes is
// zero. It protects memory only: the agent loop truncates further for the
// model.
const defaultMaxBytes = 1 << 20

// timeoutOutputMax bounds the output a timeout error message carries; the
// whole output kept is returned beside the error.
const timeoutOutputMax = 16 << 10

// pipeGrace is how long a call keeps reading output after the shell has
// exited while background processes still hold its output open.
const pipeGrace = time.Second

func init() {
	toolbox.Register(Name, func(env toolbox.Env) (tool.Tool, error) {
		return New(Options{Dir: env.Dir, Timeout: env.Timeout, Sandbox: env.Sandbox, Rules: env.Rules}), nil
	})
}

// Options configures a bash tool.
type Options struct {
	// Dir is the directory commands run in; empty means the current
	// directory of this process.
	Dir string
	// Timeout bounds one call; zero or less means 180 seconds.
	Timeout time.Duration
	// MaxBytes bounds the output kept from one call; zero or less means 1
	// MiB. When a command prints more, the beginning and the end
	// are kept and the middle is replaced by a note of how many bytes were
	// dropped.
	MaxBytes int
	// Sandbox, when set, runs every command under the policy, kernel
	// enforced, and turns what it blocks into boundary requests (SPEC G1,
	// G2). Nil runs commands without a sandbox.
	Sandbox *sandbox.Policy
	// Rules, when set, judge every command before it runs: forbidden
	// commands are refused, prompt and dangerous ones need approval (G14).
	Rules *rules.Set
	// Inside keeps every command inside its sandbox by construction (SPEC
	// G4): no boundary request is ever made, whatever approver the context
	// holds. A command the rules send for approval or that asks for
	// escalated permissions is refused, and what the sandbox blocks is
	// reported to the caller as blocked, never retried wider. Without a
	// sandbox, or with full access, it runs nothing. The auto-reviewer's
	// shell sets it.
	Inside bool
}

// shellTool is the bash tool. Its calls may run in parallel with one another.
type shellTool struct {
	dir      string
	timeout  time.Duration
	maxBytes int
	shell    string
	sandbox  *sandbox.Policy
	rules    *rules.Set
	// inside forbids boundary requests (Options.Inside).
	inside bool
	// cover prepares a command that runs outside the sandbox:
	// sandbox.Cover (tests replace it to play a kernel without user
	// namespaces).
	cover func(*exec.Cmd) error
}

// New returns a bash tool configured by opts. Besides tool.Tool it is a
// tool.Viewer and an action.Describer.
func New(opts Options) tool.Tool { return newShell(opts) }

// newShell returns the bash tool New returns.
func newShell(opts Options) *shellTool {
	t := &shellTool{dir: opts.Dir, timeout: opts.Timeout, maxBytes: opts.MaxBytes, shell: findShell(), sandbox: opts.Sandbox, rules: opts.Rules, inside: opts.Inside, cover: sandbox.Cover}
	if t.timeout <= 0 {
		t.timeout = defaultTimeout
	}
	if t.maxBytes <= 0 {
		t.maxBytes = defaultMaxBytes
	}
	return t
}

// findShell returns the shell commands run with: /bin/bash, else a bash on
// PATH, else sh. It returns "" when there is no shell at all.
func findShell() string {
	for _, name := range []string{"/bin/bash", "bash", "/bin/sh", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

const parameters = `{
  "type": "object",
  "properties": {
    "cmd": {
      "type": "string",
      "description": "The bash command to execute."
    },
    "sandbox_permissions": {
      "type": "string",
      "enum": ["use_default", "require_escalated"],
      "description": "require_escalated asks to run this one command outside the sandbox; it needs approval."
    },
    "justification": {
      "type": "string",
      "description": "Why the command needs escalated permissions, for the person or reviewer who approves it."
    }
  },
  "required": ["cmd"],
  "additionalProperties": false
}`

// Info describes the tool to a model.
func (t *shellTool) Info() tool.Info {
	return tool.Info{
		Name: Name,
		Description: "Use this function to execute bash commands. The command runs with bash -c in the " +
			"task's working directory with an empty stdin; stdout and stderr are returned together. " +
			"A non-zero exit status is reported on a last line \"[exit status N]\". " +
			fmt.Sprintf("A command is killed after %s.", t.timeout),
		Parameters: json.RawMessage(parameters),
		Parallel:   true,
	}
}

// args are the arguments of a call.
type args struct {
	Cmd                *string `json:"cmd"`
	SandboxPermissions string  `json:"sandbox_permissions"`
	Justification      string  `json:"justification"`
}

// parseArgs decodes the arguments of a call, rejecting unknown ones.
func parseArgs(raw json.RawMessage) (args, error) {
	var a args
	if err := tool.DecodeArguments(Name, raw, &a); err != nil {
		return a, err
	}
	if a.Cmd == nil {
		return a, tool.Errorf(tool.ErrParsing, "arguments of %s: missing required argument \"cmd\"", Name)
	}
	if *a.Cmd == "" {
		return a, tool.Errorf(tool.ErrParsing, "arguments of %s: \"cmd\" is empty", Name)
	}
	switch a.SandboxPermissions {
	case "", useDefault, action.RequireEscalated:
	default:
		return a, tool.Errorf(tool.ErrParsing, "arguments of %s: sandbox_permissions %q: want %q or %q", Name, a.SandboxPermissions, useDefault, action.RequireEscalated)
	}
	return a, nil
}

// Run runs the command given by the "cmd" argument in raw and returns its
// combined output, followed by a line "[exit status N]" when it exits with a
// non-zero status (or "[killed by signal N (name)]" when a signal ended it).
//
// When the call's timeout passes first, the process group is killed and Run
// returns a *tool.Error of type timeout whose message includes the output so
// far (its middle cut beyond 16 KiB), and the output itself beside it. When ctx is done first, the process group is killed and Run returns an
// error wrapping ctx.Err() (which tool.AsError maps to cancelled, or to
// timeout for a deadline); the output so far is returned alongside it.
// Arguments that do not parse give a *tool.Error of type parsing.
func (t *shellTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("bash: not started: %w", err)
	}
	if t.shell == "" {
		return "", errors.New("bash: no shell found (looked for bash and sh)")
	}
	return t.governed(ctx, a)
}

// exec runs cmdline under p (nil: no sandbox) and returns its output as Run
// describes. escalated says that a full-access p was approved for this
// command alone (require_escalated, or a retry outside the sandbox).
func (t *shellTool) exec(ctx context.Context, cmdline string, p *sandbox.Policy, escalated bool) (string, error) {
	tctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()

	out := newCapBuffer(t.maxBytes)
	cmd := exec.CommandContext(tctx, t.shell, "-c", cmdline)
	cmd.Dir = t.dir
	cmd.Env = wardenhome.ToolEnv(os.Environ()) // never warden's own credentials
	cmd.Stdin = nil                            // the null device
	cmd.Stdout = out
	cmd.Stderr = out // the same writer: one pipe, so the order is kept
	// A session of its own: no controlling terminal, and a process group
	// (led by the shell, or the sandbox's helper) to kill.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var killed atomic.Bool
	cmd.Cancel = func() error {
		err := killGroup(cmd.Process)
		if !errors.Is(err, os.ErrProcessDone) {
			killed.Store(true)
		}
		return err
	}
	cmd.WaitDelay = pipeGrace
	var watch *sandbox.Watch // what Sweep compares with
	var uncovered string     // what a command outside the sandbox could reach here
	var err error
	if p != nil && p.Mode != sandbox.FullAccess {
		w, err := p.WatchAndWrap(cmd)
		if err != nil {
			return "", &tool.Error{Type: tool.ErrPermission, Message: "cannot start the command in the sandbox: " + err.Error()}
		}
		watch = w
	} else if uncovered, err = outside(cmd, t.cover, escalated); err != nil {
		return "", err
	} else {
		watch = sandbox.WatchState()
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("bash: starting the shell: %w", err)
	}
	err = cmd.Wait()
	output := out.String()
	if c := out.cut(); c != nil {
		// Cut at the capture limit: the result says so (truncated).
		cutreport.Say(ctx, c[0], c[1])
	}
	output = sweep(watch, output)
	if uncovered != "" {
		output = appendNote(output, uncovered)
	}

	if killed.Load() {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return output, fmt.Errorf("bash: command stopped: %w", ctxErr)
		}
		msg := fmt.Sprintf("command timed out after %s", t.timeout)
		if output == "" {
			msg += " with no output"
		} else {
			// The agent loop truncates results but not error messages.
			short := newCapBuffer(timeoutOutputMax)
			_, _ = short.Write([]byte(output))
			msg += "; output so far:\n" + short.String()
		}
		return output, &tool.Error{Type: tool.ErrTimeout, Message: msg}
	}

	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return output, nil
	case errors.Is(err, exec.ErrWaitDelay):
		return appendNote(output, fmt.Sprintf("[stopped reading output %s after the shell exited: background processes kept it open]", pipeGrace)), nil
	case errors.As(err, &exitErr):
		return appendNote(output, exitNote(exitErr)), nil
	}
	return output, fmt.Errorf("bash: waiting for the shell: %w", err)
}

// outside prepares cmd to run outside the sandbox (full access, an approved
// escalation, a task without a sandbox): with warden's state and the
// person's terminal out of its reach (cover is sandbox.Cover, SPEC G16). Where that
// cannot be done, an escalation fails closed with an error that says why;
// any other command runs as before (its process tree contained where
// warden may), and the note returned says what it could reach.
func outside(cmd *exec.Cmd, cover func(*exec.Cmd) error, escalated bool) (note string, err error) {
	err = cover(cmd)
	switch {
	case err == nil:
		return "", nil
	case !errors.Is(err, sandbox.ErrUnsupported):
		return "", fmt.Errorf("bash: %w", err)
	case escalated:
		return "", &tool.Error{Type: tool.ErrPermission, Message: "cannot run the command outside the sandbox: " + err.Error()}
	}
	if cerr := sandbox.Contain(cmd); cerr != nil && !errors.Is(cerr, sandbox.ErrUnsupported) {
		return "", fmt.Errorf("bash: %w", cerr)
	}
	return "[warden: warning: " + err.Error() + "]", nil
}

// sweep moves away the protected paths the command created (see
// sandbox.Watch) and says so after output.
func sweep(w *sandbox.Watch, output string) string {
	moved, err := w.Sweep()
	for _, q := range moved {
		output = appendNote(output, fmt.Sprintf("[warden: the command created the protected path %s; it was moved to %s]", q.Path, q.To))
	}
	if err != nil {
		output = appendNote(output, fmt.Sprintf("[warden: %v]", err))
	}
	return output
}

// killGroup kills the process group led by p. It returns os.ErrProcessDone
// when no process of the group is left.
func killGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// exitNote describes how a command that did not succeed ended.
func exitNote(e *exec.ExitError) string {
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("[killed by signal %d (%v)]", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("[exit status %d]", e.ExitCode())
}

// appendNote appends note to output on a line of its own.
func appendNote(output, note string) string {
	if output != "" && output[len(output)-1] != '\n' {
		output += "\n"
	}
	return output + note
}

// View renders a call for people as a bash code block.
func (t *shellTool) View(call tool.Call) tool.View {
	a, err := parseArgs(call.Arguments)
	if call.ParseError != "" || err != nil {
		return tool.View{Title: Name, Format: "text", Content: call.TextIn(tool.OrderOf(t))}
	}
	return tool.View{Title: Name, Format: "bash", Content: *a.Cmd}
}

var (
	_ tool.Tool   = (*shellTool)(nil)
	_ tool.Viewer = (*shellTool)(nil)
)
