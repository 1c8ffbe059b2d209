package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves a gateway over the streamable HTTP transport: each
// client session (its Mcp-Session-Id) is a gateway session — a warden run
// — to an upstream connection of its own; each request of the stateless
// revision is a gateway session and a run of its own too, over the
// upstream connections such requests share (shared.go). Requests must
// carry the bearer token.
type Handler struct {
	// Gateway governs the sessions.
	Gateway *Gateway
	// Upstream connects to the upstream for a new session (a command's
	// stdio, a streamable HTTP endpoint).
	Upstream func(ctx context.Context) (sdk.Connection, error)
	// Upstreams, when set instead, connects to the several upstreams of a
	// new session, each named (Gateway.ServeMany).
	Upstreams func(ctx context.Context) ([]Upstream, error)
	// Dialers, when set, connect to each upstream on its own, named as
	// Upstreams names them: with Stateless, requests of the stateless
	// revision are served, each a session of its own, over one client
	// connection per upstream kept across requests. Without them, such
	// requests are served over a connection made by Upstream, kept
	// likewise, or, with Upstreams alone, refused.
	Dialers []Dialer
	// Stateless serves requests of the stateless revision (SEP-2575:
	// server/discover, and calls outside a session). Each is a run of its
	// own, so the breaker and a person's override do not carry from one
	// to the next, and the upstreams' own requests and notifications do
	// not reach the client. Without it (the zero value) such requests are
	// refused ("method not found") and clients fall back to a session,
	// which is one run.
	Stateless bool
	// Token is the bearer token every request must carry; empty refuses
	// every request.
	Token string

	mu       sync.Mutex
	sessions map[string]*sdk.StreamableServerTransport
	conns    map[string]sdk.Connection
	governed map[string]*session
	wg       sync.WaitGroup
	// shared are the upstreams' connections for requests of the
	// stateless revision, made once.
	sharedOnce sync.Once
	shared     []*shared
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if h.Token == "" || !ok || subtle.ConstantTimeCompare([]byte(got), []byte(h.Token)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="warden mcp"`)
		http.Error(w, "warden mcp: a bearer token is required", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		if r.Method != http.MethodPost {
			http.Error(w, "warden mcp: a session starts with a POST of initialize", http.StatusBadRequest)
			return
		}
		// A request outside a session: initialize starts one; anything
		// else is of the stateless revision, served by a session of its
		// own that ends with the request.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
		if err != nil || len(body) > maxHTTPBody {
			http.Error(w, "warden mcp: the request body is unreadable or too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		stateless := m.Method != "initialize"
		if stateless && (!h.Stateless || h.Dialers == nil && h.Upstream == nil) {
			// Unless asked for, or when Upstreams alone connect every
			// upstream of a session at once, a request of the stateless
			// revision (a client's server/discover probe) is refused
			// here, before any upstream is started for it, and the client
			// falls back to initialize.
			refuseStateless(w, m.ID, m.Method)
			return
		}
		if stateless {
			// The revision's own header rule, kept here: the transport
			// keeps it only behind the SDK's handler, which warden's
			// relay does not use.
			b, werr := statelessBody(r.Header.Get("Mcp-Protocol-Version"), body)
			if werr != nil {
				writeError(w, http.StatusBadRequest, m.ID, werr)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		t, conn, err := h.open(stateless)
		if err != nil {
			http.Error(w, "warden mcp: "+err.Error(), http.StatusBadGateway)
			return
		}
		t.ServeHTTP(w, r)
		if stateless {
			conn.Close()
		}
		return
	}
	h.mu.Lock()
	t, ok := h.sessions[id]
	conn := h.conns[id]
	if ok && r.Method == http.MethodDelete {
		delete(h.sessions, id)
		delete(h.conns, id)
	}
	h.mu.Unlock()
	if !ok {
		http.Error(w, "warden mcp: no such session", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodDelete:
		conn.Close()
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		// A request whose client goes away before its answer (a closed
		// HTTP stream) is withdrawn, as a cancellation would.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
		if err != nil || len(body) > maxHTTPBody {
			http.Error(w, "warden mcp: the request body is unreadable or too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		t.ServeHTTP(w, r)
		if r.Context().Err() != nil {
			h.closed(id, body)
		}
	case http.MethodGet:
		t.ServeHTTP(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "warden mcp: method not allowed", http.StatusMethodNotAllowed)
	}
}

// open starts a session: its transport, its upstream connection, the
// gateway relaying between them until either ends.
func (h *Handler) open(stateless bool) (*sdk.StreamableServerTransport, sdk.Connection, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, nil, err
	}
	id := hex.EncodeToString(b[:])
	t := &sdk.StreamableServerTransport{SessionID: id, Stateless: stateless}
	if stateless {
		t.SessionID = ""
	}
	ctx := context.Background()
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	var ups []Upstream
	if stateless {
		// The upstreams' shared connections, each request's own view of
		// them.
		for _, sh := range h.sharedUpstreams() {
			ups = append(ups, Upstream{Name: sh.name, Conn: newLease(sh), cat: sh.cat})
		}
	} else if h.Upstreams != nil {
		ups, err = h.Upstreams(ctx)
	} else {
		var up sdk.Connection
		if up, err = h.Upstream(ctx); err == nil {
			ups = []Upstream{{Conn: up}}
		}
	}
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	h.mu.Lock()
	if h.sessions == nil {
		h.sessions, h.conns = map[string]*sdk.StreamableServerTransport{}, map[string]sdk.Connection{}
	}
	h.sessions[id], h.conns[id] = t, conn
	h.wg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		opened := func(s *session) {
			h.mu.Lock()
			if h.governed == nil {
				h.governed = map[string]*session{}
			}
			h.governed[id] = s
			h.mu.Unlock()
		}
		if err := h.Gateway.serve(ctx, conn, ups, opened); err != nil {
			h.Gateway.logf("session %s: %v", id, err)
		}
		h.mu.Lock()
		delete(h.sessions, id)
		delete(h.conns, id)
		delete(h.governed, id)
		h.mu.Unlock()
	}()
	return t, conn, nil
}

// maxHTTPBody bounds the body of a request that starts a session.
const maxHTTPBody = 16 << 20

// sharedUpstreams returns the upstreams requests of the stateless
// revision are served by: Dialers', else Upstream's.
func (h *Handler) sharedUpstreams() []*shared {
	h.sharedOnce.Do(func() {
		dialers := h.Dialers
		if dialers == nil {
			dialers = []Dialer{{Connect: h.Upstream}}
		}
		for _, d := range dialers {
			h.shared = append(h.shared, &shared{name: d.Name, connect: d.Connect, cat: &catalog{}})
		}
	})
	return h.shared
}

// Close ends every session, waits for their runs to be recorded, and
// closes the upstreams' shared connections.
func (h *Handler) Close() error {
	h.mu.Lock()
	for id, c := range h.conns {
		c.Close()
		delete(h.conns, id)
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	h.wg.Wait()
	h.sharedOnce.Do(func() {})
	for _, sh := range h.shared {
		sh.close()
	}
	return nil
}

// closed withdraws the request body carried, in session id, when its
// client went away before the answer.
func (h *Handler) closed(id string, body []byte) {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == nil {
		return
	}
	rid, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return
	}
	h.mu.Lock()
	s := h.governed[id]
	h.mu.Unlock()
	if s != nil {
		s.withdraw(rid, "the client closed the HTTP stream")
	}
}

// metaVersion is the member of a request's _meta that names its protocol
// revision (SEP-2575).
const metaVersion = "io.modelcontextprotocol/protocolVersion"

// statelessBody checks a request of the stateless revision as the SDK's
// streamable HTTP handler does — a request naming its revision in _meta
// has the Mcp-Protocol-Version header, and the two agree — and returns
// the body without that member, which the transport, served without the
// handler, would read as a header missing. The request is relayed as a
// session of its own whatever the revision, so nothing else of warden
// reads it. A body that is not one JSON-RPC request is returned as it is,
// for the transport to answer.
func statelessBody(header string, body []byte) ([]byte, *jsonrpc.Error) {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return body, nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return body, nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta == nil {
		return body, nil
	}
	raw, ok := meta[metaVersion]
	if !ok {
		return body, nil
	}
	var version string
	if json.Unmarshal(raw, &version) != nil || version == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: _meta " + metaVersion + " is not a protocol version"}
	}
	if header != version {
		return nil, &jsonrpc.Error{Code: sdk.CodeHeaderMismatch, Message: fmt.Sprintf("warden: the Mcp-Protocol-Version header %q does not match the request's _meta %s %q", header, metaVersion, version)}
	}
	delete(meta, metaVersion)
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return out, nil
}

// writeError answers a request with a JSON-RPC error and the HTTP status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, werr *jsonrpc.Error) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": werr})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// refuseStateless answers a request of the stateless revision, which the
// handler does not serve, with "method not found" (a notification, which
// has no id, with 202).
func refuseStateless(w http.ResponseWriter, id json.RawMessage, method string) {
	if len(id) == 0 || string(id) == "null" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": jsonrpc.CodeMethodNotFound, "message": "warden: " + method + ": requests outside a session are not served here (warden mcp --stateless serves them); initialize first"}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
