package serve

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"time"
)

// sessionCookie is the name of the panel's session cookie.
const sessionCookie = "warden_session"

// sessionTTL is how long a panel session lasts after login.
const sessionTTL = 12 * time.Hour

// maxSessions bounds the sessions kept in memory: logging in beyond it
// forgets the oldest.
const maxSessions = 1024

// session is one panel login: its CSRF token, when it ends, and the
// operator who logged in ("" for an unnamed one).
type session struct {
	csrf     string
	expires  time.Time
	operator string
}

// sessions are the panel's logins, kept in memory by random id: a restart
// or another replica asks the person to log in again.
type sessions struct {
	mu sync.Mutex
	m  map[string]session
}

// get returns the live session of id.
func (ss *sessions) get(id string) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	se, ok := ss.m[id]
	if !ok {
		return session{}, false
	}
	if time.Now().After(se.expires) {
		delete(ss.m, id)
		return session{}, false
	}
	return se, true
}

// add keeps a new session, forgetting expired ones (and the oldest when
// there are too many).
func (ss *sessions) add(id string, se session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]session{}
	}
	now := time.Now()
	var oldest string
	for k, v := range ss.m {
		if now.After(v.expires) {
			delete(ss.m, k)
		} else if oldest == "" || v.expires.Before(ss.m[oldest].expires) {
			oldest = k
		}
	}
	if len(ss.m) >= maxSessions && oldest != "" {
		delete(ss.m, oldest)
	}
	ss.m[id] = se
}

// remove forgets the session id.
func (ss *sessions) remove(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.m, id)
}

// randomToken returns 32 random bytes, URL-safe base64.
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// equalSecret compares two secrets in constant time (whatever their
// lengths).
func equalSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// bearer returns the bearer token of r's Authorization header, if any.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// current returns r's live panel session.
func (s *Server) current(r *http.Request) (session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return session{}, false
	}
	return s.sessions.get(c.Value)
}

// session reports whether r carries a valid panel session cookie.
func (s *Server) session(r *http.Request) (ok bool) {
	_, ok = s.current(r)
	return ok
}

// login checks token and, when it is the server's, starts a panel session:
// an HttpOnly, SameSite=Strict cookie (Secure under TLS) naming a random
// session id kept on the server. It reports whether the token was right.
func (s *Server) login(w http.ResponseWriter, r *http.Request, token string) bool {
	cred, ok, _ := s.credentialOf(r.Context(), token)
	if !ok || cred.role != roleOperator { // a run credential never logs in
		s.logger().Warn("panel login refused", "remote", r.RemoteAddr)
		return false
	}
	id, err := randomToken()
	if err != nil {
		s.logger().Error("panel login", "err", err)
		return false
	}
	csrf, err := randomToken()
	if err != nil {
		s.logger().Error("panel login", "err", err)
		return false
	}
	if old, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.remove(old.Value) // a login never keeps a session id it did not make
	}
	s.sessions.add(id, session{csrf: csrf, expires: time.Now().Add(sessionTTL), operator: cred.name})
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    id,
		Path:     "/",
		MaxAge:   int(sessionTTL / time.Second),
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
	return true
}

// logout ends r's panel session, if any, and clears its cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.remove(c.Value)
	}
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    "",
		Path:     "/",
		MaxAge:   -1,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
}

// csrfToken returns the CSRF token of r's panel session, for forms and
// the X-CSRF-Token header; "" without a session.
func (s *Server) csrfToken(r *http.Request) string {
	se, ok := s.current(r)
	if !ok {
		return ""
	}
	return se.csrf
}

// checkCSRF reports whether r carries its session's CSRF token, in the
// X-CSRF-Token header or the form field "csrf".
func (s *Server) checkCSRF(r *http.Request) bool {
	se, ok := s.current(r)
	if !ok || se.csrf == "" {
		return false
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return got != "" && equalSecret(got, se.csrf)
}

// who says which operator made r, for the record of what they decided:
// their name, else the surface ("api", "panel"); "" for no operator.
func (s *Server) who(r *http.Request) string {
	p, ok := principalOf(r)
	if !ok {
		if se, ok := s.current(r); ok {
			p = principal{role: roleOperator, name: se.operator, via: "panel"}
		}
	}
	if p.role != roleOperator {
		return ""
	}
	return p.decidedBy()
}

// safeMethod reports whether m changes no state.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// authed wraps an API handler: the request must carry the bearer token, or
// a panel session cookie — and then, when it changes state, the session's
// CSRF token. Anything else is 401 (403 for a missing CSRF token); a
// bearer token that cannot be checked, the store being unreachable, is 503.
func (s *Server) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if tok, ok := bearer(r); ok {
			p, ok, err := s.bearerPrincipal(r, tok)
			if err != nil {
				// The credential could not be checked (a database blip):
				// nothing is done, and the client may try again.
				w.Header().Set("Retry-After", "1")
				writeError(w, http.StatusServiceUnavailable, "the credential could not be checked (the store is unavailable), try again")
				return
			}
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="warden"`)
				writeError(w, http.StatusUnauthorized, "the bearer token is not this server's")
				return
			}
			h(w, withPrincipal(r, p))
			return
		}
		if se, ok := s.current(r); ok {
			if !safeMethod(r.Method) && !s.checkCSRF(r) {
				writeError(w, http.StatusForbidden, "missing or wrong CSRF token (X-CSRF-Token header or csrf form field)")
				return
			}
			h(w, withPrincipal(r, principal{role: roleOperator, name: se.operator, via: "panel"}))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="warden"`)
		writeError(w, http.StatusUnauthorized, "authentication required: Authorization: Bearer TOKEN, or log in to the panel")
	}
}
