package gateway

import (
	"runtime/debug"
	"testing"
)

// TestX2_TuneGC: warden mcp's GC settings apply when the environment sets
// none (a heap that grows 16 times its live size, bounded), are undone by
// restore, and leave GOGC set in the environment alone.
func TestX2_TuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)
	limitBefore := debug.SetMemoryLimit(-1)
	restore := TuneGC()
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	if limit := debug.SetMemoryLimit(-1); limit <= 0 || limit > gcMemoryLimit {
		t.Errorf("memory limit %d, want at most %d", limit, gcMemoryLimit)
	}
	restore()
	if got := debug.SetGCPercent(before); got != before {
		t.Errorf("after restore, GC percent %d, want %d", got, before)
	}
	if limit := debug.SetMemoryLimit(-1); limit != limitBefore {
		t.Errorf("after restore, memory limit %d, want %d", limit, limitBefore)
	}
	t.Setenv("GOGC", "50")
	TuneGC()()
	if got := debug.SetGCPercent(before); got != before {
		t.Errorf("with GOGC set, GC percent %d, want it left at %d", got, before)
	}
}
