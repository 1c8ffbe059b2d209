package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Requests of the stateless revision (SEP-2575: server/discover, then
// each request on its own, outside any session) are served over one
// client connection per upstream, kept across requests: the upstream is
// started, or its endpoint connected, on the first request that needs it,
// and initialized by the SDK's client as any client would (the stateless
// revision if the upstream speaks it, else a session); a connection that
// ends is made again for the next request. Each request is still a client
// session of warden's and so a run, governed as in any session; what each
// upstream listed of its tools is kept with its connection, so that a
// tool changing between requests is flagged as in a session.

// Dialer connects to one upstream, for the shared connections requests of
// the stateless revision are served by (Handler.Dialers).
type Dialer struct {
	// Name is the upstream's name among several (its tools are then
	// NAME__tool), "" for a single upstream.
	Name string
	// Connect connects to the upstream: a command's stdio, a streamable
	// HTTP endpoint.
	Connect func(ctx context.Context) (sdk.Connection, error)
}

// shared is one upstream's client connection for requests of the
// stateless revision.
type shared struct {
	name    string
	connect func(ctx context.Context) (sdk.Connection, error)
	// cat is what the upstream listed of its tools, across requests.
	cat *catalog

	mu     sync.Mutex
	cs     *sdk.ClientSession
	closed bool
}

// connFunc is a Transport whose Connect is a function.
type connFunc func(ctx context.Context) (sdk.Connection, error)

// Connect implements sdk.Transport.
func (f connFunc) Connect(ctx context.Context) (sdk.Connection, error) { return f(ctx) }

// session returns the upstream's client session, connecting it first if
// there is none (the first request, or the last connection ended).
func (sh *shared) session(ctx context.Context) (*sdk.ClientSession, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed {
		return nil, errors.New("the gateway is closing")
	}
	if sh.cs != nil {
		return sh.cs, nil
	}
	// The connection outlives the request that made it.
	client := sdk.NewClient(&sdk.Implementation{Name: "warden", Version: "1"}, nil)
	cs, err := client.Connect(context.WithoutCancel(ctx), connFunc(sh.connect), nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to the MCP server: %w", err)
	}
	sh.cs = cs
	go func() {
		_ = cs.Wait()
		sh.drop(cs)
	}()
	return cs, nil
}

// drop forgets cs, a connection that ended or failed, so that the next
// request connects again.
func (sh *shared) drop(cs *sdk.ClientSession) {
	sh.mu.Lock()
	if sh.cs == cs {
		sh.cs = nil
	}
	sh.mu.Unlock()
}

// close closes the connection and refuses later requests.
func (sh *shared) close() {
	sh.mu.Lock()
	cs := sh.cs
	sh.cs, sh.closed = nil, true
	sh.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
}

// lease is one stateless request's view of a shared upstream: an
// sdk.Connection the session relays to as to any upstream, whose requests
// are made over the shared client session and answered back in order of
// completion. Notifications other than cancellations are not forwarded
// (the upstream's session is warden's, not the client's), and the
// upstream's own requests and notifications are not relayed to the client
// (a request of the stateless revision has no stream for them).
type lease struct {
	sh     *shared
	in     chan jsonrpc.Message
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	inflight map[jsonrpc.ID]context.CancelFunc
}

func newLease(sh *shared) *lease {
	l := &lease{sh: sh, in: make(chan jsonrpc.Message, 4), inflight: map[jsonrpc.ID]context.CancelFunc{}}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// Read implements sdk.Connection: the next answer, io.EOF once closed.
func (l *lease) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-l.in:
		return m, nil
	case <-l.ctx.Done():
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements sdk.Connection: a request is made upstream, a
// cancellation withdraws one.
func (l *lease) Write(ctx context.Context, msg jsonrpc.Message) error {
	if l.ctx.Err() != nil {
		return sdk.ErrConnectionClosed
	}
	m, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	if !m.ID.IsValid() {
		if m.Method == "notifications/cancelled" {
			if id, _, ok := readCancel(m.Params); ok {
				l.mu.Lock()
				if cancel := l.inflight[id]; cancel != nil {
					cancel()
				}
				l.mu.Unlock()
			}
		}
		return nil
	}
	rctx, cancel := context.WithCancel(l.ctx)
	l.mu.Lock()
	l.inflight[m.ID] = cancel
	l.mu.Unlock()
	go func() {
		defer func() {
			l.mu.Lock()
			delete(l.inflight, m.ID)
			l.mu.Unlock()
			cancel()
		}()
		resp := &jsonrpc.Response{ID: m.ID}
		resp.Result, resp.Error = l.do(rctx, m.Method, m.Params)
		if resp.Error != nil {
			resp.Result = nil
		}
		select {
		case l.in <- resp:
		case <-l.ctx.Done():
		}
	}()
	return nil
}

// do makes one request over the shared session.
func (l *lease) do(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	cs, err := l.sh.session(ctx)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: " + err.Error()}
	}
	result, err := request(ctx, cs, method, params)
	if err == nil {
		return result, nil
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return nil, werr
	}
	if errors.Is(err, sdk.ErrConnectionClosed) {
		l.sh.drop(cs)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: the MCP server: " + err.Error()}
}

// Close implements sdk.Connection: requests in flight are cancelled; the
// shared connection stays.
func (l *lease) Close() error {
	l.cancel()
	return nil
}

// SessionID implements sdk.Connection: a stateless request has none.
func (l *lease) SessionID() string { return "" }

// request makes the request method over cs, with the parameters and the
// result as JSON: the methods a client makes of a server outside a
// session. The client's own SEP-2575 metadata (its protocol version,
// identity and capabilities) is dropped: the session is warden's, whose
// client sets its own.
func request(ctx context.Context, cs *sdk.ClientSession, method string, raw json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "server/discover":
		return discovered(cs)
	case "ping":
		return typed(ctx, raw, func(ctx context.Context, p *sdk.PingParams) (struct{}, error) { return struct{}{}, cs.Ping(ctx, p) })
	case "tools/list":
		return typed(ctx, raw, cs.ListTools)
	case "tools/call":
		// The arguments go upstream as the policy read them, not
		// through a Go value (a large number would lose digits).
		var args struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		return typed(ctx, raw, func(ctx context.Context, p *sdk.CallToolParams) (*sdk.CallToolResult, error) {
			if json.Unmarshal(raw, &args) == nil && len(args.Arguments) > 0 {
				p.Arguments = args.Arguments
			}
			return cs.CallTool(ctx, p)
		})
	case "prompts/list":
		return typed(ctx, raw, cs.ListPrompts)
	case "prompts/get":
		return typed(ctx, raw, cs.GetPrompt)
	case "resources/list":
		return typed(ctx, raw, cs.ListResources)
	case "resources/templates/list":
		return typed(ctx, raw, cs.ListResourceTemplates)
	case "resources/read":
		return typed(ctx, raw, cs.ReadResource)
	case "completion/complete":
		return typed(ctx, raw, cs.Complete)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "warden: " + method + " is not served outside a session; initialize first"}
}

// typed makes a request through the SDK's typed call: the parameters read
// into P, the result written as JSON.
func typed[P any, R any, PP interface {
	*P
	sdk.Params
}](ctx context.Context, raw json.RawMessage, call func(context.Context, PP) (R, error)) (json.RawMessage, error) {
	p := PP(new(P))
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: params: " + err.Error()}
		}
	}
	if m := p.GetMeta(); m != nil {
		for k := range m {
			if strings.HasPrefix(k, "io.modelcontextprotocol/") {
				delete(m, k)
			}
		}
		if len(m) == 0 {
			m = nil
		}
		p.SetMeta(m)
	}
	r, err := call(ctx, p)
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// discovered answers server/discover for one upstream: the stateless
// revisions warden serves, what the upstream declared when warden's
// client connected, less what needs a stream a stateless request does not
// have (list changes, subscriptions, logging).
func discovered(cs *sdk.ClientSession) (json.RawMessage, error) {
	init := cs.InitializeResult()
	caps := &sdk.ServerCapabilities{}
	if init != nil && init.Capabilities != nil {
		c := *init.Capabilities
		caps = &c
	}
	if caps.Tools != nil {
		caps.Tools = &sdk.ToolCapabilities{}
	}
	if caps.Prompts != nil {
		caps.Prompts = &sdk.PromptCapabilities{}
	}
	if caps.Resources != nil {
		caps.Resources = &sdk.ResourceCapabilities{}
	}
	caps.Logging = nil
	res := map[string]any{"supportedVersions": statelessVersions(), "capabilities": caps}
	if init != nil {
		if init.Instructions != "" {
			res["instructions"] = init.Instructions
		}
		if init.ServerInfo != nil {
			res["_meta"] = map[string]any{sdk.MetaKeyServerInfo: init.ServerInfo}
		}
	}
	return json.Marshal(res)
}

// statelessVersions are the protocol revisions of the SDK that serve
// requests outside a session (SEP-2575, 2026-07-28 and later).
func statelessVersions() []string {
	var out []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v >= "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
}
