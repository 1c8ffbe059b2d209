package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/mcp"
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
		upc, err := up.Connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
		ct, st := sdk.NewInMemoryTransports()
		sc, err := st.Connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
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
func BenchmarkX2_ToolsCall(b *testing.B) {
	for _, how := range []string{"direct", "plain-proxy", "warden-no-policy", "warden-policy-50"} {
		b.Run(how, func(b *testing.B) {
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

// BenchmarkX2_HTTPCallsPerSecond measures tools/call throughput over
// streamable HTTP with 8 client sessions calling concurrently: the echo
// server served directly by the go-sdk, through a plain pass-through proxy,
// through warden with no policy and with a compiled 50-entry policy.
func BenchmarkX2_HTTPCallsPerSecond(b *testing.B) {
	for _, how := range []string{"direct", "plain-proxy", "warden-no-policy", "warden-policy-50"} {
		b.Run(how, func(b *testing.B) {
			var h http.Handler
			switch how {
			case "direct":
				s := sdk.NewServer(&sdk.Implementation{Name: "echo", Version: "1"}, nil)
				s.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
					func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
						return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
					})
				h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
			case "plain-proxy":
				h = &plainHTTP{sessions: map[string]*sdk.StreamableServerTransport{}, upstream: func() sdk.Transport { return echoUpstream(b) }}
			default:
				cfg := benchConfig(b, "")
				if how == "warden-policy-50" {
					cfg = benchConfig(b, policy50())
				}
				gh := &Handler{Gateway: &Gateway{Config: cfg, Server: "echo", Mode: mcp.Auto}, Token: testToken,
					Upstream: func(ctx context.Context) (sdk.Connection, error) { return echoUpstream(b).Connect(ctx) }}
				b.Cleanup(func() { gh.Close() })
				h = gh
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			const clients = 8
			sessions := make(chan *sdk.ClientSession, clients)
			for i := 0; i < clients; i++ {
				cs, err := httpClient(b, srv.URL, testToken)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				sessions <- cs
			}
			params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
			b.SetParallelism(clients / runtime.GOMAXPROCS(0))
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				cs := <-sessions
				defer func() { sessions <- cs }()
				for pb.Next() {
					if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
						b.Errorf("call: %v %+v", err, res)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}
