// Package confine is the sandbox's helper: the re-execution of warden
// that a sandboxed command starts as. Given a Spec on its command line, it
// sets up what its namespaces need (ID maps, the read-only view, protected
// and hidden paths, /proc, the loopback interface), restricts itself
// (no_new_privs, Landlock, seccomp, capabilities) and then runs the command
// as its only child, init of the command's PID namespace (see package
// sandbox for the design, and for the parent's side).
//
// It is a package of its own, importing little, so that Go initialises it
// early: its init turns the process into the helper before the package
// initialisers of the rest of the program run (in warden, those of the
// model SDKs, YAML, starlark and the rest), which a helper does not need
// and each sandboxed command would otherwise pay for.
//
// The seccomp filters (seccomp_linux.go, sockets_linux.go) are assembled
// here rather than by a library, for technical reasons checked against
// github.com/elastic/go-seccomp-bpf v1.6.0 (pure Go, served here):
//   - Its Policy covers one audit architecture: a system call of another
//     one jumps to the policy's default action. Warden's filters must allow
//     every system call but a few, so on x86-64 a 32-bit (i386) program's
//     socket(2), socketpair(2) and socketcall(2) would pass unchecked. Ours
//     checks i386 socket(2)/socketpair(2) like the native ones, refuses
//     socketcall(2) (its arguments are in memory) and x32, and answers
//     ENOSYS to any other architecture, in one program.
//   - Its conditions compare whole 64-bit arguments, with no "clear these
//     bits, then compare": the socket type with SOCK_NONBLOCK and
//     SOCK_CLOEXEC allowed would take four Equal conditions for each
//     allowed family, type and protocol, and the high 32 bits of an int
//     argument, which the kernel ignores, would decide too. Measured: the
//     socket allow-list written as its Policy (x86-64 only, the four flag
//     combinations as Equal conditions, io_uring refused) assembles to 724
//     instructions, checked one after another on every socket(2); ours is
//     69 for both architectures.
//
// golang.org/x/net/bpf's assembler encodes single instructions with jumps
// as skip counts; what is hand-written here is the part it lacks: jumps to
// labels (bpfAsm) resolved into skips, checked against BPF_MAXINSNS. The
// socket allow-list itself is data (AllowedSockets), from which the
// program is generated (69 instructions on x86-64; the tty filter, 21).
// The attack tests in package sandbox (airtight, sockets, deny-list and
// architecture checks) run them against the real kernel.
package confine

import "strings"

// DevicePaths are the devices every mode may write to, and open terminals
// on, so that `cmd >/dev/null` and interactive programs keep working.
var DevicePaths = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Exit statuses of the helper when it cannot run the command, as in env(1)
// and timeout(1).
const (
	// ExitSetup is the exit status of a sandboxed command whose sandbox
	// could not be set up; the reason is on its stderr, after "warden:
	// sandbox: ".
	ExitSetup = 125
	// ExitCannotRun is the exit status when the command exists but could
	// not be executed.
	ExitCannotRun = 126
	// ExitNotFound is the exit status when the command does not exist.
	ExitNotFound = 127
)

// Within reports whether path, absolute and clean, is dir or lies under it.
func Within(dir, path string) bool {
	if path == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(path, dir) && path[len(dir)] == '/'
}
