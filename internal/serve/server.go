// Package serve is warden's control plane over HTTP, the server of
// `warden serve` (SPEC S2, H1–H4, G12): the JSON API on a store (the
// requests that wait for a person, runs, their events and a live stream of
// changes, the recent denials and one-retry overrides), its auth, and the
// web panel. A run reaches it with serveclient.Client.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/render"
	"github.com/wardenhq/warden/internal/store"
)

// Server serves the API and the panel on a store. Set its fields before
// calling Handler; do not copy a Server after that.
type Server struct {
	// Store holds the requests, runs, events and denials served.
	Store *store.Store
	// Token is an operator's credential (SPEC S4): it decides, through the
	// API as a bearer token and the panel's login. The run credential
	// derived from it (proof.RunCredential) is a run's. "" is none.
	Token string
	// Operator names the operator of Token in the decisions it makes;
	// "" records the surface instead ("api", "panel").
	Operator string
	// RunToken is the run credential: it submits requests, waits for and
	// withdraws its own and posts its events, for its own runs alone, and
	// decides nothing. "" is none.
	RunToken string
	// Sealer authenticates the overrides made through
	// POST /api/denials/{id}/approve; without one no override can be made.
	Sealer gate.Sealer
	// Log receives the server's own messages; nil discards them.
	Log *slog.Logger
	// Orders are the orders the calls of recorded events are shown in, by
	// tool name (toolbox.Orders for warden's own tools), so the panel shows
	// a call as policy patterns see it (SPEC P2); a tool it does not list
	// shows its arguments sorted by name.
	Orders render.Orders
	// Hosts are the names (or addresses) the Host header may carry besides
	// loopback ones (localhost, *.localhost, 127.0.0.0/8, ::1): the names
	// people reach the server by when it serves beyond this machine. Any
	// other Host is refused (421), against DNS rebinding.
	Hosts []string
	// RequestDeadline is the deadline given to a request submitted without
	// one, so that a request its run left behind expires to its fail-safe
	// outcome (SPEC H3) instead of waiting for ever: 0 is
	// DefaultRequestDeadline, a negative duration gives none. A deadline
	// the run gives wins.
	RequestDeadline time.Duration

	sessions sessions
	// owners caches the owner of each run a run credential acted on (run
	// id → owner; an owner never changes).
	owners ownerCache
	// failures slows down clients that present wrong secrets; proven
	// are the clients with a budget of their own.
	failures backoff
	proven   proven
	// commands keeps the judged simple commands of the requests shown.
	commands commandCache
	// approveMu serializes the overrides this server grants, so that two
	// clicks on one denial grant one retry.
	approveMu sync.Mutex
	// keepalive is the interval of comments on an idle event stream.
	keepalive time.Duration
	// fanout hands the store's changes, read once, to every event stream.
	fanout fanout
	// changes reads the store's changes for fanout; nil is Store.Changes.
	changes func(context.Context) <-chan store.Change
	// streamWriteTimeout bounds one write to an event stream; 0 is
	// defaultStreamWriteTimeout.
	streamWriteTimeout time.Duration
	// health is the outcome of the last probe write to the store.
	health health
}

// Limits of the API.
const (
	// maxWait is the longest a long poll (GET /api/requests/{id}?wait=)
	// holds on to a request.
	maxWait = 5 * time.Minute
	// maxBody is the largest request body the API reads, but for events.
	maxBody = 1 << 20
	// maxEventsBody is the largest body of POST /api/events.
	maxEventsBody = 64 << 20
	// defaultKeepalive is the interval of comments on an idle event stream.
	defaultKeepalive = 15 * time.Second
	// runPageEvents is how many events a run's page in the panel shows.
	runPageEvents = 500
)

// DefaultRequestDeadline is the deadline of a request submitted without one
// (Server.RequestDeadline, `warden serve --request-deadline`).
const DefaultRequestDeadline = time.Hour

// requestDeadline returns the deadline of a request submitted at now
// without one; nil when the server gives none.
func (s *Server) requestDeadline(now time.Time) *time.Time {
	d := s.RequestDeadline
	if d == 0 {
		d = DefaultRequestDeadline
	}
	if d < 0 {
		return nil
	}
	t := now.Add(d).UTC()
	return &t
}

func (s *Server) logger() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Handler returns the HTTP handler of the API and the panel.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	// Operators' routes; a run credential gets 403 (SPEC S4).
	api := func(pattern string, h http.HandlerFunc) { mux.HandleFunc(pattern, s.authed(s.operatorOnly(h))) }
	// Routes a run credential may take too, for its own runs alone.
	runAPI := func(pattern string, h http.HandlerFunc) { mux.HandleFunc(pattern, s.authed(h)) }
	mux.HandleFunc("POST "+proof.HelloPath, s.hello)
	runAPI("GET /api/whoami", s.whoami)
	api("GET /api/requests", s.listRequests)
	runAPI("POST /api/requests", s.submitRequest)
	runAPI("GET /api/requests/{id}", s.getRequest)
	api("POST /api/requests/{id}/decision", s.decide)
	runAPI("POST /api/requests/{id}/withdraw", s.withdraw)
	api("GET /api/runs", s.listRuns)
	api("GET /api/runs/{id}", s.getRun)
	api("GET /api/runs/{id}/events", s.runEvents)
	api("GET /api/runs/{id}/rules", s.runRules)
	runAPI("POST /api/events", s.postEvents)
	api("GET /api/events/stream", s.stream)
	api("GET /api/search", s.search)
	api("GET /api/denials", s.listDenials)
	api("POST /api/denials/{id}/approve", s.approveDenial)
	unknown := func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API route: "+r.Method+" "+r.URL.Path)
	}
	mux.HandleFunc("GET /api/", s.authed(unknown))
	mux.HandleFunc("POST /api/", s.authed(unknown))
	s.panel(mux)
	return s.common(s.checkHost(s.slowDown(mux)))
}

// common sets the headers every answer carries and turns a panic into a
// 500 that the log explains.
func (s *Server) common(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "same-origin")
		if strings.HasPrefix(r.URL.Path, "/api/") {
			w.Header().Set("Cache-Control", "no-store")
		}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logger().Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				writeError(w, http.StatusInternalServerError, "internal error")
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeError answers {"error": msg} with status.
func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// storeError answers the error of a store call: 404 for an unknown id, 409
// for a request no longer pending, 400 for a choice not offered or a
// cursor the list did not give, 503 when the caller went away, the store
// is closing or its database cannot be reached for now (with Retry-After),
// 500 otherwise.
func (s *Server) storeError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, store.ErrNotPending):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, store.ErrChoice), errors.Is(err, store.ErrCursor):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled before the store answered")
	case store.Unavailable(err):
		// A database blip: the client tries again in a moment.
		s.logger().Warn("store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "the store is unavailable, try again: "+err.Error())
	default:
		s.logger().Error("store", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "the store failed: "+err.Error())
	}
}

// decodeBody decodes r's JSON body, at most limit bytes, into v.
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", limit))
		} else {
			writeError(w, http.StatusBadRequest, "the body is not the JSON expected: "+err.Error())
		}
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "the body holds more than one JSON value")
		return false
	}
	return true
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &m) == nil
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// parseWait reads a wait duration: Go's form ("30s", "1m") or seconds
// ("30"), capped at maxWait.
func parseWait(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		n, nerr := strconv.ParseFloat(v, 64)
		if nerr != nil {
			return 0, fmt.Errorf("wait=%q is not a duration such as 30s", v)
		}
		d = time.Duration(n * float64(time.Second))
	}
	if d < 0 {
		return 0, fmt.Errorf("wait=%q is negative", v)
	}
	return min(d, maxWait), nil
}

// parseTime reads an RFC 3339 time parameter; "" is the zero time.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s=%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", name, v)
	}
	return t, nil
}

// parseLimit reads a limit parameter; "" is 0.
func parseLimit(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("limit=%q is not a count", v)
	}
	return n, nil
}
