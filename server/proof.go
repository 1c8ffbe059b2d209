package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// HelloPath is the route of the handshake by which a server proves, on
// each new connection, that it knows the client's credential (SPEC S4).
const HelloPath = "/api/hello"

// ClientHeader carries a client's random id, by which the server scopes
// a run credential to the runs that client started (SPEC S4).
const ClientHeader = "X-Warden-Client"

// helloTimeout bounds the handshake of one connection.
const helloTimeout = 10 * time.Second

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

// UnverifiedError is why a client sent nothing to a server: it could not
// prove that it is the warden server holding the client's credential. It
// is never worth a retry.
type UnverifiedError struct {
	URL    string
	Reason string
}

// Error says which server failed to prove itself, and why.
func (e *UnverifiedError) Error() string {
	return fmt.Sprintf("the server at %s did not prove it is the warden server holding this credential: %s; nothing was sent to it", e.URL, e.Reason)
}

// hello proves the server at the other end of conn, before the client
// sends it anything else: it sends a fresh nonce and the key id of the
// client's credential, and checks the answer is the Proof for that nonce
// and the address the client dialled (sameAddr; under TLS the certificate
// already names the server, and a proxy may see another address).
func (c *Client) hello(ctx context.Context, conn net.Conn, host string, sameAddr bool) error {
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	hash := Hash(c.Token)
	body, _ := json.Marshal(Hello{KeyID: KeyID(hash), Nonce: base64.RawURLEncoding.EncodeToString(nonce[:])})
	dl := time.Now().Add(helloTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	conn.SetDeadline(dl)
	defer conn.SetDeadline(time.Time{})
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: warden\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", HelloPath, host, len(body))
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return fmt.Errorf("warden server: handshake: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fmt.Errorf("warden server: handshake: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("warden server: handshake: %w", err)
	}
	refuse := func(why string, args ...any) error {
		return &UnverifiedError{URL: c.URL, Reason: fmt.Sprintf(why, args...)}
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return refuse("it does not know this credential (is it the server this credential belongs to?)")
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout:
		// Busy or restarting (its store unreachable, say): nothing was
		// sent but the nonce and the key id, and the caller may try again
		// on a new connection, which must prove itself as any other.
		return fmt.Errorf("warden server: handshake: HTTP %d: the server cannot answer for now", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return refuse("it answered the handshake with HTTP %d", resp.StatusCode)
	case br.Buffered() != 0 || resp.Close:
		return refuse("it answered the handshake with more than one answer")
	}
	var ans HelloAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return refuse("its answer to the handshake is not the JSON expected")
	}
	want := Proof(hash, nonce[:], ans.Addr)
	if !hmac.Equal([]byte(ans.Proof), []byte(want)) {
		return refuse("its proof is wrong")
	}
	if sameAddr && ans.Addr != conn.RemoteAddr().String() {
		return refuse("it proved itself for %s, not for %s, which the client dialled (a relay?)", ans.Addr, conn.RemoteAddr())
	}
	return nil
}

// transport returns an HTTP transport like base (nil: the default) whose
// every new connection is proved by hello before any request goes on it.
func (c *Client) transport(base *http.Transport) *http.Transport {
	var t *http.Transport
	if base != nil {
		t = base.Clone()
	} else {
		t = http.DefaultTransport.(*http.Transport).Clone()
	}
	t.Proxy = nil // the server is reached directly: a proxy is not the server
	t.ForceAttemptHTTP2 = false
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if err := c.hello(ctx, conn, addr, true); err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
	cfg := t.TLSClientConfig
	t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &tls.Config{}
		if cfg != nil {
			tc = cfg.Clone()
		}
		if tc.ServerName == "" {
			tc.ServerName, _, _ = net.SplitHostPort(addr)
		}
		tc.NextProtos = []string{"http/1.1"}
		conn := tls.Client(raw, tc)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		if err := c.hello(ctx, conn, addr, false); err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
	return t
}

// unverified reports whether err is an UnverifiedError.
func unverified(err error) bool {
	var ue *UnverifiedError
	return errors.As(err, &ue)
}
