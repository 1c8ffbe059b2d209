package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/tool"
)

// nested returns n nested JSON arrays around a string.
func nested(n int) string {
	return strings.Repeat("[", n) + `"needle-7f"` + strings.Repeat("]", n)
}

// heapGrowth runs f and returns the most the live heap grew while it ran,
// sampled before and after with a collection each time, and the bytes
// allocated in all.
func heapGrowth(f func()) (total uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The attack: one request whose arguments are 18 KB of nested arrays
// (through the API, from a tool warden does not know, so no schema
// limits it). It was rendered indented by depth, twice per card: 324 MB
// pages, and `serve` grew to 1.87 GB. The effect checked: the queue page,
// its live fragment and the run's transcript stay small, and rendering
// them allocates little.
func TestS4_NestedArgumentsKeepPagesSmall(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env.url)
	b.login()
	args := `{"data":` + nested(9000) + `}`
	if len(args) < 18000 {
		t.Fatalf("the attack is %d bytes", len(args))
	}
	// Through the API, as a run (or a hook) submits it.
	st, body, _ := call(t, "POST", env.url+"/api/requests", `{"kind":"approval","run_id":"run-n","agent":"main","call":{"id":"c1","function":"mcp__x__y","arguments":`+args+`},"choices":["approve","modify","reject"]}`, http.Header{"Authorization": {"Bearer " + panelToken}, "Content-Type": {"application/json"}})
	if st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("submit: %d %s", st, body)
	}
	writeEvents(t, &serveclient.Client{URL: env.url, Token: panelToken}, "run-n", 1,
		event.RunStart{Task: "nest", Model: "m"},
		event.Model{Output: modelCalling("c1", "mcp__x__y", args)},
		event.Tool{CallID: "c1", Function: "mcp__x__y", Arguments: json.RawMessage(args), Result: "ok"},
	)
	for _, path := range []string{"/", "/fragments/queue", "/runs/run-n", "/fragments/runs/run-n", "/search?q=x"} {
		var size int
		var page string
		alloc := heapGrowth(func() {
			var resp *http.Response
			resp, page = b.do("GET", path, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d", path, resp.StatusCode)
			}
			size = len(page)
		})
		t.Logf("%s: %d bytes, %d bytes allocated", path, size, alloc)
		if path == "/" || path == "/fragments/queue" {
			if n := strings.Count(page, "needle-7f"); n != 1 {
				t.Errorf("%s shows the arguments %d times, want once", path, n)
			}
		}
		if size > 256<<10 {
			t.Errorf("%s is %d bytes for an 18 KB request; want under 256 KiB", path, size)
		}
		if alloc > 64<<20 {
			t.Errorf("%s allocated %d MB; want under 64 MB", path, alloc>>20)
		}
	}
}

// modelCalling is a model message that makes one call.
func modelCalling(id, function, args string) chat.Message {
	return chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{{ID: id, Function: function, Arguments: json.RawMessage(args)}}}
}

// The 18 KB nested request rendered as the panel did (indented by depth)
// and as it does now (compact past the limits), side by side:
//
//	go test ./internal/serve -run XXX -bench BenchmarkS4_NestedArguments -benchmem
func BenchmarkS4_NestedArguments(b *testing.B) {
	raw := []byte(`{"data":` + nested(9000) + `}`)
	b.Run("indented", func(b *testing.B) {
		for b.Loop() {
			var out bytes.Buffer
			if err := json.Indent(&out, raw, "", "  "); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(out.Len()), "bytes/render")
		}
	})
	b.Run("bounded", func(b *testing.B) {
		for b.Loop() {
			b.ReportMetric(float64(len(prettyJSON(raw))), "bytes/render")
		}
	})
}
