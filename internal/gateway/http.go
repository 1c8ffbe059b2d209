package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves a gateway over the streamable HTTP transport: each
// client session (its Mcp-Session-Id) is a gateway session — a warden run
// — to an upstream connection of its own. Requests must carry the bearer
// token.
type Handler struct {
	// Gateway governs the sessions.
	Gateway *Gateway
	// Upstream connects to the upstream for a new session (a command's
	// stdio, a streamable HTTP endpoint).
	Upstream func(ctx context.Context) (sdk.Connection, error)
	// Upstreams, when set instead, connects to the several upstreams of a
	// new session, each named (Gateway.ServeMany).
	Upstreams func(ctx context.Context) ([]Upstream, error)
	// Token is the bearer token every request must carry; empty refuses
	// every request.
	Token string

	mu       sync.Mutex
	sessions map[string]*sdk.StreamableServerTransport
	conns    map[string]sdk.Connection
	governed map[string]*session
	wg       sync.WaitGroup
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
		// else is of a stateless revision, served by a session of its own
		// that ends with the request.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
		if err != nil || len(body) > maxHTTPBody {
			http.Error(w, "warden mcp: the request body is unreadable or too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		stateless := m.Method != "initialize"
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
	if h.Upstreams != nil {
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

// Close ends every session and waits for their runs to be recorded.
func (h *Handler) Close() error {
	h.mu.Lock()
	for id, c := range h.conns {
		c.Close()
		delete(h.conns, id)
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	h.wg.Wait()
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
