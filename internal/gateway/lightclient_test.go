package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/mcp"
)

// lightVersion is the protocol version the light client asks for: the
// last revision with sessions.
const lightVersion = "2025-11-25"

// lightSession is a client session over streamable HTTP spoken with
// net/http and encoding/json alone, a load generator that costs little
// beside the server it loads: each request a POST of one JSON-RPC message,
// each answer read as application/json or as an SSE stream, whichever the
// server sends. One goroutine uses a session at a time.
type lightSession struct {
	hc    *http.Client
	url   string
	token string
	// id is the session's Mcp-Session-Id.
	id string
	// next is the id of the session's next request.
	next int64
	buf  []byte
}

// lightConnect starts a session at url: initialize, then
// notifications/initialized.
func lightConnect(ctx context.Context, hc *http.Client, url, token string) (*lightSession, error) {
	s := &lightSession{hc: hc, url: url, token: token, next: 1}
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + lightVersion + `","capabilities":{},"clientInfo":{"name":"light","version":"1"}}}`
	resp, err := s.post(ctx, []byte(body))
	if err != nil {
		return nil, err
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	raw, err := readAnswer(resp, 0)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.ProtocolVersion != lightVersion {
		return nil, fmt.Errorf("initialize: protocol version %q (%v), want %s", res.ProtocolVersion, err, lightVersion)
	}
	if s.id == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id")
	}
	resp, err = s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized: %s", resp.Status)
	}
	return s, nil
}

// post sends one message of the session.
func (s *lightSession) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+s.token)
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", lightVersion)
	}
	return s.hc.Do(req)
}

// call calls the tool name with the arguments args (a JSON object) and
// returns its result's text; a JSON-RPC error or a result marked isError
// is an error.
func (s *lightSession) call(ctx context.Context, name, args string) (string, error) {
	id := s.next
	s.next++
	b := append(s.buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	b = append(b, "}}"...)
	s.buf = b
	resp, err := s.post(ctx, b)
	if err != nil {
		return "", err
	}
	raw, err := readAnswer(resp, id)
	if err != nil {
		return "", fmt.Errorf("tools/call: %w", err)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("tools/call: result %s: %w", raw, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tools/call: error result %q", text.String())
	}
	return text.String(), nil
}

// close ends the session (DELETE).
func (s *lightSession) close(ctx context.Context) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", lightVersion)
	if resp, err := s.hc.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// readAnswer reads resp to its end and returns the result of the response
// to request id, from an application/json body or from the data of an SSE
// stream's events (skipping the server's other messages); an HTTP error
// or a JSON-RPC error is an error.
func readAnswer(resp *http.Response, id int64) (json.RawMessage, error) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body))
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var msgs [][]byte
	switch ct {
	case "application/json":
		msgs = [][]byte{body}
	case "text/event-stream":
		msgs = sseData(body)
	default:
		return nil, fmt.Errorf("answer of type %q", ct)
	}
	want := strconv.FormatInt(id, 10)
	for _, m := range msgs {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(m, &msg); err != nil {
			return nil, fmt.Errorf("answer %q: %w", m, err)
		}
		if msg.Method != "" || string(msg.ID) != want {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("error %d: %s", msg.Error.Code, msg.Error.Message)
		}
		if msg.Result == nil {
			return nil, fmt.Errorf("answer %q: neither result nor error", m)
		}
		return msg.Result, nil
	}
	return nil, fmt.Errorf("no answer to request %d in %q", id, body)
}

// sseData returns the data of each event of an SSE stream (its data lines
// joined by newlines).
func sseData(stream []byte) [][]byte {
	var out [][]byte
	var data []byte
	seen := false
	for _, line := range bytes.Split(stream, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			if seen {
				out = append(out, data)
			}
			data, seen = nil, false
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if seen {
				data = append(data, '\n')
			}
			data, seen = append(data, v...), true
		}
	}
	if seen {
		out = append(out, data)
	}
	return out
}

// The benchmarks' light client speaks streamable HTTP as a client must:
// to the go-sdk's own server (SSE answers and JSON answers) and through
// warden to the Go-native echo upstream, a call comes back with its
// arguments as text; warden's rejection and a wrong token are errors,
// never an echo.
func TestX2_LightClientOverStreamableHTTP(t *testing.T) {
	gw := &Handler{Gateway: &Gateway{Config: testConfig(t, policy50(), ""), Server: "echo", Mode: mcp.Auto}, Token: testToken,
		Upstream: func(ctx context.Context) (sdk.Connection, error) { return nativeEcho{}.Connect(ctx) }}
	t.Cleanup(func() { gw.Close() })
	for _, tc := range []struct {
		name    string
		h       http.Handler
		token   string
		message string
		wantErr string
	}{
		{"sdk-sse", echoHTTPServer(nil), testToken, "hello", ""},
		{"sdk-json", echoHTTPServer(&sdk.StreamableHTTPOptions{JSONResponse: true}), testToken, "hello", ""},
		{"warden", gw, testToken, "hello", ""},
		{"warden-rejects", gw, testToken, "my secret-48 now", "warden denied this call"},
		{"warden-wrong-token", gw, "wrong-token", "hello", "401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			ctx := context.Background()
			s, err := lightConnect(ctx, srv.Client(), srv.URL, tc.token)
			if err == nil {
				defer s.close(ctx)
				var text string
				args := `{"message":` + strconv.Quote(tc.message) + `}`
				if text, err = s.call(ctx, "echo", args); err == nil && text != args {
					t.Fatalf("echo: %q, want %q", text, args)
				}
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
