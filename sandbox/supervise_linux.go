//go:build linux

package sandbox

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// supervise starts the command as the only child of the helper, which is
// init of the sandbox's PID namespace, and returns its exit status when it
// ends: the helper then exits, and the kernel kills every process left in
// the namespace, including those that left the command's session or
// process group. Killing the helper (as a cancelled call does) kills them
// all the same way.
//
// The command is forked from this thread, and so inherits its Landlock
// domain, seccomp filter and empty capability sets. The helper itself is
// made non-dumpable first, so that the command cannot ptrace it or reach
// its memory through /proc.
//
// A command killed by signal N makes the helper exit with status 128+N:
// init of a PID namespace cannot be killed by its own signals.
// SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 sent to the helper are passed on to
// the command; SIGINT and SIGQUIT are ignored, since a terminal sends them
// to the whole foreground process group, the command included.
func supervise(path string, argv []string, fail func(int, string, ...any) int) int {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(ExitSetup, "prctl(PR_SET_DUMPABLE): %v", err)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGQUIT)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		status := ExitCannotRun
		if errors.Is(err, syscall.ENOENT) {
			status = ExitNotFound
		}
		return fail(status, "%s: %v", path, err)
	}
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGINT, syscall.SIGQUIT:
			default:
				_ = syscall.Kill(pid, s.(syscall.Signal))
			}
		}
	}()
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fail(ExitSetup, "waiting for the command: %v", err)
		}
		if wpid != pid {
			continue // an orphan of the namespace, reaped
		}
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}
