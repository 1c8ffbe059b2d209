// Package benchtest holds what warden's benchmarks measure beside the
// elapsed time.
package benchtest

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime returns the CPU time (user and system) the process has used so
// far: on a loaded machine, a steadier measure than the elapsed time. A
// failure to read it fails the benchmark rather than report a wrong
// figure.
func CPUTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
