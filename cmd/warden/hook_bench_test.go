package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkX1_HookProcess measures what a host waits for on every tool
// call: process start to answer of the real binary, for a decision by a
// compiled approval policy with the session's state in warden's
// transcript and SQLite store (issue 22's speed target: p50 ≤ 5 ms, p99 ≤
// 15 ms), beside `warden version` (start-up alone) in the same run. It
// reports the percentiles, the peak resident memory of a hook process and
// the binary's size.
//
//	go test ./cmd/warden -run '^$' -bench X1_HookProcess -benchtime 200x
func BenchmarkX1_HookProcess(b *testing.B) {
	bin := binary(b)
	home := b.TempDir()
	policy := filepath.Join(home, "approval.yaml")
	if err := os.WriteFile(policy, []byte("approvers:\n  - name: auto\n    decision: approve\n    tool: Bash\n    args:\n      command: {commands: [ls, \"git status\"]}\n  - name: auto\n    decision: reject\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	input := []byte(`{"session_id":"bench","turn_id":"u1","cwd":"/w","model":"m","permission_mode":"default","transcript_path":null,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"call_1"}`)
	fi, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, stdin []byte, args ...string) {
		env := append(os.Environ(), "WARDEN_HOME="+home, "WARDEN_DB=")
		var times []time.Duration
		var maxRSS int64
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			cmd.Stdin = bytes.NewReader(stdin)
			var out bytes.Buffer
			cmd.Stdout = &out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%v: %v %s", args, err, out.Bytes())
			}
			times = append(times, time.Since(start))
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				maxRSS = max(maxRSS, ru.Maxrss)
			}
			if args[0] == "hook" && out.Len() != 0 {
				b.Fatalf("the hook answered %q, want an approval (no output)", out.Bytes())
			}
		}
		b.StopTimer()
		slices.Sort(times)
		pct := func(p float64) float64 {
			return float64(times[min(len(times)-1, int(float64(len(times))*p))].Microseconds()) / 1000
		}
		b.ReportMetric(pct(0.5), "p50-ms")
		b.ReportMetric(pct(0.99), "p99-ms")
		b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(fi.Size())/(1<<20), "binary-MiB")
	}
	b.Run("hook-decision", func(b *testing.B) { run(b, input, "hook", "codex", "--approval", policy) })
	b.Run("version", func(b *testing.B) { run(b, nil, "version") })
}
