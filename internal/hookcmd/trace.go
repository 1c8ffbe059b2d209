package hookcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// EnvTrace names a file each `warden hook` process appends the times
// of its phases to, as one JSON line: when the command began (Unix
// nanoseconds: the time since the process was started is the runtime's
// and the packages' initialisation) and how long each phase took after it.
// BenchmarkX1_HookProcess reads it (docs/hooks.md, Speed).
const EnvTrace = "WARDEN_HOOK_TRACE"

// trace times a hook process's phases for $WARDEN_HOOK_TRACE; nil (no
// file named) times nothing.
type trace struct {
	file    string
	last    time.Time
	lastCPU time.Duration
	mu      sync.Mutex
	line    TraceLine
}

// TraceLine is one process's line of $WARDEN_HOOK_TRACE.
type TraceLine struct {
	// Begin is when the command began, in Unix nanoseconds, and BeginCPU
	// the process's CPU time (user and system) until then, in
	// microseconds.
	Begin    int64 `json:"begin_unix_ns"`
	BeginCPU int64 `json:"begin_cpu_us"`
	// Phases are the phases one after another, Beside those that ran
	// beside them, each with its microseconds.
	Phases []Phase `json:"phases"`
	Beside []Phase `json:"beside,omitempty"`
	// PeakRSS is the process's peak resident memory in KiB, as its end
	// (VmHWM; 0 where it cannot be read).
	PeakRSS int64 `json:"peak_rss_kib,omitempty"`
}

// Phase is a phase and how long it took, in microseconds: wall time,
// and the process's CPU time (all its threads; 0 for a phase beside).
type Phase struct {
	Name   string `json:"name"`
	Micros int64  `json:"us"`
	CPU    int64  `json:"cpu_us,omitempty"`
}

// processCPU returns the CPU time, user and system, the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func newTrace() *trace {
	f := os.Getenv(EnvTrace)
	if f == "" {
		return nil
	}
	now, cpu := time.Now(), processCPU()
	return &trace{file: f, last: now, lastCPU: cpu, line: TraceLine{Begin: now.UnixNano(), BeginCPU: cpu.Microseconds()}}
}

// mark ends the phase name, begun when the last ended.
func (t *trace) mark(name string) {
	if t == nil {
		return
	}
	now, cpu := time.Now(), processCPU()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line.Phases = append(t.line.Phases, Phase{name, now.Sub(t.last).Microseconds(), (cpu - t.lastCPU).Microseconds()})
	t.last, t.lastCPU = now, cpu
}

// beside records the phase name that took d beside the others.
func (t *trace) beside(name string, d time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line.Beside = append(t.line.Beside, Phase{Name: name, Micros: d.Microseconds()})
}

// write appends the process's line to the trace file; a trace that cannot
// be written is left out (it decides nothing).
func (t *trace) write() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.line.PeakRSS = peakRSS()
	b, err := json.Marshal(t.line)
	t.mu.Unlock()
	if err != nil {
		return
	}
	f, err := os.OpenFile(t.file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// peakRSS returns the process's peak resident memory in KiB (Linux's
// VmHWM), 0 where it cannot be read. The rusage a parent reads for a child
// started with vfork counts the parent's memory too.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kib, _ := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	return kib
}
