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
