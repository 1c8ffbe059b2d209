package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/policyfile"
)

// BenchmarkX1_HookProcess measures what a host waits for on every tool
// call: process start to answer of the real binary, for a decision by a
// compiled approval policy with the session's state in warden's
// transcript and SQLite store (issue 22's speed target: p50 ≤ 5 ms, p99 ≤
// 15 ms), beside `warden version` (start-up alone) in the same run. It
// reports the percentiles of wall time, the median CPU time (user and
// system: what the machine's load does not inflate), the peak resident
// memory of a process and the binary's size.
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
		var times, cpu []time.Duration
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
			cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				maxRSS = max(maxRSS, ru.Maxrss)
			}
			if args[0] == "hook" && out.Len() != 0 {
				b.Fatalf("the hook answered %q, want an approval (no output)", out.Bytes())
			}
		}
		b.StopTimer()
		pct := func(d []time.Duration, p float64) float64 {
			slices.Sort(d)
			return float64(d[min(len(d)-1, int(float64(len(d))*p))].Microseconds()) / 1000
		}
		b.ReportMetric(pct(times, 0.5), "p50-ms")
		b.ReportMetric(pct(times, 0.99), "p99-ms")
		b.ReportMetric(pct(cpu, 0.5), "cpu-p50-ms")
		b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(fi.Size())/(1<<20), "binary-MiB")
	}
	b.Run("hook-decision", func(b *testing.B) { run(b, input, "hook", "codex", "--approval", policy) })
	// The same decision in a session that already holds 1,000 calls: each
	// hook reads its run back from the transcript.
	long := bytes.Replace(input, []byte(`"bench"`), []byte(`"bench-long"`), 1)
	pf, err := policyfile.LoadFile(policy)
	if err != nil {
		b.Fatal(err)
	}
	ap, err := approval.Compile(pf.Entries)
	if err != nil {
		b.Fatal(err)
	}
	cfg := &hook.Config{Approval: ap, Paths: hook.Paths{Runs: filepath.Join(home, "runs"), Key: filepath.Join(home, "keys", "override.key")}}
	h, _ := hook.Lookup("codex")
	for i := 0; i < 1000; i++ {
		if a := cfg.Handle(context.Background(), h, long); a.Code != 0 {
			b.Fatal(a.Stderr)
		}
	}
	b.Run("hook-decision-after-1000-calls", func(b *testing.B) { run(b, long, "hook", "codex", "--approval", policy) })
	b.Run("version", func(b *testing.B) { run(b, nil, "version") })
}
