package serve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proof"
)

// A denial id names a run only when the run id could name a transcript
// file under $WARDEN_HOME/runs: no path separators, no "..".
func FuzzDenialRun(f *testing.F) {
	for _, s := range []string{"20260102T150405Z-0badc0de-d1", "run-d10", "-d1", "../x-d1", "a/b-d2", "x", "..-d1", "a..b-d3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		run, ok := denialRun(id)
		if !ok {
			return
		}
		if run == "" || strings.ContainsAny(run, "/\\\x00") || strings.Contains(run, "..") || !strings.HasPrefix(id, run+"-d") {
			t.Fatalf("denialRun(%q) = %q", id, run)
		}
	})
}

// A wait parameter is refused or read as a duration within [0, maxWait].
func FuzzParseWait(f *testing.F) {
	for _, s := range []string{"", "30s", "1m", "30", "-1s", "1e400", "NaN", "0.5", "9999999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, err := parseWait(v)
		if err == nil && (d < 0 || d > maxWait) {
			t.Fatalf("parseWait(%q) = %v", v, d)
		}
	})
}

// Whatever the body of POST /api/events, the server answers 204 or a 4xx
// with a JSON error, and never panics.
func FuzzPostEvents(f *testing.F) {
	for _, s := range []string{
		`[]`, `{}`, `"x"`, `[{"event":"info","id":"r-1","run_id":"r","message":"hi"}]`,
		`{"event":"tool","id":"r-2","run_id":"r","time":"2026-01-02T15:04:05Z","call_id":"c","arguments":{"cmd":"ls"}}`,
		`[{"event":"nope","id":"r-3","run_id":"r","x":[1,2]}]`, `[{"event":"info"}]`, `[1]`, `{"time":"yesterday"}`,
	} {
		f.Add(s)
	}
	ts := startServer(f, "")
	h := ts.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/api/events", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() { defer close(done); h.ServeHTTP(rec, req) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer to %q", body)
		}
		switch {
		case rec.Code == http.StatusNoContent:
		case rec.Code >= 400 && rec.Code < 500 && errorOf(rec.Body.Bytes()) != "":
		default:
			t.Fatalf("POST /api/events %q: %d %s", body, rec.Code, rec.Body)
		}
	})
}

// The handshake (POST /api/hello) answers a proof only for a key id the
// server holds, and the proof is the one for the nonce sent and the
// address the server sees; any other body is refused, never a panic
// (SPEC S4).
func FuzzHello(f *testing.F) {
	s := &Server{Token: testToken, RunToken: "run-token-0123456789abcdefghij"}
	kid := proof.KeyID(proof.Hash(testToken))
	for _, b := range []string{
		`{"kid":"` + kid + `","nonce":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`,
		`{"kid":"` + kid + `","nonce":""}`, `{"kid":"x","nonce":"AAAAAAAAAAAAAAAAAAAAAA"}`, `{}`, `[]`, `null`, `{"kid":1}`, ``, `{"kid":"` + kid + `"}{}`,
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, proof.HelloPath, strings.NewReader(body))
		addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7878}
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, addr))
		w := httptest.NewRecorder()
		s.hello(w, req)
		if w.Code != http.StatusOK {
			return
		}
		var in proof.Hello
		var out proof.HelloAnswer
		if json.Unmarshal([]byte(body), &in) != nil || json.Unmarshal(w.Body.Bytes(), &out) != nil {
			t.Fatalf("200 for %q: %s", body, w.Body)
		}
		nonce, err := base64.RawURLEncoding.DecodeString(in.Nonce)
		if err != nil || out.Addr != addr.String() {
			t.Fatalf("200 for %q: %s", body, w.Body)
		}
		ok := false
		for _, c := range s.fixed() {
			ok = ok || (proof.KeyID(c.hash) == in.KeyID && out.Proof == proof.Proof(c.hash, nonce, out.Addr))
		}
		if !ok {
			t.Fatalf("a proof for a key id the server does not hold, or the wrong proof: %q → %s", body, w.Body)
		}
	})
}

// An operator's credential is refused unless it can hold 128 bits; what
// passes is at least 20 characters (20 printable characters hold 131 bits).
func FuzzCheckStrength(f *testing.F) {
	for _, s := range []string{"1", "t0k3n", "0123456789abcdef0123456789abcdef", "op-MvtPrcmVtBCGI8xjtB5xhW9uhvpdXDl5mA4FWuBXMPk", strings.Repeat("9", 39), strings.Repeat("9", 38)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		if CheckStrength(tok) == nil && len(tok) < 20 {
			t.Fatalf("CheckStrength(%q) passed with %d characters", tok, len(tok))
		}
	})
}
