package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/mcp"
)

// nativeEcho is an in-process Go MCP server whose one tool, echo, answers
// with its arguments as text, written against Go values alone: each
// connection is an sdk.Connection that takes the gateway's jsonrpc
// messages as they are written and answers with jsonrpc.Response values,
// with no SDK server behind it and no transport encoding between. Like a
// real server it reads each call's parameters and marshals each result
// (per call, never cached).
type nativeEcho struct{}

// Connect implements sdk.Transport: a new connection, a session of the
// server.
func (nativeEcho) Connect(context.Context) (sdk.Connection, error) {
	return &echoConn{out: make(chan jsonrpc.Message, 64), done: make(chan struct{})}, nil
}

// echoConn is one connection to nativeEcho: what the server answers waits
// in out until the peer reads it.
type echoConn struct {
	out  chan jsonrpc.Message
	done chan struct{}
	once sync.Once
}

// errEchoClosed is what a closed echoConn returns.
var errEchoClosed = errors.New("native echo: connection closed")

// echoTool is the echo tool as tools/list declares it.
type echoTool struct {
	Name        string         `json:"name"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations map[string]any `json:"annotations"`
}

// echoContent is a text content block of a tool's result.
type echoContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// answer is the server's response to the request m (nil for a
// notification, which asks for none).
func (c *echoConn) answer(m *jsonrpc.Request) (*jsonrpc.Response, error) {
	if !m.IsCall() {
		return nil, nil
	}
	var result any
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}}, nil
		}
		result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]string{"name": "echo", "version": "1"},
		}
	case "ping":
		result = struct{}{}
	case "tools/list":
		result = map[string][]echoTool{"tools": {{
			Name:        "echo",
			InputSchema: map[string]any{"type": "object"},
			Annotations: map[string]any{"readOnlyHint": true},
		}}}
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}}, nil
		}
		if p.Name != "echo" {
			return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}}, nil
		}
		result = struct {
			Content []echoContent `json:"content"`
		}{[]echoContent{{Type: "text", Text: string(p.Arguments)}}}
	default:
		return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + m.Method}}, nil
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("native echo: %s: %w", m.Method, err)
	}
	return &jsonrpc.Response{ID: m.ID, Result: raw}, nil
}

// Write implements sdk.Connection: the server takes a message; a request
// is answered at once, on the connection's queue; anything else (a
// response to a request the server never makes) is dropped.
func (c *echoConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	m, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	resp, err := c.answer(m)
	if err != nil || resp == nil {
		return err
	}
	select {
	case c.out <- resp:
		return nil
	case <-c.done:
		return errEchoClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Read implements sdk.Connection: the server's next answer.
func (c *echoConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.out:
		return m, nil
	case <-c.done:
		return nil, errEchoClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close implements sdk.Connection.
func (c *echoConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// SessionID implements sdk.Connection: the connection has none.
func (c *echoConn) SessionID() string { return "" }

// The benchmarks' Go-native echo upstream is a server the gateway
// governs as any other: through warden with the 50-entry policy, a call
// the policy approves reaches it and its arguments come back as the
// result's text; one an entry rejects gets the rejection, not an echo.
func TestX2_NativeEchoUpstreamThroughTheGateway(t *testing.T) {
	p := connect(t, &Gateway{Config: testConfig(t, policy50(), ""), Server: "echo", Mode: mcp.Auto}, nativeEcho{}, nil)
	for _, tc := range []struct {
		name, message string
		wantErr       bool
		want          string
	}{
		{"approved", "hello", false, `{"message":"hello"}`},
		{"rejected", "a secret-7 here", true, "warden denied this call"},
		{"approved again", "hello again", false, `{"message":"hello again"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := p.call(t, "echo", map[string]any{"message": tc.message})
			if isErr != tc.wantErr || tc.wantErr && !strings.Contains(text, tc.want) || !tc.wantErr && text != tc.want {
				t.Fatalf("call(%q) = %q (error %v), want %q (error %v)", tc.message, text, isErr, tc.want, tc.wantErr)
			}
		})
	}
}
