// Package sandbox runs commands inside the boundary of SPEC §6 (G1, G2):
// what an agent may do without asking. A Policy names a Mode —
//
//   - read-only: read everything, write nothing (but /dev/null, /dev/tty
//     and other terminal and null devices);
//   - workspace-write: also write under the working directory and the
//     configured writable roots, except protected paths, and in private
//     temporary directories at /tmp, /dev/shm and os.TempDir (see below);
//   - full-access: no restriction at all —
//
// and whether the network is on (it is off by default). Protected paths are
// .git, .warden and .agents in every writable root, at any depth; they stay
// read-only inside it. A .git that is a file ("gitdir: PATH", in worktrees
// and submodules) protects PATH too, and PATH's common git directory.
// Warden's own state ($WARDEN_HOME, ~/.warden, the managed
// configuration) is protected in every mode.
//
// Policy.Command (or Policy.Wrap) gives an *exec.Cmd whose process the
// kernel restricts; Policy.Watch and Watch.Sweep, around it, move away the
// protected paths it created (see below); Policy.CanWrite makes the same
// decision in user space for tools that write from warden's own process;
// Policy.Blocked recognises, in a failed command's output, what
// the sandbox blocked (a write, a change of metadata, a read that needs
// privileges, the network, a process or privileged operation), and
// Policy.Allow names the narrowest flag that would allow it, so that the
// caller can turn it into an approval request. Cover runs commands outside
// the sandbox (full access, escalations, tasks without a sandbox) with
// warden's state and the person's terminals out of their reach (see
// below); Contain, where Cover cannot, runs them in a PID namespace of
// their own.
//
// # Enforcement on Linux
//
// Go runs no code between fork and exec, so a sandboxed command starts as a
// re-execution of the current program (/proc/self/exe) with a marker as
// argv[0], followed by the resolved policy as key=value arguments and the
// command's own argv. The init function of package
// sandbox/internal/confine, which this package imports, recognises the
// marker — before main, before the testing framework in test binaries, and
// before the initialisers of most other packages (confine imports little,
// so Go initialises it early) — restricts that process and then starts the
// command. Nothing of the marker reaches the command: its argv
// is its own and its environment is untouched. The parent process is never
// restricted.
//
// The helper, in order:
//
//  1. runs in new user, mount, PID and network namespaces created by the
//     parent (SysProcAttr.Cloneflags, IDs mapped to themselves), and
//     checks that it does: a caller that replaced SysProcAttr gets exit
//     status confine.ExitSetup, not an unprotected command. The parent starts it
//     with vfork(2) semantics like any command, without copying its own
//     memory (a cost that would grow with warden's: see addNamespaces and
//     BenchmarkStartLargeHeap), so the ID maps are written after it
//     started, before anything else: for anyone but root the helper
//     writes its own (its user and group ID, setgroups denied); root's map
//     of every ID (setgroups allowed) needs privileges only the parent
//     has, so the helper asks the parent for it over an inherited socket,
//     waits until its IDs are mapped, and closes the socket (exit status
//     confine.ExitSetup if the maps could not be written);
//  2. with the network off, brings up the loopback interface of its empty
//     network namespace (commands can still serve and reach themselves on
//     127.0.0.1, not the host's services), on another thread while steps 3
//     to 6 go on, and waits for it before step 7;
//  3. forbids nested user namespaces;
//  4. makes the file system read-only: every mount of its private mount
//     namespace turns read-only (mount_setattr(2), recursively), after the
//     writable roots were cloned with their submounts (open_tree(2)); the
//     clones are then attached at the roots' own paths (move_mount(2)).
//     Outside the roots nothing changes, metadata included: chmod, chown,
//     utime, extended attributes, links and renames fail with EROFS,
//     which Landlock alone does not stop;
//  5. bind-mounts every protected path that exists (at any depth of the
//     working directory and configured roots) and warden's state, where
//     they lie in a writable root, read-only over themselves (EROFS; the
//     mount point cannot be renamed or removed: EBUSY); then, in
//     workspace-write mode, covers the temporary directories with private
//     ones and binds the roots under them back (see "Temporary
//     directories");
//  6. mounts a /proc of its PID namespace (read-only), so that ps and
//     /proc/self agree with the command's process IDs, and a /dev of its
//     own (read-only): the null, zero, full, random and terminal devices
//     bound from the host's, a devpts instance of its own (/dev/ptmx
//     leads to it) and /dev/shm — no block device (reading one reads
//     past every cover) and no terminal of the person's, whose
//     /dev/pts/N a command could otherwise open and draw on;
//  7. leaves warden's controlling terminal (so the command cannot type
//     into warden's console with TIOCSTI);
//  8. applies Landlock with the strict configuration for the kernel's
//     ABI (never best effort): read and execute everywhere; write (files,
//     directories, renames) under the writable roots; read, write and
//     terminal ioctls on the null, random and terminal devices; signals to
//     processes outside the sandbox, and abstract UNIX sockets with the
//     network off, are scoped out; no_new_privs is set;
//  9. with the network off, installs the seccomp filter that allows only
//     the sockets a command needs on its own loopback and stream UNIX
//     socketpairs (see below);
//  10. drops every capability (for root: the bounding set too, and secure
//     bits so that uid 0 regains none on execve), since root in the
//     sandbox's user namespace could otherwise make the read-only mounts
//     writable again (mount_setattr(2) is not subject to Landlock);
//  11. becomes non-dumpable (the command cannot ptrace it nor read its
//     memory) and starts the command as its only child, forked from the
//     restricted thread, which passes the restrictions on (exit status
//     confine.ExitNotFound or confine.ExitCannotRun, with a "warden: sandbox:" line on
//     stderr, if that fails); as init of the PID namespace it reaps
//     orphans and exits with the command's status. When it exits, or is
//     killed (a cancelled call), the kernel kills every process left in
//     the namespace, including those that called setsid or double-forked:
//     background processes end with the command. A command killed by
//     signal N gives exit status 128+N (init cannot be killed by its own
//     signals). SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 sent to the helper are
//     passed on; SIGINT and SIGQUIT from a terminal reach the command
//     directly.
//
// Writes outside the writable roots fail with EROFS (the read-only view;
// EACCES from Landlock where there are no namespaces); writes to protected
// paths with EROFS; renames between two writable roots with EXDEV (each is
// a mount of its own; mv copies instead); connections with ENETUNREACH or,
// to the loopback, ECONNREFUSED; name resolution fails; UNIX sockets (but
// stream socketpairs) and sockets of other families fail with EACCES.
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
// # Why seccomp for UNIX sockets
//
// A pathname UNIX socket is reached through the file system, not the
// network namespace: a server listening on /var/run/docker.sock, an SSH
// agent's socket in /tmp, D-Bus or X11 answer any process that can name
// them, whatever its network namespace, and connecting needs no write
// access Landlock checks before its ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX)
// nor a writable mount. The mechanisms considered:
//
//   - Landlock's scoping of abstract UNIX sockets (ABI 6) covers abstract
//     ones only; the network namespace already separates those.
//   - Hiding the usual directories (/run, /var/run, $XDG_RUNTIME_DIR, the
//     SSH agent's) with mounts leaves every other place a socket can be.
//   - A seccomp filter that inspects connect(2)'s address, or user
//     notification that reads it, races with the command changing the
//     address between the check and the kernel reading it again (the
//     kernel documentation says so of SECCOMP_USER_NOTIF_FLAG_CONTINUE).
//   - A seccomp filter on integer arguments only, as an allow-list
//     (confine.UnixSocketFilter): socketpair(2) succeeds only for AF_UNIX
//     with SOCK_STREAM, the type compared whole once SOCK_NONBLOCK and
//     SOCK_CLOEXEC are cleared, since any socket that is not connected
//     for good can be connected again to any address (a datagram socket,
//     even one of a pair; SOCK_RAW, which the kernel turns into a datagram
//     socket; seqpacket too is left out); socket(2) succeeds only for the
//     families, types and protocols a command needs in its network
//     namespace (confine.AllowedSockets: TCP, Multipath TCP, UDP and ICMP
//     datagram sockets over IPv4 and IPv6, which reach only its own
//     loopback, and route netlink for `ip`, getifaddrs(3) and Go's
//     net.Interfaces), never AF_UNIX, whatever its type. Every other
//     family, type, protocol or flag fails with EACCES, among them values
//     the filter does not know (a future type is refused, not allowed),
//     AF_VSOCK (which reaches the hypervisor's host whatever the network
//     namespace), AF_PACKET, AF_ALG, other netlink protocols, raw sockets,
//     SCTP and DCCP (whose first use may load kernel modules). io_uring,
//     which can create and connect sockets without these system calls, is
//     refused with ENOSYS (programs fall back). Nothing is read from the
//     command's memory: there is no race. On x86-64, 32-bit socketcall(2)
//     (whose arguments are in memory) and every x32 system call are
//     refused too; 32-bit socket(2) and socketpair(2) are checked as the
//     native ones.
//
// The last is what the package does. Its price: with the network off, a
// command cannot use UNIX sockets of its own either (a test server on a
// socket in the workspace), since nothing sound on current kernels tells
// a socket inside the workspace from one outside: unreachable-outside
// wins. Stream socketpair(2) keeps working (pipes between a program's own
// processes), and --network restores everything (the filter is not
// installed then). Without seccomp filters (a kernel without
// CONFIG_SECCOMP_FILTER, or another architecture than amd64 and arm64)
// network-off policies are refused unless Unenforced.
//
// # Temporary directories
//
// /tmp, /dev/shm and os.TempDir ($TMPDIR) are where programs write what
// they need for a while, and where people keep things too: a repository
// cloned to /tmp, an SSH agent's socket. A workspace-write command gets
// private ones (SPEC G16): in its mount namespace each is covered, after
// the protected paths are bound, with the run's own directory under
// Policy.TempDir (its subdirectories tmp, shm and tmpdir, kept between the
// run's commands, which warden removes with the run: a task's are under
// $WARDEN_HOME/tmp/RUN_ID), or, without one, with a new tmpfs that goes
// when the command ends (warden exec). So nothing it writes there meets
// the person, or a command run outside the sandbox, later (a .git with
// core.fsmonitor made in /tmp, a hook planted in a person's repository
// there), and nothing of theirs there is in its reach, to read or to
// change: what an approved command outside the sandbox left in /tmp is not
// seen either (put it in the workspace). An overlay with the host's
// directory as its read-only lower layer would show the host's files and
// keep changes private, but its teardown waits for an RCU grace period:
// it made every workspace-write start about 1.5 times as slow here. A
// temporary directory inside the workspace or a configured root
// ($TMPDIR in the workspace, a workspace at /tmp itself) is that root's and
// is not covered; a root under a covered one (a workspace under /tmp, as
// a temporary workdir or a test's is) is bound back at its own path with
// everything mounted in it, protected paths included; a $TMPDIR inside
// /tmp is made in the private /tmp. The program the command starts, when
// it lies in a covered directory (a test binary, a program built there),
// is bound alone, read-only, at its resolved path. Everything the helper
// mounts is opened first, by descriptors that follow no link (what the
// run left in its own directories is removed where a mount point must
// go). Read-only commands see the host's temporary directories, read-only
// like the rest. Policy.CanWrite refuses the host's temporary directories:
// a tool writing from warden's own process would write the person's.
// Without a mount namespace there are no private temporary directories,
// and the host's are not writable either.
//
// # Protected paths that do not exist yet
//
// A bind mount needs something to mount over, and no kernel mechanism
// refuses one name in a directory where creating others is allowed
// (Landlock rights hold for whole hierarchies; a seccomp filter cannot
// read paths soundly). Creating a placeholder would change the user's
// workspace. So a protected name that does not exist when a command starts
// (a .git in a directory without one, sub/.git/hooks, a .warden, a .git
// file with a gitdir: line) can be created; Policy.Watch records, before
// the command, the protected names present at any depth of the working
// directory and configured roots (not the temporary directories, which are
// private) with their identity (device, inode, type and birth time), and
// Watch.Sweep, once the command and everything it started have ended (the
// PID namespace sees to that), moves whatever the command created under
// such a name (an entry whose identity was not recorded, wherever it is
// now), or planted as warden's state, to a quarantine directory under
// warden's home, and reports it. Neither the walk nor the move follows a
// link (a link to the person's repository elsewhere leads to what the
// command did not make), and what existed before stays, even when the
// command renamed a directory above it. The walks cost time in proportion to the
// number of directories in the workspace. A git clone into the workspace
// creates a .git too, and has it moved: nothing tells it apart from an
// attack (hooks or core.fsmonitor can be written in the same command). Warden's home directories are
// created before a command starts where they lie in a writable root, so
// that they can be bound read-only.
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
// # Commands outside the sandbox
//
// Full-access commands, approved escalations and the tools of a task
// without a sandbox run through Cover (SPEC G16): the same helper, in new
// user, mount and PID namespaces (no network namespace), makes the /dev
// above with every character device but terminals kept (GPUs, /dev/kvm,
// /dev/fuse stay), covers warden's home directories and binds the managed
// configuration read-only, leaves the controlling terminal and refuses
// TIOCSTI, and starts the command in a user and mount namespace nested in
// its own. The kernel copies the helper's mounts into that less privileged
// namespace locked together (MNT_LOCKED): root there, which keeps every
// capability over its own namespaces, can neither unmount, move nor
// remount the covers, nor bind what lies beneath them, nor enter the
// helper's namespaces; it has no capability in the host's (no
// open_by_handle_at, no block device to mknod or mount). Nothing else is
// restricted. Without user namespaces Cover returns an error: escalations
// are then refused, and full-access commands run uncovered with a warning.
//
// # Dry runs
//
// Policy.WrapDryRun starts a command through the same helper for a dry run
// (SPEC G17, package internal/dryrun): the namespaces above plus an IPC
// namespace and a session keyring of its own, no Landlock, and instead of
// the read-only view a copy-on-write one: overlays whose upper layers lie
// in a tmpfs of the helper's, which it sends the parent with the fanotify
// groups that record the opening of the user's credential stores (see
// sandbox/internal/confine, dryrun_linux.go). Nothing the command does
// reaches a real file.
//
// # Limits
//
//   - Without user namespaces, the temporary directories are not
//     writable (there is no mount namespace to give private ones in).
//   - Without user namespaces (Namespaces reports why), or before Linux
//     5.12 (no mount_setattr(2)), there is no
//     read-only view, so a command can change the mode, times and extended
//     attributes of files its user owns outside the writable roots
//     (Landlock, up to ABI 7 at least, does not cover them). Without user
//     namespaces there is also no PID namespace, so processes that leave
//     the command's process group survive it, and the network is cut by
//     Landlock's TCP rules.
//   - Mounts that were read-only stay so inside writable roots; a writable
//     root on a file system mounted read-only cannot be written.
//   - Commands run without capabilities even when warden runs as root, so
//     file permissions apply to them, and reading other processes' private
//     /proc files fails.
//   - Landlock checks paths when files are opened: reopening an inherited
//     output through /dev/stdout, /dev/stderr or /proc/self/fd fails when
//     it is a file outside the writable roots (pipes and terminals are
//     fine; warden exec passes output through pipes).
//   - Where the host's /proc has parts masked (some containers), the kernel
//     refuses a new /proc: the command sees the host's, where ps fails.
//
// # Callers
//
// The command inherits the policy through the executable: any program
// importing this package can start sandboxed commands, itself being the
// helper. Callers may set the command's Dir, Env, standard streams, Cancel,
// WaitDelay and fields of SysProcAttr (Setpgid, Setsid, Pdeathsig), but
// must not replace SysProcAttr nor set credentials, ID mappings,
// namespaces or ExtraFiles (for root, Wrap passes the helper the socket
// over which it asks for its ID maps as the only extra file). Call
// Policy.Watch before starting a workspace-write command (or
// Policy.WatchAndWrap instead of both Watch and Wrap: one walk of the
// roots) and Watch.Sweep after it ended. On other systems
// than Linux, only full-access and Unenforced policies run.
//
// Starting a sandboxed command costs a few milliseconds more than a plain
// one: see BenchmarkStartSandboxed, and BenchmarkStartParts for where the
// time goes. The two largest parts are the kernel's work for the new
// namespaces (creating and tearing down a network namespace alone costs
// about a millisecond) and the helper's program start: a second start of
// this executable, with the Go runtime's initialisation and the package
// initialisers that run before confine's (in warden, about 80 of its some
// 320). In an executable linked
// with cgo (the default where a C compiler is present, since package net
// uses it for name resolution; go-landlock's psx package too), that start
// also pays the dynamic loader and cgo's thread set-up, over a
// millisecond more than a statically linked build (CGO_ENABLED=0).
// The rest is the setup above (a millisecond or so) and forking the
// command from the helper.
// What the kernel offers (the Landlock ABI, user namespaces, the read-only
// view, seccomp filters, the ID maps of this process's user namespace) is
// found out once per process and remembered: none of it changes while the
// process runs. Nothing about the file system is remembered: the roots,
// protected paths and warden's state are looked up again for every command.
package sandbox
