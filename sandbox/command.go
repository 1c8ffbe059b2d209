package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// The entry points of the sandbox, documented once; the work is done per
// platform (command_linux.go, and command_other.go where nothing can be
// enforced).

// ErrUnsupported is wrapped by the errors of Supported and of Command when
// the kernel (or, outside Linux, the system) cannot enforce the policy.
var ErrUnsupported = errors.New(unsupportedText)

// Supported returns the Landlock ABI version the running kernel offers,
// or 0 and an error (wrapping ErrUnsupported when the kernel has no
// Landlock) saying why commands cannot be restricted. Outside Linux there
// is no Landlock.
func Supported() (abi int, err error) { return supported() }

// Namespaces reports whether sandboxed commands run in new user, mount,
// PID and network namespaces (nil), or why not (then Landlock alone
// restricts them: see the package documentation's limits). Outside Linux
// there are none.
func Namespaces() error { return namespaces() }

// Command returns an *exec.Cmd that runs name with args under the policy,
// like exec.CommandContext, in the working directory (Dir is Workdir). In
// full-access mode it is a plain command. Otherwise the command is started
// through this program's own executable, which restricts itself and then
// executes name (see the package documentation); the caller may set Dir,
// Env, Stdin, Stdout, Stderr, Cancel, WaitDelay and fields of SysProcAttr
// (but must not replace SysProcAttr) before starting it.
//
// It returns an error when the kernel cannot enforce the policy (outside
// Linux: in any mode but full access) and the policy is not Unenforced, and
// for an invalid mode.
func (p Policy) Command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = p.Workdir
	if err := p.Wrap(cmd); err != nil {
		return nil, err
	}
	return cmd, nil
}

// Wrap changes cmd, not yet started, so that it runs under the policy:
// its Path and Args are replaced by a re-execution of this program that
// restricts itself and then starts the original Path with the original
// Args as its only child (init of the command's PID namespace where there
// are namespaces: when it ends or is killed, everything the command started
// ends too), and namespace settings are added to a copy of its SysProcAttr
// (whose other fields are kept, such as Setpgid or Setsid). In full-access
// mode cmd is left unchanged (see Contain). A command whose name was not
// found (cmd.Err set) is left unchanged too, so that Start reports that as
// usual. ExtraFiles are refused: only the standard streams reach the
// command. When this process runs as root, Wrap also starts a goroutine
// that writes the helper's ID maps when it asks: it ends once it answered,
// or else (a helper killed before it asked, a command that never started)
// once the helper is gone and cmd is garbage. Outside Linux, Wrap leaves cmd unchanged in full-access mode or
// when the policy is Unenforced, and otherwise returns an error.
func (p Policy) Wrap(cmd *exec.Cmd) error { return p.wrap(cmd, nil) }

// Contain changes cmd, not yet started, so that when it ends, or is
// killed, every process it started ends too, including those that left
// its session or process group (setsid, double forks): it runs as the only
// child of a helper that is init of a new PID namespace, and the kernel
// kills the namespace when the helper exits. It also gets a mount namespace,
// only for a /proc of its own PID namespace (the command's own mounts
// propagate as they would without it). Nothing else changes: the
// command keeps every privilege (this is for full-access commands, which
// Policy.Wrap leaves unchanged). Its background processes end with it, and
// a command killed by signal N exits with status 128+N instead.
//
// PID namespaces need CAP_SYS_ADMIN; granting it through a user namespace
// would change what a full-access command may do, so where this process
// lacks it (warden does not run as root), Contain leaves cmd unchanged and
// returns an error wrapping ErrUnsupported: killing the command's process
// group is all that is left, and processes that left it survive. Outside
// Linux, Contain always returns such an error.
func Contain(cmd *exec.Cmd) error { return contain(cmd) }

// WrapDryRun changes cmd, not yet started and without ExtraFiles or
// SysProcAttr, so that it runs once in a throw-away view (SPEC G17): a
// copy-on-write overlay of the whole file system whose upper layers are
// in a tmpfs of the helper's (at most memory bytes; 0: the kernel's
// default), the network off but for its own loopback, UNIX sockets
// refused, its own PID and IPC namespaces, a new session without a
// controlling terminal, warden's state hidden, and a memory budget
// (RLIMIT_DATA of memory bytes, when not 0) — nothing it does reaches
// a real file, process, terminal or the network. The policy's mode and
// network are not used: only its roots, to find warden's state.
//
// The returned function, called once cmd has started, gives a descriptor
// the helper sent by its name, waiting for it, or an error once the helper
// can send no more: "view" is the staging tmpfs (see package
// sandbox/internal/confine, dryrun_linux.go: directories N/u are the upper
// layers, the file "layers" maps N to the directory overlaid), which the
// caller reads once cmd has ended, then closes; "read:PATH" are fanotify
// groups, one per credential store of the user's the dry run watches,
// whose queue holds an event once the command opened it (a name ending
// in "*" gives any one not given yet whose name starts with the rest; the
// file's Name is the full name); recorders of the dry run add their own
// names (confine.SendToParent). With a nil cmd, WrapDryRun only reports
// whether the kernel can do dry runs (an error wrapping ErrUnsupported
// when it cannot).
func (p Policy) WrapDryRun(cmd *exec.Cmd, memory int64) (func(name string) (*os.File, error), error) {
	return p.wrapDryRun(cmd, memory)
}
