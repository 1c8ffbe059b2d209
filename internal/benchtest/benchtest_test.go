package benchtest

import (
	"runtime"
	"testing"
	"time"
)

// CPUTime grows while the process works, and by no more than the wall
// clock allows all its CPUs.
func TestCPUTimeCountsWork(t *testing.T) {
	before := CPUTime(t)
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
	}
	spent, wall := CPUTime(t)-before, time.Since(start)
	if spent <= 0 || spent > time.Duration(runtime.NumCPU())*wall+50*time.Millisecond {
		t.Errorf("CPU time grew by %v over %v of busy wall time", spent, wall)
	}
}
