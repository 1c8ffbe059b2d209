package transcript_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/transcript"
)

// BenchmarkL8_WriteEvent compares, in one run, writing a typical tool
// event through a Recorder to a JSONL file as before sealing (plain: one
// marshal, one write) and sealed (SPEC L8: the MAC, the file's lock, a
// check that nothing else changed the file, and the head record), with
// and without head records.
func BenchmarkL8_WriteEvent(b *testing.B) {
	d := event.Tool{CallID: "call-17", Function: "bash", Arguments: json.RawMessage(`{"cmd":"go test ./..."}`),
		Result: "ok  \tgithub.com/wardenhq/warden/event\t0.012s\nok  \tgithub.com/wardenhq/warden/store\t1.530s\n"}
	key := lineKey(b, 1)
	for _, tc := range []struct {
		name string
		sink func(b *testing.B, path string) (event.Sink, func() error)
	}{
		{"plain", func(b *testing.B, path string) (event.Sink, func() error) {
			f, err := event.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			return event.NewWriter(f), f.Close
		}},
		{"sealed", func(b *testing.B, path string) (event.Sink, func() error) {
			t, err := transcript.Open(path, key, seal.Heads(filepath.Join(filepath.Dir(path), "heads")))
			if err != nil {
				b.Fatal(err)
			}
			return t, t.Close
		}},
		{"sealed-noheads", func(b *testing.B, path string) (event.Sink, func() error) {
			t, err := transcript.Open(path, key, "")
			if err != nil {
				b.Fatal(err)
			}
			return t, t.Close
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "t.jsonl")
			sink, closer := tc.sink(b, path)
			rec := event.NewRecorder("20260101T000000Z-0badc0de", sink)
			b.ReportAllocs()
			cpu0 := benchtest.CPUTime(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec.Emit(d)
			}
			b.StopTimer()
			// The CPU time (user and system) per event: on a loaded
			// machine, steadier than the elapsed time.
			b.ReportMetric(float64(benchtest.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
			if err := rec.Err(); err != nil {
				b.Fatal(err)
			}
			closer()
			os.Remove(path)
		})
	}
}
