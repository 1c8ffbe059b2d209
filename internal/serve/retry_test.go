package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest/stores"
)

// A submit whose answer is lost — the server stored the request, then the
// connection broke — or that meets a server answering 503 is retried with
// the id the client chose before its first try: one request row exists,
// the run's call is decided once, and nothing is approved unseen (SPEC
// S3: a run survives its server's restart).
func TestS3_SubmitRetriedWithoutDuplicates(t *testing.T) {
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	s := &Server{Store: st, Token: testToken, Sealer: testKey(t)}
	h := s.Handler()
	var tries, stored atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/requests" {
			h.ServeHTTP(w, r)
			return
		}
		switch tries.Add(1) {
		case 1, 2:
			// The server stores the request, then the answer is lost.
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusCreated {
				stored.Add(1)
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case 3:
			http.Error(w, `{"error":"restarting"}`, http.StatusServiceUnavailable)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	defer hs.Close()
	c := &serveclient.Client{URL: hs.URL, Token: testToken}
	ctx, cancel := context.WithTimeout(context.Background(), bound(20*time.Second))
	defer cancel()
	deadline := time.Now().Add(time.Minute)
	r := store.Request{Kind: store.KindApproval, RunID: "run-restart", Agent: "main", Deadline: &deadline,
		Call: store.Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"rm -f important.txt"}`)}}
	if err := c.Submit(ctx, &r); err != nil {
		t.Fatalf("submit across lost answers: %v", err)
	}
	if tries.Load() != 4 || stored.Load() < 1 {
		t.Fatalf("%d tries, %d stored before the answer was lost; want 4 tries and the first stored", tries.Load(), stored.Load())
	}
	all, err := st.Requests(ctx, "all")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].ID != r.ID || all[0].Status != store.StatusPending {
		t.Fatalf("want one pending request %s, stored %+v", r.ID, all)
	}
	// Nothing ran unapproved: the run waits for its one request, and a
	// person's one decision releases it.
	done := make(chan store.Request, 1)
	go func() {
		got, err := c.Wait(ctx, r.ID)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	select {
	case got := <-done:
		t.Fatalf("released before any decision: %+v", got)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := st.Decide(ctx, r.ID, store.Answer{Decision: "reject", DecidedBy: "alice"}); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got.Decision != "reject" || got.Status != store.StatusDecided {
		t.Fatalf("released with %+v", got)
	}
	// A late retry of the same submit answers the request as decided, and
	// still stores no second row.
	again := store.Request{ID: r.ID, Kind: store.KindApproval, RunID: "run-restart", Agent: "main", Deadline: &deadline,
		Call: store.Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"rm -f important.txt"}`)}}
	if err := c.Submit(ctx, &again); err != nil || again.Decision != "reject" {
		t.Fatalf("a repeated submit: %v, %+v", err, again)
	}
	if all, _ := st.Requests(ctx, "all"); len(all) != 1 {
		t.Fatalf("%d requests after a repeated submit, want 1", len(all))
	}
}

// A client-chosen id held by another run's request, or that is too short
// to be unguessable, is refused: a run cannot read or replace another's
// request by naming its id (SPEC S4).
func TestS4_SubmitIDOfAnotherRunRefused(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	mine := submit(t, ts.Client, "run-a")
	for _, tc := range []struct {
		name string
		r    store.Request
		code int
	}{
		{"another run", store.Request{ID: mine.ID, Kind: store.KindApproval, RunID: "run-b", Call: store.Call{ID: "c1", Function: "bash"}}, http.StatusConflict},
		{"another call", store.Request{ID: mine.ID, Kind: store.KindApproval, RunID: "run-a", Call: store.Call{ID: "c2", Function: "bash"}}, http.StatusConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ts.Client.Submit(ctx, &tc.r)
			var se *serveclient.StatusError
			if !errors.As(err, &se) || se.Code != tc.code {
				t.Fatalf("submit: %v, want HTTP %d", err, tc.code)
			}
		})
	}
	all, err := ts.Store.Requests(ctx, "all")
	if err != nil || len(all) != 1 || all[0].RunID != "run-a" {
		t.Fatalf("stored %+v (%v), want run-a's one request", all, err)
	}
	// An id too short to be unguessable, or not URL-safe, is not a
	// client's choice: the server picks the id, as before clients chose.
	for _, id := range []string{"abc", strings.Repeat("a", 20) + "/x"} {
		r := store.Request{ID: id, Kind: store.KindApproval, RunID: "run-a", Call: store.Call{ID: "c-" + id[:3], Function: "bash"}}
		if err := ts.Client.Submit(ctx, &r); err != nil {
			t.Fatalf("submit with id %q: %v", id, err)
		}
		if r.ID == id || !store.ValidID(r.ID) {
			t.Errorf("submit with id %q stored as %q, want an id the server chose", id, r.ID)
		}
	}
}

// A server that answers the handshake 503 — busy, or its store unreachable
// for a moment — is tried again on a new connection, which must prove
// itself as any other: the run's submit goes through once the server
// answers, and while it did not, the client sent nothing but handshakes
// (SPEC S3, S4).
func TestS3_HandshakeRetriedWhileServerBusy(t *testing.T) {
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	s := &Server{Store: st, Token: testToken, RunToken: runToken, Sealer: testKey(t)}
	h := s.Handler()
	var busy atomic.Int32
	busy.Store(3)
	var leaked atomic.Value
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if busy.Load() > 0 {
			if r.URL.Path != proof.HelloPath || r.Header.Get("Authorization") != "" {
				leaked.Store(r.Method + " " + r.URL.Path)
			}
			busy.Add(-1)
			writeError(w, http.StatusServiceUnavailable, "the store is unavailable, try again")
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c := &serveclient.Client{URL: hs.URL, Token: runToken}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := store.Request{Kind: store.KindApproval, RunID: "run-busy", Call: store.Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)}}
	if err := c.Submit(ctx, &r); err != nil {
		t.Fatalf("submit across a busy handshake: %v", err)
	}
	if v := leaked.Load(); v != nil {
		t.Fatalf("the client sent %v to a server that had not proved itself", v)
	}
	if all, err := st.Requests(ctx, "all"); err != nil || len(all) != 1 {
		t.Fatalf("%d requests stored, want 1 (%v)", len(all), err)
	}
}

// A squatter that answers every handshake 503 gets nothing either: the
// client keeps asking it to prove itself until the run's time is up, then
// fails closed (SPEC S4).
func TestS4_BusySquatterGetsNothing(t *testing.T) {
	sq := newSquatter(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusServiceUnavailable, "busy")
	}))
	c := &serveclient.Client{URL: sq.srv.URL, Token: runToken}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r := store.Request{Kind: store.KindApproval, RunID: "run-sq", Call: store.Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"rm -f important.txt"}`)}}
	if err := c.Submit(ctx, &r); err == nil {
		t.Fatal("a submit to a squatter succeeded")
	}
	got := sq.received()
	for _, secret := range []string{runToken, "important.txt", "Bearer", "rm -f"} {
		if strings.Contains(got, secret) {
			t.Errorf("the squatter received %q:\n%s", secret, got)
		}
	}
	if strings.Count(got, proof.HelloPath) < 2 {
		t.Errorf("the client did not ask again:\n%s", got)
	}
}

// A bearer token that cannot be checked — named operators' credentials are
// in the store, and the store cannot be read — is answered 503, never 401
// (which a client does not retry, and which counts towards the back-off of
// wrong tokens), and nothing is done (SPEC S3, S4).
func TestS3_CredentialUncheckedIs503(t *testing.T) {
	st := stores.Temp(t)
	const alice = "op-alice-0123456789abcdefghijklmnopqrstuv"
	if err := st.AddOperator(context.Background(), "alice", proof.Hash(alice)); err != nil {
		t.Fatal(err)
	}
	s := &Server{Store: st, Sealer: testKey(t)}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	st.Close() // the store can no longer be read
	for range 8 {
		code, body, hdr := call(t, http.MethodPost, hs.URL+"/api/requests/abcdefghijklmnop1234/decision", `{"decision":"approve"}`,
			http.Header{"Authorization": {"Bearer " + alice}})
		if code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
			t.Fatalf("%d %s, want 503 with Retry-After", code, body)
		}
	}
}
