package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hookcmd"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/internal/plane"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest/stores"
)

// echoUpstream is an in-process Go MCP server whose one tool echoes.
func echoUpstream(tb testing.TB) sdk.Transport {
	s := sdk.NewServer(&sdk.Implementation{Name: "echo", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	ut, st := sdk.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		tb.Fatal(err)
	}
	return ut
}

// plainProxy relays every message between two connections unchanged: a
// pass-through proxy on the same SDK, with nothing governed.
func plainProxy(ctx context.Context, a, b sdk.Connection) {
	pipe := func(from, to sdk.Connection) {
		for {
			m, err := from.Read(ctx)
			if err != nil {
				to.Close()
				return
			}
			if err := to.Write(ctx, m); err != nil {
				return
			}
		}
	}
	go pipe(a, b)
	go pipe(b, a)
}

// policy50 is an approval policy of 50 entries: 49 that reject calls the
// benchmark never makes, by tool and argument globs, then one approval.
func policy50() string {
	var b strings.Builder
	b.WriteString("approvers:\n")
	for i := 0; i < 49; i++ {
		fmt.Fprintf(&b, "  - name: auto\n    decision: reject\n    tool: echo\n    args:\n      message: \"*secret-%d*\"\n", i)
	}
	b.WriteString("  - name: auto\n    decision: approve\n")
	return b.String()
}

// benchClient connects a go-sdk client to upstream through how: directly,
// through the plain proxy, or through a gateway of cfg.
func benchClient(b *testing.B, how string, cfg *govern.Config) *sdk.ClientSession {
	ctx := context.Background()
	up := echoUpstream(b)
	transport := up
	if how != "direct" {
		upc, sc, ct := between(b, up)
		if how == "plain-proxy" {
			plainProxy(ctx, sc, upc)
		} else {
			g := &Gateway{Config: cfg, Server: "echo", Mode: mcp.Auto}
			done := make(chan struct{})
			go func() { g.Serve(ctx, sc, upc); close(done) }()
			// The session's run ends after the client closed it, before
			// its directory is removed.
			b.Cleanup(func() { <-done })
		}
		transport = ct
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkX2_ToolsCall measures a tools/call through nothing, a plain
// pass-through proxy on the go-sdk, warden with no policy, and warden with
// a compiled 50-entry policy, side by side; p50-ms is the median call.
// The cases named -tuned-gc run with warden mcp's GC settings (TuneGC).
func BenchmarkX2_ToolsCall(b *testing.B) {
	for _, name := range []string{"direct", "plain-proxy", "warden-no-policy", "warden-policy-50", "direct-tuned-gc", "warden-policy-50-tuned-gc"} {
		b.Run(name, func(b *testing.B) {
			how, tuned := strings.CutSuffix(name, "-tuned-gc")
			if tuned {
				b.Cleanup(TuneGC())
			}
			var cfg *govern.Config
			switch how {
			case "warden-no-policy":
				cfg = benchConfig(b, "")
			case "warden-policy-50":
				cfg = benchConfig(b, policy50())
			}
			cs := benchClient(b, how, cfg)
			ctx := context.Background()
			params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
			if _, err := cs.CallTool(ctx, params); err != nil {
				b.Fatal(err)
			}
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := cs.CallTool(ctx, params)
				times = append(times, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// benchConfig is testConfig for a benchmark.
func benchConfig(b *testing.B, appr string) *govern.Config {
	dir := b.TempDir()
	c := &govern.Config{Paths: govern.Paths{Runs: dir + "/runs", Key: dir + "/keys/override.key"}}
	if appr != "" {
		c.ApprovalEntries = entries(b, appr, "approval.yaml")
		c.Approval = must[*approval.Policy](b)(approval.Compile(c.ApprovalEntries))
	}
	return c
}

// plainHTTP serves streamable HTTP sessions relayed unchanged to upstream:
// the plain pass-through proxy over HTTP.
type plainHTTP struct {
	mu       sync.Mutex
	sessions map[string]*sdk.StreamableServerTransport
	upstream func() sdk.Transport
}

func (p *plainHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	p.mu.Lock()
	t, ok := p.sessions[id]
	p.mu.Unlock()
	if !ok {
		if id != "" {
			http.Error(w, "no session", http.StatusNotFound)
			return
		}
		var b [8]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:])
		t = &sdk.StreamableServerTransport{SessionID: id}
		ctx := context.Background()
		c, _ := t.Connect(ctx)
		u, err := p.upstream().Connect(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		plainProxy(ctx, c, u)
		p.mu.Lock()
		p.sessions[id] = t
		p.mu.Unlock()
	}
	t.ServeHTTP(w, r)
}

// echoHTTPServer is the echo server served by the go-sdk's own
// streamable HTTP handler with opts.
func echoHTTPServer(opts *sdk.StreamableHTTPOptions) http.Handler {
	s := sdk.NewServer(&sdk.Implementation{Name: "echo", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, opts)
}

// rawEcho answers a JSON-RPC tools/call with net/http and encoding/json
// alone, no MCP SDK: the floor of a call over HTTP on this machine.
type rawEcho struct{}

func (rawEcho) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res := map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"content": []map[string]string{{"type": "text", "text": string(req.Params.Arguments)}}}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}

// BenchmarkX2_HTTPCallsPerSecond measures tools/call throughput over
// streamable HTTP with 8 client sessions calling concurrently (the go-sdk
// client, keeping one connection per session alive): the echo server
// served directly by the go-sdk (its default SSE answers, its
// JSONResponse option, and stateless with JSONResponse), through a plain
// pass-through proxy, through warden with no policy and with a compiled
// 50-entry policy; and the floor, a JSON-RPC echo on net/http with no
// SDK. The cases named light- do the same with a light client (net/http
// and encoding/json, lightSession) and, behind the proxies and warden,
// the Go-native echo upstream (nativeEcho), so that the client and the
// upstream cost little beside what is measured. The cases named -tuned-gc
// run with warden mcp's GC settings (TuneGC), the others with the
// environment's (GOGC=100 by default). Beside calls/s (which the
// machine's other load lowers), cpu-us is the process's CPU time per
// call, client and server together, and ceiling the calls/s two idle
// cores would give at that cost.
func BenchmarkX2_HTTPCallsPerSecond(b *testing.B) {
	cases := []string{"raw-net-http", "direct-sse", "direct-json", "direct-stateless-json", "plain-proxy", "warden-no-policy", "warden-policy-50", "warden-policy-50-store"}
	for _, c := range cases[2:] {
		if c != "direct-stateless-json" {
			cases = append(cases, c+"-tuned-gc")
		}
	}
	// The light arms: the light client (lightSession) and the Go-native
	// echo upstream (nativeEcho) in place of the go-sdk's client and
	// server, so that what is measured is the server under test. The
	// go-sdk's server cannot serve a Connection as its tool, so direct is
	// the go-sdk's server with the same echo handler as the other arms.
	for _, tuned := range []string{"", "-tuned-gc"} {
		for _, c := range []string{"direct-sse", "direct-json", "plain-proxy", "warden-no-policy", "warden-policy-50", "warden-policy-50-store", "warden-policy-50-spool"} {
			cases = append(cases, "light-"+c+tuned)
		}
	}
	for _, name := range cases {
		b.Run(name, func(b *testing.B) {
			how, tuned := strings.CutSuffix(name, "-tuned-gc")
			if tuned {
				// warden mcp's GC settings (TuneGC).
				b.Cleanup(TuneGC())
			}
			how, light := strings.CutPrefix(how, "light-")
			upstream := func() sdk.Transport { return echoUpstream(b) }
			if light {
				upstream = func() sdk.Transport { return nativeEcho{} }
			}
			var h http.Handler
			var check func()
			switch how {
			case "raw-net-http":
				h = rawEcho{}
			case "direct-sse":
				h = echoHTTPServer(nil)
			case "direct-json":
				h = echoHTTPServer(&sdk.StreamableHTTPOptions{JSONResponse: true})
			case "direct-stateless-json":
				h = echoHTTPServer(&sdk.StreamableHTTPOptions{JSONResponse: true, Stateless: true})
			case "plain-proxy":
				h = &plainHTTP{sessions: map[string]*sdk.StreamableServerTransport{}, upstream: upstream}
			default:
				cfg := benchConfig(b, "")
				if how != "warden-no-policy" {
					cfg = benchConfig(b, policy50())
				}
				gh := &Handler{Gateway: &Gateway{Config: cfg, Server: "echo", Mode: mcp.Auto}, Token: testToken,
					Upstream: func(ctx context.Context) (sdk.Connection, error) { return upstream().Connect(ctx) }}
				b.Cleanup(func() { gh.Close() })
				h = gh
				switch how {
				case "warden-policy-50-store":
					check = storeEverything(b, cfg, gh)
				case "warden-policy-50-spool":
					check = spoolEverything(b, cfg, gh)
				}
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			const clients = 8
			keepAlive := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: 2 * clients}
			defer keepAlive.CloseIdleConnections()
			call := make(chan func() error, clients)
			for i := 0; i < clients; i++ {
				if how == "raw-net-http" {
					hc := &http.Client{Transport: keepAlive}
					body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`
					call <- func() error {
						resp, err := hc.Post(srv.URL, "application/json", strings.NewReader(body))
						if err != nil {
							return err
						}
						defer resp.Body.Close()
						var r struct {
							Result json.RawMessage `json:"result"`
						}
						return json.NewDecoder(resp.Body).Decode(&r)
					}
					continue
				}
				if light {
					ctx := context.Background()
					s, err := lightConnect(ctx, &http.Client{Transport: keepAlive}, srv.URL, testToken)
					if err != nil {
						b.Fatal(err)
					}
					defer s.close(ctx)
					const args = `{"message":"hello"}`
					call <- func() error {
						text, err := s.call(ctx, "echo", args)
						if err == nil && text != args {
							err = fmt.Errorf("echo: %q, want %q", text, args)
						}
						return err
					}
					continue
				}
				ct := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken, keepAlive}}, MaxRetries: -1}
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
				call <- func() error {
					res, err := cs.CallTool(context.Background(), params)
					if err == nil && res.IsError {
						err = fmt.Errorf("error result %+v", res)
					}
					return err
				}
			}
			b.SetParallelism(clients / runtime.GOMAXPROCS(0))
			start, cpu := time.Now(), benchtest.CPUTime(b)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c := <-call
				defer func() { call <- c }()
				for pb.Next() {
					if err := c(); err != nil {
						b.Errorf("call: %v", err)
						return
					}
				}
			})
			b.StopTimer()
			perCall := float64((benchtest.CPUTime(b) - cpu).Microseconds()) / float64(b.N)
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
			b.ReportMetric(perCall, "cpu-us/call")
			b.ReportMetric(2e6/perCall, "ceiling-calls/s")
			if check != nil {
				check()
			}
		})
	}
}

// storeEverything makes the store (SQLite, written through its buffer, as
// warden mcp did with no --server or --db before it marked the spool)
// receive cfg's events, and
// returns a check, run after the benchmark, that the store holds every
// event of every run's transcript once the sessions ended.
func storeEverything(b *testing.B, cfg *govern.Config, h *Handler) func() {
	st := stores.Temp(b)
	buf := st.Buffer()
	cfg.Sink = buf
	return func() {
		h.Close()
		if err := buf.Close(); err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		storeHoldsTheRuns(b, st, cfg)
	}
}

// spoolEverything connects cfg as `warden mcp` connects a session to the
// default store (hookcmd.Connect, live): its runs are marked in the spool
// of cfg's home beside the calls, and no call waits on SQLite. The
// function it returns closes the sessions and then opens the default
// store, which imports the marked runs (internal/spool), and checks that
// it holds every line of every session's transcript.
func spoolEverything(b *testing.B, cfg *govern.Config, h *Handler) func() {
	home := filepath.Dir(cfg.Paths.Runs)
	b.Setenv("WARDEN_HOME", home)
	b.Setenv("WARDEN_DB", "")
	b.Setenv("WARDEN_SERVER", "")
	closeAll, err := hookcmd.Connect(context.Background(), cfg, &govern.File{}, true, plane.Openers{})
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		h.Close()
		if err := closeAll(); err != nil {
			b.Fatal(err)
		}
		st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(home, "warden.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		storeHoldsTheRuns(b, st, cfg)
	}
}

// storeHoldsTheRuns fails b unless st holds every event of every gateway
// session's transcript in cfg's runs directory.
func storeHoldsTheRuns(b *testing.B, st *store.Store, cfg *govern.Config) {
	ctx := context.Background()
	files, _ := filepath.Glob(filepath.Join(cfg.Paths.Runs, "mcp-*.jsonl"))
	for _, f := range files {
		want := eventtest.ReadFile(b, f)
		runID := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		got, err := st.Events(ctx, runID, "", 1<<30)
		if err != nil || len(got) != len(want) {
			b.Fatalf("run %s: the store has %d events (%v), the transcript %d", runID, len(got), err, len(want))
		}
	}
}
