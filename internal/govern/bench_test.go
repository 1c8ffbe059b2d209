package govern_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/tool"
)

// BenchmarkX2_RecordCall measures what recording one governed call costs a
// session held open (warden mcp, SPEC X2): the call's approval event, then
// its tool event, each a sealed line of the run's transcript read into the
// session's state, and the check for lines another process appended
// (Refresh, SPEC G12) before the call is decided. cpu-ns/op is the CPU time
// (user and system) per call, steadier than the elapsed time on a loaded
// machine.
func BenchmarkX2_RecordCall(b *testing.B) {
	dir := b.TempDir()
	p := govern.Paths{Runs: filepath.Join(dir, "runs"), Key: filepath.Join(dir, "keys", "override.key")}
	s, err := govern.OpenSession(p, "mcp", "bench-session", nil)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"path":"/srv/data/report.txt","content":"quarterly figures"}`)
	call := tool.Call{ID: "call-1", Function: "write_file", Arguments: args}
	b.ReportAllocs()
	cpu0 := benchtest.CPUTime(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Refresh(); err != nil {
			b.Fatal(err)
		}
		s.Events.Emit(event.Approval{CallID: "call-1", Call: call, Approver: "policy", Decision: "approve", Explanation: "entry 50 approves write_file"})
		s.Events.Emit(event.Tool{CallID: "call-1", Function: "write_file", Arguments: args, Result: "wrote 17 bytes to /srv/data/report.txt"})
	}
	b.StopTimer()
	b.ReportMetric(float64(benchtest.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
	if err := s.Events.Err(); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}
