// Package dryrun runs a command once in a throw-away view of the world and
// reports what it did (SPEC G17, effect-based review): `warden exec
// --dry-run`, and the reviewers' dry run of a boundary request the first
// pass passes on.
//
// # Mechanisms
//
// The command runs through the sandbox's helper (sandbox.Policy.WrapDryRun;
// the helper's side is sandbox/internal/confine, dryrun_linux.go), in new
// user, mount, PID, network and IPC namespaces:
//
//   - files: an overlayfs view of the whole file system, each overlay's
//     upper layer in a tmpfs of the helper's, so that nothing the command
//     writes, deletes, renames or chmods reaches a real file. Overlayfs
//     rather than fanotify or ptrace: it needs no privileges (overlay
//     mounts are allowed in a user namespace), costs nothing per system
//     call, and the upper layer is the record of what changed — copy-ups
//     for files written or whose metadata changed, whiteouts for deletes,
//     opaque directories for directories removed and made again. The
//     effects are read from it after the run (see below);
//   - the network: an empty network namespace with its own loopback;
//     UNIX sockets, which reach servers through the file system whatever
//     the namespace, refused: datagram ones by the sandbox's seccomp
//     filter, connects of the others by the observer;
//   - programs, destinations and names (execs, network): package
//     internal/observe, seccomp user notification from the helper to an
//     Observer of this process, which records every execution, connect
//     and datagram's address, connects IP sockets on the command's behalf
//     with its own copy of the address, refuses UNIX ones, and answers
//     every name looked up NXDOMAIN from a resolver in the namespace;
//   - processes: its own PID namespace, the helper its init: when the
//     time budget ends, the helper is killed and the kernel kills every
//     process left in the namespace; no signal reaches a process outside
//     (the command cannot name one). Its own IPC namespace keeps System V
//     objects out of reach, and a session keyring of its own warden's keys;
//   - the person's terminal: a new session without a controlling terminal,
//     stdin from /dev/null, stdout and stderr captured (cut to
//     OutputLimit), a /dev of its own with no terminal of the person's;
//   - warden's state: covered as in every mode (an empty, unreadable
//     tmpfs over $WARDEN_HOME's directories);
//   - budgets: time (Request.Timeout, DefaultTimeout by default): a
//     command still running then is killed with its namespace and
//     reported timed_out; memory (Request.Memory, DefaultMemory by
//     default): RLIMIT_DATA on every process of the command (cgroups
//     are not delegated to unprivileged users everywhere, and a
//     per-process limit needs no set-up), and the size of the tmpfs that
//     holds the upper layers, so files it writes count too.
//
// Where the kernel lacks one of these (no user namespaces, no seccomp, no
// overlayfs in a user namespace, no fsmount(2)), Supported says so, and
// Run refuses: nothing runs.
//
// # Effects from the upper layers
//
// Each overlay's upper layer is walked after the run and compared with the
// real file system (the lower layer, as it is): a regular file or link
// that exists in both and differs in content is a write; one whose mode,
// owner or reported extended attributes (the user's own, a file
// capability, access control lists: set or changed, not removed) differ,
// a chmod (overlayfs in a user namespace has no metadata-only
// copy-up: a chmod copies the file up, and equal contents tell it apart
// from a write); one that exists only in the upper layer, a create (with
// everything under a new directory); a whiteout over an existing path, a
// delete; an opaque directory, the delete of each entry of the real
// directory it hides. Paths are absolute, as the command saw them.
//
// Renames are best-effort: overlayfs in a user namespace records no
// redirects (renaming a directory that exists below fails with EXDEV, and
// mv copies it instead), so a rename shows as a create and a delete. A
// created regular file whose contents and mode equal those of a deleted
// one is reported as a rename from it, and so is a created directory whose
// tree (names, types, modes, contents) equals a deleted one's; a copy
// followed by removing the original looks the same and is reported the
// same way.
//
// The credential stores of the user's (sandbox's list: ~/.ssh, ~/.aws,
// ~/.netrc…) are watched in the view with fanotify (unprivileged: an inode
// mark per store, on the file or on the files directly in a directory),
// one group each, which the helper sends the parent before the command
// starts; a group whose queue holds an event once the command has ended is
// a read: of the file, or of the directory's files the events name
// (FAN_REPORT_DFID_NAME).
// fanotify rather than the upper layer (reads copy nothing up) or a
// seccomp notification on open (paths read from the command's memory race
// with it).
//
// Times alone (touch) are not reported: an access or modification time
// is not an effect a reviewer judges.
package dryrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/observe"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/sandbox"
)

// Budgets and limits of a dry run by default.
const (
	// DefaultTimeout is the time budget when Request.Timeout is 0.
	DefaultTimeout = 5 * time.Second
	// DefaultMemory is the memory budget, in bytes, when Request.Memory
	// is 0.
	DefaultMemory = 1 << 30
	// OutputLimit is the most of the output a Report keeps: its
	// beginning and end, the middle cut out.
	OutputLimit = 16 << 10
	// MinMemory is the smallest memory budget Run accepts, in bytes: a
	// shell needs a few MiB to start at all.
	MinMemory = 16 << 20
)

// Request is one dry run.
type Request struct {
	Argv []string // the command and its arguments; Argv[0] is looked up in PATH
	Dir  string   // working directory; empty: this process's
	Env  []string // environment; nil: this process's; warden's credentials are always left out
	// Policy gives the writable roots (to find warden's state to cover);
	// its mode and network are not used: a dry run writes only its view
	// and has no network.
	Policy sandbox.Policy
	// Timeout is the time budget (DefaultTimeout when 0; negative is an
	// error).
	Timeout time.Duration
	// Memory is the memory budget in bytes (DefaultMemory when 0; at
	// least MinMemory).
	Memory int64
	// Ignore are paths the runner itself put into the view, not reported
	// as effects (with everything under them).
	Ignore []string
	// Recorders observe the command while it runs, besides its files
	// (the programs it starts, the destinations it tries).
	Recorders []Recorder
}

// A Recorder observes a dry run while it runs and adds what it saw to the
// report. A recorder's failure fails the dry run (nothing is reported
// rather than an incomplete report).
type Recorder interface {
	// Attach is called once the helper has started, with its process ID
	// and the function that receives, by name, the descriptors the helper
	// sends before the command starts (sandbox.Policy.WrapDryRun).
	Attach(ctx context.Context, pid int, receive func(name string) (*os.File, error)) error
	// Finish is called once the command and everything it started have
	// ended; it adds what was recorded to rep.
	Finish(rep *effect.Report) error
}

// Supported reports whether dry runs work on this kernel (nil), or what it
// lacks (an error wrapping sandbox.ErrUnsupported).
func Supported() error {
	_, err := sandbox.Policy{}.WrapDryRun(nil, 0, nil)
	return err
}

// Run runs req's command once in a throw-away view and returns what it did.
// An error means the dry run could not be done or read (nothing is known
// of the command's effects, and nothing reached the real world): it never
// comes with a partial report.
func Run(ctx context.Context, req Request) (effect.Report, error) {
	if len(req.Argv) == 0 {
		return effect.Report{}, errors.New("dryrun: no command")
	}
	if err := Supported(); err != nil {
		return effect.Report{}, err
	}
	timeout := req.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	memory := req.Memory
	if memory == 0 {
		memory = DefaultMemory
	}
	if timeout < 0 || memory < MinMemory {
		return effect.Report{}, fmt.Errorf("dryrun: a time budget of %v and a memory budget of %d bytes: too small (at least %d bytes)", timeout, memory, MinMemory)
	}
	rep := empty()
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	if errors.Is(cmd.Err, exec.ErrNotFound) {
		rep.Exit = 127
		rep.Output = fmt.Sprintf("%s: command not found\n", req.Argv[0])
		return rep, nil
	}
	cmd.Dir = req.Dir
	env := req.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = wardenhome.ToolEnv(env) // never warden's own credentials
	if req.Policy.Workdir == "" {
		req.Policy.Workdir = req.Dir
	}
	// The programs it starts, the destinations it tries and the names it
	// looks up: recorded in every dry run.
	o, err := observe.New()
	if err != nil {
		return effect.Report{}, fmt.Errorf("dryrun: %w", err)
	}
	defer o.Stop() // once more is harmless: Finish stops it first
	recorders := append([]Recorder{o}, req.Recorders...)
	receive, err := req.Policy.WrapDryRun(cmd, memory, o)
	if err != nil {
		return effect.Report{}, err
	}
	// Whatever the outcome, every descriptor the helper sent is closed
	// (receive returns once the helper is gone: after Wait, or a Start
	// that failed).
	defer func() {
		for {
			f, err := receive("*")
			if err != nil {
				return
			}
			f.Close()
		}
	}()
	out := &capped{max: 4 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return effect.Report{}, fmt.Errorf("dryrun: %w", err)
	}
	for _, r := range recorders {
		if err := r.Attach(ctx, cmd.Process.Pid, receive); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return effect.Report{}, fmt.Errorf("dryrun: %w", err)
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-timer.C:
		rep.TimedOut = true
		_ = cmd.Process.Kill()
		werr = <-done
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return effect.Report{}, ctx.Err()
	}
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		rep.Exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			rep.Exit = 128 + int(ws.Signal())
		}
	default:
		if !rep.TimedOut {
			return effect.Report{}, fmt.Errorf("dryrun: %w", werr)
		}
	}
	output := out.String()
	view, err := receive("view")
	if err != nil {
		return effect.Report{}, fmt.Errorf("dryrun: %w: %s", err, textcut.Shorten(output, 400))
	}
	defer view.Close()
	if err := diff(view, &rep, req.Ignore); err != nil {
		return effect.Report{}, fmt.Errorf("dryrun: reading the view: %w", err)
	}
	rep.Reads = reads(receive)
	for _, r := range recorders {
		if err := r.Finish(&rep); err != nil {
			return effect.Report{}, fmt.Errorf("dryrun: %w", err)
		}
	}
	rep.Output, rep.OutputCut = textcut.Middle(output, OutputLimit)
	if out.dropped > 0 {
		rep.OutputCut = true
	}
	return rep, nil
}

// empty returns a Report whose lists are empty, not nil, so that they
// print as [] in JSON.
func empty() effect.Report {
	return effect.Report{
		Writes: []string{}, Creates: []string{}, Deletes: []string{}, Renames: []effect.Rename{},
		Chmods: []effect.Chmod{}, Reads: []string{}, Execs: []effect.Exec{}, Network: []effect.Dest{},
	}
}

// capped keeps what is written to it up to max bytes, its beginning and
// end, and counts what it dropped in between.
type capped struct {
	mu      sync.Mutex
	max     int
	head    bytes.Buffer
	tail    []byte
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := c.max/2 - c.head.Len(); room > 0 {
		k := min(room, len(p))
		c.head.Write(p[:k])
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - c.max/2; over > 0 {
		c.dropped += over
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return n, nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head.String() + string(c.tail)
}
