package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/gateway/gatewaytest"
	"github.com/wardenhq/warden/internal/mcp"
)

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

const testToken = "a-test-token-of-enough-bits-0123456789"

// httpGateway serves g over streamable HTTP with upstream per session,
// and requests of the stateless revision too.
func httpGateway(t testing.TB, g *Gateway, upstream func() sdk.Transport) string {
	h := &Handler{Gateway: g, Token: testToken, Stateless: true, Upstream: func(ctx context.Context) (sdk.Connection, error) {
		return upstream().Connect(ctx)
	}}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	return srv.URL
}

// httpClient connects the go-sdk client over streamable HTTP with token,
// asking for protocol version ("": the SDK's latest, the stateless
// revision).
func httpClient(t testing.TB, url, token, version string) (*sdk.ClientSession, error) {
	ct := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
	return sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
}

// Over streamable HTTP, a session is governed as over stdio, and so is
// each request of the stateless revision: the reference filesystem server
// behind it, a rejected write is not written; a client without the token
// gets nothing.
func TestX2_StreamableHTTPGovernsTheSession(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		stateless     bool
	}{
		{"session", "2025-11-25", false},
		{"stateless", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(t, fsPolicy, "")
			bin := filesystemServer(t, dir).Path
			url := httpGateway(t, &Gateway{Config: cfg, Server: "filesystem", Mode: mcp.Approve}, func() sdk.Transport {
				return &sdk.CommandTransport{Command: exec.Command(bin, dir)}
			})
			if cs, err := httpClient(t, url, "wrong-token", tc.version); err == nil {
				cs.Close()
				t.Fatal("a client with the wrong token connected")
			}
			cs, err := httpClient(t, url, testToken, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if stateless := cs.ID() == "" && cs.InitializeResult().ProtocolVersion >= "2026-07-28"; stateless != tc.stateless {
				t.Fatalf("session %q, protocol %s: want stateless %v", cs.ID(), cs.InitializeResult().ProtocolVersion, tc.stateless)
			}
			p := &peer{ClientSession: cs}
			secret := filepath.Join(dir, "secret.txt")
			gatewaytest.WriteRefused(t, cs, secret, "pwned", "no writes into secret files")
			ok := filepath.Join(dir, "ok.txt")
			if text, isErr := p.call(t, "write_file", map[string]any{"path": ok, "content": "fine"}); isErr {
				t.Fatalf("approved write: %s", text)
			}
			if b, err := os.ReadFile(ok); err != nil || string(b) != "fine" {
				t.Fatalf("approved write on disk: %q %v", b, err)
			}
		})
	}
}

// post sends one JSON-RPC message to a streamable HTTP endpoint.
func post(ctx context.Context, url, session, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	return http.DefaultClient.Do(req)
}

// A client that closes the HTTP stream of a call before its answer
// withdraws it: the upstream's call is cancelled.
func TestX2_ClosedHTTPStreamCancelsTheCall(t *testing.T) {
	cfg := testConfig(t, "", "")
	var block *blocker
	url := httpGateway(t, &Gateway{Config: cfg, Server: "test", Mode: mcp.Auto}, func() sdk.Transport {
		up, b := testServer(t)
		block = b
		return up
	})
	ctx := context.Background()
	resp, err := post(ctx, url, "", initialize)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, session)
	}
	if resp, err = post(ctx, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := post(cctx, url, session, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	wait(t, block.started, "the call upstream")
	cancel()
	<-done
	wait(t, block.cancelled, "the cancellation upstream after the stream closed")
}
