package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/wardenhq/warden/internal/cli"
	"github.com/wardenhq/warden/internal/dryrun"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hook/askhint"
	"github.com/wardenhq/warden/internal/safetext"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/sandbox"
)

// Exit statuses of warden exec besides the command's own (as env(1) and
// timeout(1) use them).
const (
	exitSandbox   = 125 // the sandbox cannot be set up; nothing ran
	exitCannotRun = 126 // the command could not be executed
	exitNotFound  = 127 // the command was not found
)

const execUsage = `usage: warden exec [--sandbox MODE] [--writable-root DIR]... [--network] [--sandbox-unenforced] [--hint-host HOST] -- CMD [ARG...]
       warden exec --dry-run [--json] [--dry-run-timeout D] [--writable-root DIR]... -- CMD [ARG...]

Runs CMD in the current directory under the sandbox and exits with its status.
MODE is read-only, workspace-write (default) or full-access. With --hint-host
(set by warden hook HOST --sandbox), a blocked action's hint says how the model
asks for more in that host's own way.

With --dry-run, CMD runs once in a throw-away copy-on-write view (nothing it
does reaches a real file, process, terminal or the network; a time and memory
budget) and warden prints what it would have done, as JSON with --json; exit
0 when the dry run was done (CMD's status is in the report), 125 when this
kernel cannot do dry runs (nothing ran).
`

// stringList is a repeatable string flag.
type stringList = cli.List

// execCmd implements `warden exec`: it runs a command under the sandbox,
// passing stdin, stdout and stderr through, and exits with the command's
// status (128+N when signal N ended it). When the command fails and its
// output shows the sandbox blocked it, a line on stderr says so and how to
// allow it.
func execCmd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden exec", execUsage, stderr)
	fset := c.fs
	var (
		mode       = fset.String("sandbox", string(sandbox.WorkspaceWrite), "sandbox mode: read-only, workspace-write or full-access")
		roots      stringList
		network    = fset.Bool("network", false, "allow network access (off by default)")
		unenforced = fset.Bool("sandbox-unenforced", false, "run even where the kernel cannot enforce the sandbox (no Landlock)")
		hintHost   = fset.String("hint-host", "", "word a blocked action's hint for the coding agent `HOST` whose shell call this is (see warden hook)")
		dryRun     = fset.Bool("dry-run", false, "run CMD once in a throw-away view and print what it would do")
		asJSON     = fset.Bool("json", false, "with --dry-run: print the report as JSON")
		dryTimeout = fset.Duration("dry-run-timeout", dryrun.DefaultTimeout, "with --dry-run: the time budget `D`; CMD still running then is stopped")
	)
	fset.Var(&roots, "writable-root", "an extra writable directory `DIR` in workspace-write mode (repeatable)")
	argv, code, ok := c.parse(args, false, stdout)
	if !ok {
		return code
	}
	if len(argv) == 0 {
		return c.fail("no command given")
	}
	if *hintHost != "" {
		if _, err := hook.Lookup(*hintHost); err != nil {
			fmt.Fprintf(stderr, "warden: --hint-host: %v\n", err)
			return exitUsage
		}
	}
	m, err := sandbox.ParseMode(*mode)
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitSandbox
	}
	for i, r := range roots {
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "warden: --writable-root %s: not a directory\n", r)
			return exitUsage
		}
		if roots[i], err = filepath.Abs(r); err != nil {
			fmt.Fprintf(stderr, "warden: --writable-root %s: %v\n", r, err)
			return exitUsage
		}
	}
	// The command never works in warden's own state (SPEC G16).
	if err := wardenhome.CheckRoot("the working directory", wd); err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	for _, r := range roots {
		if err := wardenhome.CheckRoot("--writable-root", r); err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			return exitUsage
		}
	}
	p := sandbox.Policy{Mode: m, Workdir: wd, WritableRoots: roots, NetworkAccess: *network, Unenforced: *unenforced}
	if *dryRun {
		req := dryrun.Request{Argv: argv, Dir: wd, Env: wardenhome.ToolEnv(os.Environ()), Policy: p, Timeout: *dryTimeout}
		return dryRunCmd(req, append([]string{wd}, roots...), *asJSON, stdout, stderr)
	}
	if *asJSON || *dryTimeout != dryrun.DefaultTimeout {
		return c.fail("--json and --dry-run-timeout go with --dry-run")
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = wd
	cmd.Env = wardenhome.ToolEnv(os.Environ()) // never warden's own credentials
	// Wrapped and watched with one walk of the roots.
	watch, err := p.WatchAndWrap(cmd)
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitSandbox
	}
	if m == sandbox.FullAccess {
		watch = sandbox.WatchState()
		// As under `warden run`: warden's state and the person's other
		// terminals stay out of reach (SPEC G16), and processes the
		// command leaves behind end with it. Where that cannot be done,
		// the command runs all the same, after a warning of what it can
		// reach, its process tree ended where warden may make a PID
		// namespace (as root).
		if err := sandbox.Cover(cmd); err != nil {
			if !errors.Is(err, sandbox.ErrUnsupported) {
				fmt.Fprintf(stderr, "warden: %v\n", err)
				return exitSandbox
			}
			fmt.Fprintf(stderr, "warden: warning: %v\n", err)
			if err := sandbox.Contain(cmd); err != nil && !errors.Is(err, sandbox.ErrUnsupported) {
				fmt.Fprintf(stderr, "warden: %v\n", err)
				return exitSandbox
			}
		}
	}
	cmd.Stdin = os.Stdin
	var captured []*tailBuffer
	cmd.Stdout, captured = capture(stdout, captured)
	cmd.Stderr, captured = capture(stderr, captured)

	// Protected paths the command created are moved away once it has
	// ended, whatever the outcome.
	defer func() {
		moved, err := watch.Sweep()
		for _, q := range moved {
			fmt.Fprintf(stderr, "warden: the command created the protected path %s; it was moved to %s\n", q.Path, q.To)
		}
		if err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
		}
	}()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return exitNotFound
		}
		return exitCannotRun
	}
	// warden outlives the command to report how it ended. Signals typed at
	// a terminal reach the command directly (it stays in warden's process
	// group), so warden only catches them; SIGTERM, sent to warden alone,
	// is passed on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGTERM {
					_ = cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	close(done)

	status := exitOK
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		status = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	default:
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitCannotRun
	}
	var out strings.Builder
	for _, c := range captured {
		out.WriteString(c.String())
		out.WriteByte('\n')
	}
	if b, ok := p.Blocked(out.String(), nil); ok {
		fmt.Fprintf(stderr, "warden: blocked by the sandbox (%s): %s\n", m, p.Explain(b))
		if hint, ok := askhint.AskHint(*hintHost, p, b); ok {
			fmt.Fprintf(stderr, "warden: %s\n", hint)
		} else {
			fmt.Fprintf(stderr, "warden: to allow it, %s\n", allowHint(p, b))
		}
	}
	return status
}

// dryRunCmd implements `warden exec --dry-run`: it runs req once in a
// throw-away view and prints the report, as JSON or as a short summary
// (the one the reviewer and the person read, paths in roots told apart).
func dryRunCmd(req dryrun.Request, roots []string, asJSON bool, stdout, stderr io.Writer) int {
	if req.Timeout <= 0 {
		fmt.Fprintln(stderr, "warden: --dry-run-timeout must be positive")
		return exitUsage
	}
	rep, err := dryrun.Run(context.Background(), req)
	if err != nil {
		fmt.Fprintf(stderr, "warden: dry run: %v\n", err)
		return exitSandbox // nothing ran
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			return exitCannotRun
		}
		return exitOK
	}
	fmt.Fprintln(stdout, safetext.Escape(rep.Summary(roots, 4000)))
	if rep.Output != "" {
		fmt.Fprintln(stdout, "output:")
		for _, l := range strings.Split(strings.TrimSuffix(safetext.Escape(rep.Output), "\n"), "\n") {
			fmt.Fprintln(stdout, "  | "+l)
		}
	}
	return exitOK
}

// allowHint says which flags would have allowed a blocked action: the
// narrowest (sandbox.Policy.Allow), and full access as the last resort.
func allowHint(p sandbox.Policy, b sandbox.Block) string {
	flag := p.Allow(b)
	hint := "run again with " + flag
	switch {
	case b.Kind == sandbox.KindNetwork && b.DNS:
		hint = "name resolution needs the network: " + hint
	case b.Kind == sandbox.KindNetwork:
		hint += " (UNIX sockets are refused with the network off, even ones inside the workspace: nothing tells them apart soundly from those outside)"
	case b.Protected:
		hint += " (protected paths and warden's own state stay read-only in every other mode)"
	case b.Kind == sandbox.KindWrite && b.Path == "":
		hint = "run again with --writable-root DIR for the directory it writes to, or --sandbox full-access"
	}
	if flag != "--sandbox full-access" && b.Kind != sandbox.KindNetwork {
		hint += ", or --sandbox full-access"
	}
	return hint
}

// capture returns the writer a command should write to instead of w: w
// itself when it is a terminal (an interactive program keeps its
// terminal), else w teed into a tail buffer, which is appended to list.
func capture(w io.Writer, list []*tailBuffer) (io.Writer, []*tailBuffer) {
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&fs.ModeCharDevice != 0 {
			return w, list
		}
	}
	t := &tailBuffer{max: 64 << 10}
	return io.MultiWriter(w, t), append(list, t)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
