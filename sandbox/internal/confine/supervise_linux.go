//go:build linux

package confine

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
// to the whole foreground process group, the command included. A signal
// of these that arrived before the command started (while the sandbox was
// being set up) ends the helper with status 128+N instead of starting it.
//
// sigs are the signals catchSignals began catching before the setup; sys,
// when not nil, is how the command is started (see Spec.commandAttr).
func supervise(path string, argv []string, sigs *caughtSignals, fail func(int, string, ...any) int, sys *syscall.SysProcAttr) int {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(ExitSetup, "prctl(PR_SET_DUMPABLE): %v", err)
	}
	<-sigs.ready
	select {
	case s := <-sigs.c:
		return 128 + int(s.(syscall.Signal))
	default:
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
	if err != nil {
		status := ExitCannotRun
		if errors.Is(err, syscall.ENOENT) {
			status = ExitNotFound
		}
		return fail(status, "%s: %v", path, err)
	}
	go func() {
		for s := range sigs.c {
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

// supervisedSignals are the signals the supervising helper catches: those it
// passes on to the command, and SIGINT and SIGQUIT, which it ignores.
var supervisedSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGQUIT}

// caughtSignals are the supervised signals the helper has received; ready
// is closed once they are all caught.
type caughtSignals struct {
	c     chan os.Signal
	ready chan struct{}
}

// catchSignals starts catching the supervised signals, on another
// goroutine: signal.Notify waits for the runtime's signal thread (started
// on the first call) once per signal, which costs a start up to a
// millisecond on a busy machine when done in line, and is done while the
// sandbox is set up instead. It changes no restriction: the handlers are
// the helper's own, and the command, forked after ready is closed,
// starts with default dispositions as ever.
func catchSignals() *caughtSignals {
	s := &caughtSignals{c: make(chan os.Signal, 8), ready: make(chan struct{})}
	go func() {
		signal.Notify(s.c, supervisedSignals...)
		close(s.ready)
	}()
	return s
}
