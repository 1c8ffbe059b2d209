// Package proof holds what warden serve and its clients share of a
// credential (SPEC S4): the hash the server keeps, the run credential
// derived from an operator's, and the handshake by which a server proves,
// on each new connection, that it knows the client's credential before
// the client sends it anything.
package proof

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// HelloPath is the route of the handshake by which a server proves, on
// each new connection, that it knows the client's credential (SPEC S4).
const HelloPath = "/api/hello"

// ClientHeader carries a client's random id, by which the server scopes
// a run credential to the runs that client started (SPEC S4).
const ClientHeader = "X-Warden-Client"

// Hash returns the SHA-256 of credential cred, in hex: what the server
// keeps of a credential, and from which it derives the keys below.
func Hash(cred string) string {
	h := sha256.Sum256([]byte(cred))
	return hex.EncodeToString(h[:])
}

// mac returns HMAC-SHA-256 under the credential hash hash of the parts,
// each followed by a NUL, after label.
func mac(hash, label string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, []byte(hash))
	m.Write([]byte(label))
	m.Write([]byte{0})
	for _, p := range parts {
		m.Write(p)
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// KeyID names the credential of hash in a handshake: it tells the server
// which credential to prove knowledge of, and grants nothing.
func KeyID(hash string) string {
	return hex.EncodeToString(mac(hash, "warden key id v1")[:16])
}

// RunCredential returns the run credential derived from the operator
// credential of hash: `warden run` given an operator's credential keeps
// only this, which submits and waits but never decides (SPEC S4).
func RunCredential(hash string) string {
	return "run-" + base64.RawURLEncoding.EncodeToString(mac(hash, "warden run credential v1"))
}

// Proof is the server's answer to a client's nonce on the connection the
// server sees from its side as addr: an HMAC under a key derived from the
// credential of hash, so that only a server holding the credential (or
// its hash) can make it, and it is good for that nonce and address alone.
func Proof(hash string, nonce []byte, addr string) string {
	return base64.RawURLEncoding.EncodeToString(mac(hash, "warden server proof v1", nonce, []byte(addr)))
}

// Hello is the body of POST /api/hello.
type Hello struct {
	KeyID string `json:"kid"`
	Nonce string `json:"nonce"` // base64url, 32 random bytes
}

// HelloAnswer is the server's answer to a Hello.
type HelloAnswer struct {
	Proof string `json:"proof"`
	Addr  string `json:"addr"` // the connection's address as the server sees it
}
