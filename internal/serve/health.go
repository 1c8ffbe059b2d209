package serve

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// healthEvery is how long the outcome of a probe write answers /healthz,
// so that a flood of unauthenticated /healthz requests costs the store at
// most one write per interval.
const healthEvery = time.Second

// health is the outcome of the last probe write to the store.
type health struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

// healthz answers GET /healthz without a token: 200 "ok" when the server
// can write its store, else 503 with why, until a later probe write
// succeeds.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.writable(r.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "store not writable: "+err.Error())
		return
	}
	io.WriteString(w, "ok")
}

// writable returns the error of a probe write to the store, made at most
// once per healthEvery.
func (s *Server) writable(ctx context.Context) error {
	h := &s.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.at.IsZero() && time.Since(h.at) < healthEvery {
		return h.err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	h.err = s.Store.ProbeWrite(ctx)
	h.at = time.Now()
	return h.err
}
