package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/benchtest"
	"github.com/wardenhq/warden/internal/mcp"
)

// statelessCall is a tools/call of the stateless revision: a POST with no
// Mcp-Session-Id and no initialize before it.
const statelessCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`

// postStateless posts statelessCall to url and checks the answer is the
// echo's result, whether it comes as JSON or as one event of a stream.
func postStateless(hc *http.Client, url string) error {
	text, isErr, err := postStatelessBody(hc, url, statelessCall)
	if err == nil && (isErr || !strings.Contains(text, "hello")) {
		err = fmt.Errorf("not the echo's result: %q (isError %v)", text, isErr)
	}
	return err
}

// postStatelessBody posts the tools/call body to url without a session
// and returns the text of the result and its isError, whether the answer
// comes as JSON or as one event of a stream.
func postStatelessBody(hc *http.Client, url, body string) (string, bool, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "", false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", false, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", false, fmt.Errorf("status %d: %s", resp.StatusCode, data)
	}
	msg := data
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = nil
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msg = []byte(d)
			}
		}
	}
	var r struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &r); err != nil || r.Result == nil || len(r.Result.Content) != 1 {
		return "", false, fmt.Errorf("not a tool's result: %s", data)
	}
	return r.Result.Content[0].Text, r.Result.IsError, nil
}

// statelessPlain serves each request of the stateless revision as the
// gateway does, by a transport and an upstream connection of its own that
// end with it, relayed unchanged: the plain pass-through proxy's cost of a
// stateless request.
type statelessPlain struct{ upstream func() sdk.Transport }

func (p statelessPlain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := context.Background()
	t := &sdk.StreamableServerTransport{Stateless: true}
	c, err := t.Connect(ctx)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	u, err := p.upstream().Connect(ctx)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	plainProxy(ctx, c, u)
	t.ServeHTTP(w, r)
	c.Close()
	u.Close()
}

// BenchmarkX2_HTTPStatelessCalls measures tools/call requests of the
// stateless revision (a POST each, no session, no initialize) over
// streamable HTTP, 8 clients at once, beside calls in sessions, all to the
// echo served by the go-sdk's stateless HTTP handler (a stateless
// upstream): that server directly; a plain pass-through proxy that serves
// each stateless request by a transport and an upstream connection of its
// own; warden (Handler with one upstream), where each stateless request is
// a client session of its own and so a warden run, made over the one
// client connection to the upstream that stateless requests share, with
// the 50-entry policy; and, side by side, the plain proxy
// and warden with the 50-entry policy serving go-sdk client sessions.
// cpu-us/call is the process's CPU time per call, client and servers
// together; files/call counts what a call leaves in warden's runs
// directory.
func BenchmarkX2_HTTPStatelessCalls(b *testing.B) {
	for _, how := range []string{"direct-stateless", "plain-proxy-stateless", "warden-stateless-policy-50", "plain-proxy-session", "warden-session-policy-50"} {
		b.Run(how, func(b *testing.B) {
			b.Cleanup(TuneGC())
			upSrv := httptest.NewServer(echoHTTPServer(&sdk.StreamableHTTPOptions{JSONResponse: true, Stateless: true}))
			defer upSrv.Close()
			upKeep := &http.Transport{MaxIdleConnsPerHost: 16, MaxConnsPerHost: 32}
			defer upKeep.CloseIdleConnections()
			upstream := func() sdk.Transport {
				return &sdk.StreamableClientTransport{Endpoint: upSrv.URL, HTTPClient: &http.Client{Transport: upKeep}, MaxRetries: -1}
			}
			var h http.Handler
			runs := ""
			switch how {
			case "direct-stateless":
				h = nil
			case "plain-proxy-stateless":
				h = statelessPlain{upstream: upstream}
			case "plain-proxy-session":
				h = &plainHTTP{sessions: map[string]*sdk.StreamableServerTransport{}, upstream: upstream}
			default:
				cfg := benchConfig(b, policy50())
				runs = cfg.Paths.Runs
				gh := &Handler{Gateway: &Gateway{Config: cfg, Server: "echo", Mode: mcp.Auto}, Token: testToken, Stateless: true,
					Upstream: func(ctx context.Context) (sdk.Connection, error) { return upstream().Connect(ctx) }}
				b.Cleanup(func() { gh.Close() })
				h = gh
			}
			url := upSrv.URL
			if h != nil {
				srv := httptest.NewServer(h)
				defer srv.Close()
				url = srv.URL
			}
			const clients = 8
			keepAlive := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: 2 * clients}
			defer keepAlive.CloseIdleConnections()
			hc := &http.Client{Transport: bearer{testToken, keepAlive}}
			call := make(chan func() error, clients)
			for i := 0; i < clients; i++ {
				if !strings.HasSuffix(how, "-session") && !strings.Contains(how, "-session-") {
					call <- func() error { return postStateless(hc, url) }
					continue
				}
				ct := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}
				// A session: the revision before the stateless one, which
				// the client would otherwise discover.
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
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
			files := func() int {
				des, _ := os.ReadDir(runs)
				return len(des)
			}
			before := files()
			b.ReportAllocs()
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
			if runs != "" {
				b.ReportMetric(float64(files()-before)/float64(b.N), "files/call")
			}
		})
	}
}
