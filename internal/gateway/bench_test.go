package gateway

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/hook"
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
func benchClient(b *testing.B, how string, cfg *hook.Config) *sdk.ClientSession {
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
			go g.Serve(ctx, sc, upc)
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
			var cfg *hook.Config
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
func benchConfig(b *testing.B, appr string) *hook.Config {
	dir := b.TempDir()
	c := &hook.Config{Paths: hook.Paths{Runs: dir + "/runs", Key: dir + "/keys/override.key"}}
	if appr != "" {
		c.ApprovalEntries = entries(b, appr, "approval.yaml")
		c.Approval = must[*approval.Policy](b)(approval.Compile(c.ApprovalEntries))
	}
	return c
}
