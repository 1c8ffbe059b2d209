package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/storetest"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// scripted is a model that makes calls tool calls, perTurn per message,
// then answers.
type scripted struct {
	mu             sync.Mutex
	calls, perTurn int
	made           int
}

func (m *scripted) Generate(context.Context, model.Request) (model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.made >= m.calls {
		return model.Response{Message: chat.Message{Role: chat.Assistant, Content: "done"}}, nil
	}
	msg := chat.Message{Role: chat.Assistant, Content: "working"}
	for i := 0; i < m.perTurn && m.made < m.calls; i++ {
		m.made++
		msg.ToolCalls = append(msg.ToolCalls, tool.NewCall(fmt.Sprint("call-", m.made), "echo", fmt.Sprintf(`{"text":"line %d"}`, m.made)))
	}
	return model.Response{Message: msg, Usage: model.Usage{InputTokens: 100, OutputTokens: 20}}, nil
}

// echoTool returns its text.
type echoTool struct{}

func (echoTool) Info() tool.Info {
	return tool.Info{Name: "echo", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
}
func (echoTool) Run(_ context.Context, args json.RawMessage) (string, error) {
	var a struct{ Text string }
	err := json.Unmarshal(args, &a)
	return a.Text, err
}

// BenchmarkScriptedRun runs a scripted agent through 1,000 tool calls
// (ten per message, each approved by an approver), writing its transcript
// to a JSONL file only, or to the file and the store (event.Tee), as
// `warden run` does with a store configured. The issue asks that the
// store add at most 10%.
func BenchmarkScriptedRun(b *testing.B) {
	pol := approveAll(b)
	var cases []storetest.Engine
	for _, e := range benchEngines(b) {
		cases = append(cases, e, storetest.Engine{Name: e.Name + "-buffer", URL: e.URL})
	}
	for _, e := range append([]storetest.Engine{{Name: "jsonl"}}, cases...) {
		b.Run(e.Name, func(b *testing.B) {
			var s *Store
			if e.URL != "" {
				s = open(b, e.URL)
			}
			buffered := strings.HasSuffix(e.Name, "-buffer")
			dir := b.TempDir()
			var events int
			cpu0 := benchtest.CPUTime(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f, err := event.Create(filepath.Join(dir, fmt.Sprint(i, ".jsonl")))
				if err != nil {
					b.Fatal(err)
				}
				var sink event.Sink = event.NewWriter(f)
				var n int
				count := event.SinkFunc(func(event.Event) error { n++; return nil })
				var buf *Buffer
				switch {
				case buffered:
					buf = s.Buffer()
					sink = event.Tee(sink, buf, count)
				case s != nil:
					sink = event.Tee(sink, s, count)
				default:
					sink = event.Tee(sink, count)
				}
				id := event.NewRunID() + fmt.Sprint("-", i)
				rec := event.NewRecorder(id, sink)
				rec.Emit(event.RunStart{Task: "bench", Model: "scripted"})
				run := &agent.Run{ID: id, Model: &scripted{calls: 1000, perTurn: 10}, Events: rec, Approval: pol}
				res := run.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{echoTool{}}}, []chat.Message{{Role: chat.User, Content: "go"}})
				if res.Status != event.StatusCompleted || rec.Err() != nil {
					b.Fatalf("run %s: %v %v", res.Status, res.Err, rec.Err())
				}
				rec.Emit(event.RunEnd{Status: string(res.Status)})
				if buf != nil {
					if err := buf.Close(); err != nil {
						b.Fatal(err)
					}
				}
				f.Close()
				events = n
			}
			b.ReportMetric(float64(events), "events/run")
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/run")
			b.ReportMetric(float64(benchtest.CPUTime(b)-cpu0)/float64(b.N)/float64(time.Millisecond), "cpu-ms/run")
		})
	}
}

// approveAll is an approval policy whose one approver approves every call.
func approveAll(b *testing.B) *approval.Policy {
	m, err := policy.CompileList([]string{"*"})
	if err != nil {
		b.Fatal(err)
	}
	approve := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{Decision: approval.Approve}, nil
	})
	return approval.New(approval.Rule{Name: "auto", Match: m, Handler: approve})
}

// scriptedEvents returns the events of a scripted run of calls tool calls.
func scriptedEvents(b *testing.B, calls int) []event.Event {
	pol := approveAll(b)
	var mu sync.Mutex
	var es []event.Event
	rec := event.NewRecorder("captured", event.SinkFunc(func(e event.Event) error {
		mu.Lock()
		es = append(es, e)
		mu.Unlock()
		return nil
	}))
	rec.Emit(event.RunStart{Task: "bench", Model: "scripted"})
	run := &agent.Run{ID: "captured", Model: &scripted{calls: calls, perTurn: 10}, Events: rec, Approval: pol}
	res := run.Execute(context.Background(), &agent.Agent{Tools: []tool.Tool{echoTool{}}}, []chat.Message{{Role: chat.User, Content: "go"}})
	rec.Emit(event.RunEnd{Status: string(res.Status)})
	return es
}

// BenchmarkStoreEvents measures the store's own work for the events of a
// scripted run of 1,000 tool calls, committed in batches of a given size
// (a Buffer's batches are as large as what queued during the last commit).
func BenchmarkStoreEvents(b *testing.B) {
	es := scriptedEvents(b, 1000)
	for _, e := range benchEngines(b) {
		for _, size := range []int{16, 256} {
			b.Run(fmt.Sprint(e.Name, "/batch-", size), func(b *testing.B) {
				s := open(b, e.URL)
				ctx := context.Background()
				write := func(name string) {
					run := make([]event.Event, len(es))
					for j, e := range es {
						e.RunID = name
						run[j] = e
					}
					b.StartTimer()
					for start := 0; start < len(run); start += size {
						if _, err := s.writeEvents(ctx, run[start:min(start+size, len(run))]); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
				}
				// A first run untimed: a new database's files grow.
				write(event.NewRunID())
				runtime.GC()
				cpu0 := benchtest.CPUTime(b)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					write(event.NewRunID())
				}
				b.ReportMetric(float64(benchtest.CPUTime(b)-cpu0)/float64(b.N)/float64(time.Millisecond), "cpu-ms/run")
			})
		}
	}
}
