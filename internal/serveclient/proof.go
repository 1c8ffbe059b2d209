package serveclient

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/wardenhq/warden/internal/proof"
)

// helloTimeout bounds the handshake of one connection.
const helloTimeout = 10 * time.Second

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
	hash := proof.Hash(c.Token)
	body, _ := json.Marshal(proof.Hello{KeyID: proof.KeyID(hash), Nonce: base64.RawURLEncoding.EncodeToString(nonce[:])})
	dl := time.Now().Add(helloTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	conn.SetDeadline(dl)
	defer conn.SetDeadline(time.Time{})
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: warden\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", proof.HelloPath, host, len(body))
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
	var ans proof.HelloAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return refuse("its answer to the handshake is not the JSON expected")
	}
	want := proof.Proof(hash, nonce[:], ans.Addr)
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
