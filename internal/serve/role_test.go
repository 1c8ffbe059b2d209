package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
)

// runToken is the run credential of the servers of these tests.
const runToken = "run-token-0123456789abcdefghij"

// Attack (SPEC S4): a tool that found the run's credential — the run
// credential a server keeps, or the one `warden run` derives from an
// operator's — calls every route that decides or reads what is not its
// own. Each is refused, and the effect is checked: the run's pending call
// is still pending, no override was granted, no panel session was made.
func TestS4_RunCredentialCannotDecide(t *testing.T) {
	ts := startServer(t, "")
	ts.RunToken = runToken
	ctx := context.Background()
	for _, cred := range []struct{ name, token string }{
		{"run credential", runToken},
		{"derived from the operator's", proof.RunCredential(proof.Hash(testToken))},
	} {
		t.Run(cred.name, func(t *testing.T) {
			run := &serveclient.Client{URL: ts.URL, Token: cred.token}
			rm := submit(t, run, "run-"+cred.name) // the run's own pending call, say rm -f important.txt
			h := http.Header{"Authorization": {"Bearer " + cred.token}}
			for _, tc := range []struct {
				method, path, body string
				want               int
			}{
				{"POST", "/api/requests/" + rm.ID + "/decision", `{"decision":"approve"}`, http.StatusForbidden},
				{"POST", "/api/requests/" + rm.ID + "/decision", `{"decision":"modify","modified":{"cmd":"true"}}`, http.StatusForbidden},
				{"GET", "/api/requests?status=pending", "", http.StatusForbidden},
				{"GET", "/api/runs", "", http.StatusForbidden},
				{"GET", "/api/search?q=rm", "", http.StatusForbidden},
				{"GET", "/api/denials", "", http.StatusForbidden},
				{"POST", "/api/denials/d1/approve", `{"note":"x"}`, http.StatusForbidden},
			} {
				code, body, _ := call(t, tc.method, ts.URL+tc.path, tc.body, h)
				if code != tc.want {
					t.Errorf("%s %s with a run credential: %d %s, want %d", tc.method, tc.path, code, body, tc.want)
				}
			}
			sreq, _ := http.NewRequest("GET", ts.URL+"/api/events/stream", nil)
			sreq.Header = h
			if resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(sreq); err != nil || resp.StatusCode != http.StatusForbidden {
				t.Errorf("the event stream with a run credential: %v %v, want 403", resp, err)
			} else {
				resp.Body.Close()
			}
			resp, err := http.PostForm(ts.URL+"/login", url.Values{"token": {cred.token}, "next": {"/"}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
				t.Errorf("panel login with a run credential: %d, cookies %v; want 401 and none", resp.StatusCode, resp.Cookies())
			}
			if got, err := ts.Store.Request(ctx, rm.ID); err != nil || got.Status != store.StatusPending {
				t.Fatalf("the run's call is %s (%v) after the attack, want pending", got.Status, err)
			}
		})
	}
}

// A run credential acts only on its own runs: another client holding the
// same credential cannot read, wait for or withdraw the first client's
// requests, nor write its run's events or requests (SPEC S4).
func TestS4_RunCredentialOwnRunsOnly(t *testing.T) {
	ts := startServer(t, "")
	ts.RunToken = runToken
	ctx := context.Background()
	mine := &serveclient.Client{URL: ts.URL, Token: runToken}
	other := &serveclient.Client{URL: ts.URL, Token: runToken}
	r := submit(t, mine, "run-mine")
	if _, err := mine.Request(ctx, r.ID); err != nil {
		t.Fatalf("the owner reads its request: %v", err)
	}
	if _, err := other.Request(ctx, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another client reads the request: %v, want not found", err)
	}
	if err := other.Withdraw(ctx, r.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another client withdraws the request: %v, want not found", err)
	}
	stolen := store.Request{Kind: store.KindApproval, RunID: "run-mine", Call: store.Call{ID: "x", Function: "bash"}}
	var se *serveclient.StatusError
	if err := other.Submit(ctx, &stolen); !errors.As(err, &se) || se.Code != http.StatusForbidden {
		t.Errorf("another client submits into the run: %v, want 403", err)
	}
	// Raw bearer calls without a client id own nothing of the client's.
	code, body, _ := call(t, "POST", ts.URL+"/api/events", `[{"event":"run_start","id":"e1","run_id":"run-mine","time":"2026-01-01T00:00:00Z"}]`,
		http.Header{"Authorization": {"Bearer " + runToken}, "Content-Type": {"application/json"}})
	if code != http.StatusForbidden {
		t.Errorf("events for another's run: %d %s, want 403", code, body)
	}
	if got, _ := ts.Store.Request(ctx, r.ID); got.Status != store.StatusPending {
		t.Errorf("the request is %s, want pending", got.Status)
	}
	if err := mine.Withdraw(ctx, r.ID); err != nil {
		t.Errorf("the owner withdraws its request: %v", err)
	}
}

// Every decision records who decided (SPEC S4): the operator of
// $WARDEN_TOKEN by the name the server gives it, an operator added to the
// store by theirs, through the API and the panel alike.
func TestS4_DecidedByNamesTheOperator(t *testing.T) {
	ts := startServer(t, "")
	ts.Operator = "alice"
	ctx := context.Background()
	const bobToken = "bob-token-0123456789abcdefghijkl"
	if err := ts.Store.AddOperator(ctx, "bob", proof.Hash(bobToken)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, by, via string
		decide        func(t *testing.T, id string)
	}{
		{"api alice", "alice", "api", func(t *testing.T, id string) {
			if _, err := ts.Client.Decide(ctx, id, store.Answer{Decision: "reject"}); err != nil {
				t.Fatal(err)
			}
		}},
		{"api bob", "bob", "api", func(t *testing.T, id string) {
			c := &serveclient.Client{URL: ts.URL, Token: bobToken}
			if _, err := c.Decide(ctx, id, store.Answer{Decision: "approve"}); err != nil {
				t.Fatal(err)
			}
		}},
		{"panel bob", "bob", "panel", func(t *testing.T, id string) {
			b := newBrowser(t, ts.URL)
			resp, _ := b.do("POST", "/login", url.Values{"token": {bobToken}, "next": {"/"}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("bob's login: %d", resp.StatusCode)
			}
			_, page := b.do("GET", "/", nil)
			resp, _ = b.do("POST", "/requests/"+id+"/decide", url.Values{"decision": {"reject"}, "csrf": {csrfOf(t, page)}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("bob's decision in the panel: %d", resp.StatusCode)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := submit(t, ts.Client, "run-"+strings.ReplaceAll(tc.name, " ", "-"))
			tc.decide(t, r.ID)
			code, body, _ := call(t, "GET", ts.URL+"/api/requests/"+r.ID, "", nil)
			var got map[string]any
			decode(t, body, &got)
			if code != 200 || got["decided_by"] != tc.by || got["decided_via"] != tc.via {
				t.Errorf("GET /api/requests/%s: %d decided_by %v via %v, want %s via %s", r.ID, code, got["decided_by"], got["decided_via"], tc.by, tc.via)
			}
		})
	}
}

// squatter is a server on the port of warden's that records every byte it
// receives and approves everything: what another local user could run.
type squatter struct {
	mu  sync.Mutex
	got bytes.Buffer
	srv *httptest.Server
}

func newSquatter(t *testing.T, h http.Handler) *squatter {
	sq := &squatter{}
	sq.srv = httptest.NewUnstartedServer(h)
	ln := sq.srv.Listener
	sq.srv.Listener = &recordingListener{Listener: ln, sq: sq}
	sq.srv.Start()
	t.Cleanup(sq.srv.Close)
	return sq
}

func (sq *squatter) received() string {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	return sq.got.String()
}

type recordingListener struct {
	net.Listener
	sq *squatter
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: c, sq: l.sq}, nil
}

type recordingConn struct {
	net.Conn
	sq *squatter
}

func (c *recordingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.sq.mu.Lock()
	c.sq.got.Write(b[:n])
	c.sq.mu.Unlock()
	return n, err
}

// approveAll answers every request as a warden server that approved it,
// and the handshake with a proof it cannot make.
func approveAll(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == proof.HelloPath {
		json.NewEncoder(w).Encode(proof.HelloAnswer{Proof: "AAAA", Addr: r.Context().Value(http.LocalAddrContextKey).(net.Addr).String()})
		return
	}
	json.NewEncoder(w).Encode(store.Request{ID: "sq1", Kind: "approval", Status: "decided", Decision: "approve", DecidedBy: "panel", Choices: []string{"approve"}})
}

// Attack (SPEC S4): another local user's server on the port — one that
// approves everything, and one that relays the handshake to the real
// server — gets neither the credential nor the call's arguments, and the
// client fails closed with an error that says why.
func TestS4_SquatterGetsNothing(t *testing.T) {
	real := startServer(t, "")
	real.RunToken = runToken
	target, _ := url.Parse(real.URL)
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{
		{"approves everything", http.HandlerFunc(approveAll)},
		{"relays to the real server", httputil.NewSingleHostReverseProxy(target)},
		{"answers 404", http.NotFoundHandler()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sq := newSquatter(t, tc.h)
			c := &serveclient.Client{URL: sq.srv.URL, Token: runToken}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := store.Request{Kind: store.KindApproval, RunID: "run-sq", Call: store.Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"rm -f important.txt"}`)}}
			err := c.Submit(ctx, &r)
			var ue *serveclient.UnverifiedError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Fatalf("Submit to a squatter: %v, want an UnverifiedError", err)
			}
			if _, err := c.Wait(ctx, "sq1"); !errors.As(err, &ue) {
				t.Errorf("Wait on a squatter: %v, want an UnverifiedError", err)
			}
			if err := c.Write(event.Event{ID: "sq-1", Time: time.Now().UTC(), RunID: "run-sq", Agent: "main", Data: event.Info{Message: "rm -f important.txt"}}); err == nil {
				if err := c.Flush(ctx); !errors.As(err, &ue) {
					t.Errorf("events to a squatter: %v, want an UnverifiedError", err)
				}
			}
			got := sq.received()
			for _, secret := range []string{runToken, "important.txt", "Bearer", "rm -f"} {
				if strings.Contains(got, secret) {
					t.Errorf("the squatter received %q:\n%s", secret, got)
				}
			}
			if !strings.Contains(got, proof.HelloPath) {
				t.Errorf("the squatter received no handshake at all:\n%s", got)
			}
			if n, _ := real.Store.Requests(ctx, "all"); len(n) != 0 {
				t.Errorf("the real server got %d requests through the squatter", len(n))
			}
		})
	}
}

// Under TLS the client proves the server the same way, on the TLS
// connection, before it sends anything (SPEC S4).
func TestS4_ProvedOverTLS(t *testing.T) {
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	s := &Server{Store: st, Token: testToken, RunToken: runToken}
	hs := httptest.NewTLSServer(s.Handler())
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		token string
		role  string
	}{{testToken, roleOperator}, {runToken, roleRun}} {
		c := &serveclient.Client{URL: hs.URL, Token: tc.token, HTTP: hs.Client()}
		got, err := c.Whoami(context.Background())
		if err != nil || got.Role != tc.role {
			t.Errorf("whoami over TLS: %+v, %v; want %s", got, err, tc.role)
		}
	}
	c := &serveclient.Client{URL: hs.URL, Token: "not-this-servers-credential-0123456789", HTTP: hs.Client()}
	var ue *serveclient.UnverifiedError
	if _, err := c.Whoami(context.Background()); !errors.As(err, &ue) {
		t.Errorf("an unknown credential over TLS: %v, want an UnverifiedError", err)
	}
}
