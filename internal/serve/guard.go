package serve

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/proof"
)

// This file holds what the server checks before any handler runs (SPEC
// S2, issue 21): the Host header names this server (no DNS rebinding), and
// a client that keeps presenting wrong secrets waits longer and longer.

// Back-off of wrong secrets, per client address.
const (
	// freeFailures is how many wrong secrets a client may present before
	// it has to wait.
	freeFailures = 5
	// firstDelay is the wait after the first failure beyond the free ones;
	// each further failure doubles it, up to maxDelay.
	firstDelay = 200 * time.Millisecond
	maxDelay   = 30 * time.Second
	// forgetAfter is how long a client's failures are remembered after its
	// last one.
	forgetAfter = 15 * time.Minute
	// maxClients bounds the clients remembered: beyond it the stalest is
	// forgotten.
	maxClients = 4096
	// provenFor is how long a client id that presented a right secret
	// keeps a back-off budget of its own after its last right one.
	provenFor = 12 * time.Hour
)

// failure is what the back-off remembers of one client.
type failure struct {
	count int
	// until is when the client may present a secret again.
	until time.Time
	last  time.Time
}

// backoff slows down clients that present wrong secrets (a login token, a
// bearer token): after freeFailures failures each further one doubles the
// time the client must wait before its next secret is even checked.
type backoff struct {
	mu sync.Mutex
	m  map[string]failure
}

// wait returns how long client must still wait before a secret of its is
// checked; 0 when it may go ahead.
func (b *backoff) wait(client string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.m[client]
	if !ok || !now.Before(f.until) {
		return 0
	}
	return f.until.Sub(now)
}

// fail records a wrong secret from client.
func (b *backoff) fail(client string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]failure{}
	}
	f, ok := b.m[client]
	if ok && now.Sub(f.last) > forgetAfter {
		f = failure{}
	}
	if !ok && len(b.m) >= maxClients {
		b.evict(now)
	}
	f.count++
	f.last = now
	if n := f.count - freeFailures; n > 0 {
		d := maxDelay
		if n < 20 {
			d = min(firstDelay<<(n-1), maxDelay)
		}
		f.until = now.Add(d)
	}
	b.m[client] = f
}

// succeed forgets client's failures: it knew the secret.
func (b *backoff) succeed(client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, client)
}

// evict forgets clients whose failures are old, and the stalest one when
// none is. b.mu is held.
func (b *backoff) evict(now time.Time) {
	var stalest string
	for k, f := range b.m {
		if now.Sub(f.last) > forgetAfter {
			delete(b.m, k)
		} else if stalest == "" || f.last.Before(b.m[stalest].last) {
			stalest = k
		}
	}
	if len(b.m) >= maxClients && stalest != "" {
		delete(b.m, stalest)
	}
}

// proven remembers the clients (an address and a client id, see
// proof.ClientHeader) that presented a right secret: each keeps a
// back-off budget of its own, apart from its address's, so that wrong
// secrets from another program on the same machine (every loopback client
// shares one address) do not slow down a run that already proved it
// holds its credential. A client id that never presented a right secret
// from the address gets nothing: a guesser that makes up ids stays on the
// address's budget.
type proven struct {
	mu sync.Mutex
	m  map[string]time.Time // key → last right secret
}

// add remembers key as proven at now.
func (p *proven) add(key string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]time.Time{}
	}
	if _, ok := p.m[key]; !ok && len(p.m) >= maxClients {
		var stalest string
		for k, t := range p.m {
			if now.Sub(t) > provenFor {
				delete(p.m, k)
			} else if stalest == "" || t.Before(p.m[stalest]) {
				stalest = k
			}
		}
		if len(p.m) >= maxClients && stalest != "" {
			delete(p.m, stalest)
		}
	}
	p.m[key] = now
}

// has reports whether key presented a right secret within provenFor.
func (p *proven) has(key string, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.m[key]
	return ok && now.Sub(t) <= provenFor
}

// provenKey names r's client id at r's address, "" when r sends none.
func provenKey(r *http.Request) string {
	id := r.Header.Get(proof.ClientHeader)
	if id == "" {
		return ""
	}
	return clientOf(r) + " client:" + proof.Hash(id)[:32]
}

// budgetOf names the back-off budget r's secret is checked under: its
// client's own when that client (address and id) presented a right secret
// before, else its address's.
func (s *Server) budgetOf(r *http.Request, now time.Time) string {
	if k := provenKey(r); k != "" && s.proven.has(k, now) {
		return k
	}
	return clientOf(r)
}

// clientOf names the client of r for the back-off: its address without
// the port (every port of one machine is one client).
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// presentsSecret reports whether r carries a secret the server checks: a
// bearer token, or the panel's login form.
func presentsSecret(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" {
		return true
	}
	return r.Method == http.MethodPost && r.URL.Path == "/login"
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush lets event streams through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// slowDown wraps h with the back-off: a request that presents a secret
// while its budget must wait is answered 429 with Retry-After, and its
// secret is not checked; a request whose secret was refused (401) counts
// as a failure of its budget, one that was accepted forgets its failures.
// The budget is the client's address, or, for a client id that presented
// a right secret from that address before, its own (see proven).
// Requests without a secret (a panel session's) pass untouched, so a
// client hammering wrong tokens does not lock a logged-in person out.
func (s *Server) slowDown(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !presentsSecret(r) {
			h.ServeHTTP(w, r)
			return
		}
		client := s.budgetOf(r, time.Now())
		if d := s.failures.wait(client, time.Now()); d > 0 {
			secs := int((d + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			s.logger().Warn("secret refused unchecked: too many wrong ones", "remote", r.RemoteAddr, "wait", d.Round(time.Millisecond))
			writeError(w, http.StatusTooManyRequests, "too many wrong tokens from this address: try again in "+strconv.Itoa(secs)+" s")
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		switch {
		case sw.status == http.StatusUnauthorized:
			s.failures.fail(client, time.Now())
		case sw.status != 0 && sw.status < 400:
			s.failures.succeed(client)
			if k := provenKey(r); k != "" {
				s.proven.add(k, time.Now())
			}
		}
	})
}

// loopbackNames are the Host names every server answers to.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// hostOK reports whether the Host header host (with or without a port)
// names this server: a loopback name or address, or one of allowed (names,
// or addresses; case-insensitive).
func hostOK(host string, allowed []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	if host == "" {
		return true // HTTP/1.0 without a Host: no browser sends that
	}
	name = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(name, "]"), "["), ".")
	if name == "" {
		return false
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range loopbackNames {
		if strings.EqualFold(name, a) {
			return true
		}
	}
	if strings.HasSuffix(strings.ToLower(name), ".localhost") {
		return true // RFC 6761: always loopback
	}
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(a, "]"), "["), ".")
		if a != "" && strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}

// checkHost wraps h: a request whose Host header does not name this
// server is answered 421 and goes no further, so a web page whose name
// was rebound to 127.0.0.1 cannot use the panel or the API. /healthz
// answers whatever the name.
func (s *Server) checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && !hostOK(r.Host, s.Hosts) {
			s.logger().Warn("refused: Host is not this server's", "host", r.Host, "remote", r.RemoteAddr)
			writeError(w, http.StatusMisdirectedRequest, "the Host header "+strconv.Quote(r.Host)+" does not name this server: serve with --allow-host NAME to answer to it")
			return
		}
		h.ServeHTTP(w, r)
	})
}
