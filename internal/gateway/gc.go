package gateway

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// GC settings of a gateway process (docs/mcp.md, Performance): the
// go-sdk allocates a read buffer of 32 KiB or more for every message it
// reads, while a gateway's live heap is a few MiB, so with Go's default
// (GOGC=100) the collector runs every few dozen messages and takes most of
// the CPU a call costs. A gateway lets the heap grow to gcPercent over its
// live size, bounded by gcMemoryLimit, past which the collector runs as
// often as it must: 512 MiB, or half the memory the process's cgroup
// allows when that is less.
const (
	gcPercent     = 1600
	gcMemoryLimit = 512 << 20
)

// cgroupMemory is the file of the memory cgroup v2 gives the process.
const cgroupMemory = "/sys/fs/cgroup/memory.max"

// TuneGC sets the gateway's GC settings for the process, unless GOGC or
// GOMEMLIMIT is set in the environment (then those rule), and returns a
// function that restores the settings it replaced.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	bound := int64(gcMemoryLimit)
	if b, err := os.ReadFile(cgroupMemory); err == nil {
		if max, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && max/2 < bound {
			bound = max / 2
		}
	}
	percent := debug.SetGCPercent(gcPercent)
	limit := debug.SetMemoryLimit(bound)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
