// Package sandbox runs commands inside the boundary of SPEC §6 (G1, G2):
// what an agent may do without asking. A Policy names a Mode —
//
//   - read-only: read everything, write nothing (but /dev/null, /dev/tty
//     and other terminal and null devices);
//   - workspace-write: also write under the working directory, the
//     configured writable roots and the temporary directories (os.TempDir,
//     /tmp, /dev/shm), except protected paths;
//   - full-access: no restriction at all —
//
// and whether the network is on (it is off by default). Protected paths are
// .git, .warden and .agents at the top of every writable root; they stay
// read-only inside it. A .git that is a file ("gitdir: PATH", in worktrees
// and submodules) protects PATH too, and PATH's common git directory.
//
// Policy.Command (or Policy.Wrap) gives an *exec.Cmd whose process the
// kernel restricts; Policy.CanWrite makes the same decision in user space
// for tools that write from warden's own process; Denied and Policy.Blocked
// recognise, in a failed command's output, that the sandbox blocked a write
// or a connection, so that the caller can turn it into an approval
// request.
//
// # Enforcement on Linux
//
// Go runs no code between fork and exec, so a sandboxed command starts as a
// re-execution of the current program (/proc/self/exe) with a marker as
// argv[0], followed by the resolved policy as key=value arguments and the
// command's own argv. This package's init function
// recognises the marker — before main, and before the testing framework in
// test binaries, in every program that imports the package — restricts
// that process and then executes the command in its place (same process, so
// cmd.Process, signals, Wait and exit statuses are the command's own).
// Nothing of the marker reaches the command: its argv is its own and its
// environment is untouched. The parent process is never restricted.
//
// The helper, in order:
//
//  1. runs in new user, mount and network namespaces created by the
//     parent (SysProcAttr.Cloneflags, IDs mapped to themselves), and
//     checks that it does: a caller that replaced SysProcAttr gets exit
//     status ExitSetup, not an unprotected command;
//  2. with the network off, brings up the loopback interface of its empty
//     network namespace (commands can still serve and reach themselves on
//     127.0.0.1, not the host's services);
//  3. bind-mounts every protected path that exists read-only over itself,
//     in its private mount namespace (the command sees EROFS; the mount
//     point cannot be renamed or removed: EBUSY);
//  4. forbids nested user namespaces and leaves warden's controlling
//     terminal (so the command cannot type into warden's console with
//     TIOCSTI);
//  5. applies Landlock with the strict configuration for the kernel's
//     ABI (never best effort): read and execute everywhere; write (files,
//     directories, renames) under the writable roots; read, write and
//     terminal ioctls on the null, random and terminal devices; signals to
//     processes outside the sandbox, and abstract UNIX sockets with the
//     network off, are scoped out; no_new_privs is set;
//  6. drops every capability (for root: the bounding set too, and secure
//     bits so that uid 0 regains none on execve), since root in the
//     sandbox's user namespace could otherwise make the protected mounts
//     writable again (mount_setattr(2) is not subject to Landlock);
//  7. executes the command (exit status ExitNotFound or ExitCannotRun,
//     with a "warden: sandbox:" line on stderr, if that fails).
//
// Writes outside the writable roots fail with EACCES (Landlock); writes to
// protected paths with EROFS; connections with ENETUNREACH or, to the
// loopback, ECONNREFUSED; name resolution fails.
//
// # Why a network namespace
//
// The network is turned off with a network namespace, not Landlock's TCP
// rules: Landlock (ABI 4 to 9) restricts only TCP bind and connect — not
// UDP, so not DNS, nor ICMP, nor Multipath TCP, which Go's net.Listen uses
// by default — while an empty namespace cuts every protocol, abstract UNIX
// sockets included, and still gives the command a loopback interface of
// its own. Where user namespaces are not available (some container
// runtimes, distributions that restrict them), Namespaces reports why and
// the package falls back to Landlock alone: TCP bind and connect are denied
// (ABI 4 or later; Command refuses a network-off policy on older kernels),
// UDP only from ABI 10.
//
// Protected paths without namespaces rely on Landlock alone, whose rules
// only grant: a right on a directory holds for everything beneath it, so a
// writable root that contains a protected path gets no right of its own;
// each of its entries does instead, recursively down to the protected
// path. Everything but the protected path stays writable, but new entries
// cannot be created directly in the directories above it (a new file at the
// top of a git repository, say).
//
// Where the kernel has no Landlock, Command refuses read-only and
// workspace-write policies with an error wrapping ErrUnsupported, unless
// the policy is Unenforced (the user explicitly accepted it: warden's
// --sandbox-unenforced); namespaces and the other steps still apply then.
// Commands never run silently unsandboxed.
//
// # Limits
//
//   - A protected path that does not exist when a command starts (a
//     .warden in a root without one) can be created by it; CanWrite refuses
//     it anyway.
//   - Landlock (up to ABI 7 at least) does not restrict chmod, chown,
//     utime or extended attributes: a command can still change the mode or
//     times of files its user owns outside the writable roots (without
//     capabilities it cannot change others').
//   - Pathname UNIX sockets (a Docker socket, an SSH agent) outside the
//     sandbox stay reachable below Landlock ABI 9; from ABI 9 they are
//     reachable only with the network on.
//   - Commands run without capabilities even when warden runs as root, so
//     file permissions apply to them.
//   - Landlock checks paths when files are opened: reopening an inherited
//     output through /dev/stdout, /dev/stderr or /proc/self/fd fails when
//     it is a file outside the writable roots (pipes and terminals are
//     fine; warden exec passes output through pipes).
//
// # Callers
//
// The command inherits the policy through the executable: any program
// importing this package can start sandboxed commands, itself being the
// helper. Callers may set the command's Dir, Env, standard streams, Cancel,
// WaitDelay and fields of SysProcAttr (Setpgid, Pdeathsig), but must not
// replace SysProcAttr nor set credentials, ID mappings or namespaces. On
// other systems than Linux, only full-access and Unenforced policies run.
//
// Starting a sandboxed command costs a few milliseconds more than a plain
// one (the helper is a second program start, and new namespaces are
// created): see BenchmarkStartSandboxed.
package sandbox
