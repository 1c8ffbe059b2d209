package serve

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"sync"

	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
)

// The roles of a credential (SPEC S4): an operator decides; a run submits
// requests, waits for and withdraws its own, and posts its events — only
// for the runs its client claimed.
const (
	roleOperator = "operator"
	roleRun      = "run"
)

// principal is who made an API call.
type principal struct {
	role string
	// name is the operator's name; "" for an unnamed operator (the
	// $WARDEN_TOKEN of a server without WARDEN_OPERATOR) and for runs.
	name string
	// via is the surface: "api" or "panel".
	via string
	// owner, for a run, is the id its runs are claimed under.
	owner string
}

// decidedBy is what a decision by p records as decided_by: the operator's
// name, else the surface, as before operators had names.
func (p principal) decidedBy() string {
	if p.name != "" {
		return p.name
	}
	return p.via
}

// credential is one credential the server knows, by the hash of its text
// (proof.Hash).
type credential struct {
	role, name, hash string
}

// principalKey keys the principal in a request's context.
type principalKey struct{}

// withPrincipal returns r carrying p.
func withPrincipal(r *http.Request, p principal) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
}

// principalOf returns who made r, as authed found it.
func principalOf(r *http.Request) (principal, bool) {
	p, ok := r.Context().Value(principalKey{}).(principal)
	return p, ok
}

// fixed returns the credentials the server holds in memory: the operator
// credential Token, the run credential derived from it, and RunToken.
func (s *Server) fixed() []credential {
	var cs []credential
	if s.Token != "" {
		h := proof.Hash(s.Token)
		cs = append(cs, credential{roleOperator, s.Operator, h}, credential{roleRun, "", proof.Hash(proof.RunCredential(h))})
	}
	if s.RunToken != "" {
		cs = append(cs, credential{roleRun, "", proof.Hash(s.RunToken)})
	}
	return cs
}

// stored returns the operators of the store and the run credentials
// derived from theirs.
func (s *Server) stored(ctx context.Context) ([]credential, error) {
	ops, err := s.Store.Operators(ctx)
	if err != nil {
		return nil, err
	}
	var cs []credential
	for _, o := range ops {
		cs = append(cs, credential{roleOperator, o.Name, o.Hash}, credential{roleRun, "", proof.Hash(proof.RunCredential(o.Hash))})
	}
	return cs, nil
}

// find returns the credential for which match holds, looking in memory
// first and then in the store.
func (s *Server) find(ctx context.Context, match func(credential) bool) (credential, bool, error) {
	for _, c := range s.fixed() {
		if match(c) {
			return c, true, nil
		}
	}
	if s.Store == nil {
		return credential{}, false, nil
	}
	cs, err := s.stored(ctx)
	if err != nil {
		return credential{}, false, err
	}
	for _, c := range cs {
		if match(c) {
			return c, true, nil
		}
	}
	return credential{}, false, nil
}

// credentialOf returns the credential whose text is token. An error (the
// store could not be read) finds none: the caller fails closed.
func (s *Server) credentialOf(ctx context.Context, token string) (credential, bool, error) {
	if token == "" {
		return credential{}, false, nil
	}
	h := proof.Hash(token)
	c, ok, err := s.find(ctx, func(c credential) bool { return subtle.ConstantTimeCompare([]byte(c.hash), []byte(h)) == 1 })
	if err != nil {
		s.logger().Error("looking up a credential", "err", err)
		return credential{}, false, err
	}
	return c, ok, nil
}

// bearerPrincipal returns who presents token on r; an error if the store,
// which holds named operators' credentials, could not be read.
func (s *Server) bearerPrincipal(r *http.Request, token string) (principal, bool, error) {
	c, ok, err := s.credentialOf(r.Context(), token)
	if !ok {
		return principal{}, false, err
	}
	p := principal{role: c.role, name: c.name, via: "api"}
	if c.role == roleRun {
		// A client's runs are its own: scoped by its random id, or by the
		// credential for a client that sends none.
		p.owner = "cred:" + c.hash[:32]
		if id := r.Header.Get(proof.ClientHeader); id != "" {
			p.owner = "client:" + proof.Hash(id)[:32]
		}
	}
	return p, true, nil
}

// operatorOnly wraps an API handler that takes an operator: a run
// credential gets 403.
func (s *Server) operatorOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if p, ok := principalOf(r); !ok || p.role != roleOperator {
			writeError(w, http.StatusForbidden, "a run credential cannot do this: deciding, and reading what is not its own, takes an operator's credential (SPEC S4)")
			return
		}
		h(w, r)
	}
}

// ownRun reports whether r's principal may act on run id: an operator on
// any, a run on the runs its client claimed. claim lets a run claim a run
// no client owns yet. A refusal is answered (403 or, for another's
// request, 404: a run learns nothing of other runs).
func (s *Server) ownRun(w http.ResponseWriter, r *http.Request, id string, claim bool) bool {
	p, ok := principalOf(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "authentication required")
		return false
	}
	if p.role == roleOperator {
		return true
	}
	var owned bool
	var err error
	switch known, ok := s.owners.get(id); {
	case ok: // a run's owner never changes, so it is kept once read
		owned = known == p.owner
	case claim:
		if id == "" {
			writeError(w, http.StatusBadRequest, "a run credential must name the run (run_id)")
			return false
		}
		if owned, err = s.Store.ClaimRun(r.Context(), id, p.owner); owned {
			s.owners.put(id, p.owner)
		}
	default:
		var owner string
		owner, err = s.Store.RunOwner(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		} else if err == nil {
			s.owners.put(id, owner)
		}
		owned = err == nil && owner == p.owner
	}
	switch {
	case err != nil:
		s.storeError(w, r, err)
		return false
	case !owned && claim:
		writeError(w, http.StatusForbidden, "run "+id+" belongs to another client: a run credential acts only on its own runs (SPEC S4)")
		return false
	case !owned:
		writeError(w, http.StatusNotFound, "no such request of this run")
		return false
	}
	return true
}

// hello answers POST /api/hello, the handshake of serveclient.Client: the
// proof, for the client's nonce and this connection's address as the
// server sees it, that the server holds the credential the client names.
// It needs no credential and reveals none.
func (s *Server) hello(w http.ResponseWriter, r *http.Request) {
	var in proof.Hello
	if !decodeBody(w, r, 4<<10, &in) {
		return
	}
	nonce, err := base64.RawURLEncoding.DecodeString(in.Nonce)
	if err != nil || len(nonce) < 16 || len(nonce) > 64 || in.KeyID == "" {
		writeError(w, http.StatusBadRequest, "a hello needs kid and nonce (16 to 64 bytes, base64url)")
		return
	}
	c, ok, err := s.find(r.Context(), func(c credential) bool {
		return subtle.ConstantTimeCompare([]byte(proof.KeyID(c.hash)), []byte(in.KeyID)) == 1
	})
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, "this server does not know that credential")
		return
	}
	addr := ""
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		addr = a.String()
	}
	writeJSON(w, http.StatusOK, proof.HelloAnswer{Proof: proof.Proof(c.hash, nonce, addr), Addr: addr})
}

// whoami answers GET /api/whoami: the role of the caller's credential and
// the operator's name, so that a client learns before it starts that the
// server takes its credential, and as what.
func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	p, _ := principalOf(r)
	writeJSON(w, http.StatusOK, serveclient.Whoami{Role: p.role, Name: p.name})
}

// maxOwners bounds the run owners a server keeps in memory; past it the
// cache starts again (the store still knows them all).
const maxOwners = 1 << 16

// ownerCache keeps the owners of runs read from the store: a run's owner
// never changes, so a read one need not be read again.
type ownerCache struct {
	mu sync.Mutex
	m  map[string]string
}

// get returns the owner of run id, if kept.
func (c *ownerCache) get(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[id]
	return o, ok
}

// put keeps owner as the owner of run id.
func (c *ownerCache) put(id, owner string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxOwners {
		c.m = map[string]string{}
	}
	c.m[id] = owner
}
