package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest/stores"
)

const testToken = "test-token-0123456789"

// openStore opens the store at u, closed when the test ends.
func openStore(t testing.TB, u string) *store.Store {
	t.Helper()
	return stores.Open(t, u)
}

// testKey returns a sealer with a new key in a temporary directory.
func testKey(t testing.TB) gate.Sealer {
	t.Helper()
	key, err := gate.FileSealer(filepath.Join(t.TempDir(), "keys", "override.key"))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// testServer is a Server on a real store, listening on loopback.
type testServer struct {
	*Server
	URL    string
	Client *serveclient.Client
	Store  *store.Store
}

// startServer serves a Server on the store at u (a fresh SQLite one when
// u is "") on a loopback port, with the key of a temporary directory.
func startServer(t testing.TB, u string) *testServer {
	t.Helper()
	if u == "" {
		u = "sqlite:" + filepath.Join(t.TempDir(), "warden.db")
	}
	st := openStore(t, u)
	s := &Server{Store: st, Token: testToken, Sealer: testKey(t)}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &testServer{Server: s, URL: hs.URL, Store: st, Client: &serveclient.Client{URL: hs.URL, Token: testToken}}
}

// call makes one HTTP request with the test token (unless header says
// otherwise) and returns the status and body.
func call(t testing.TB, method, u string, body string, header http.Header) (int, []byte, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if header == nil {
		header = http.Header{"Authorization": {"Bearer " + testToken}}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data, resp.Header
}

// decode unmarshals data into v or fails the test.
func decode(t testing.TB, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
}

// submit puts a pending approval request in the queue through the client.
func submit(t testing.TB, c *serveclient.Client, run string) store.Request {
	t.Helper()
	r := store.Request{Kind: store.KindApproval, RunID: run, Agent: "main",
		Call:    store.Call{ID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)},
		Choices: []string{"approve", "modify", "reject", "terminate"}}
	if err := c.Submit(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// errorOf returns the "error" of a JSON error body.
func errorOf(data []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &e) != nil {
		return ""
	}
	return e.Error
}

// newHTTPTest serves h on a loopback port.
func newHTTPTest(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

// recorder is a minimal http.ResponseWriter for handler calls without a
// listener.
type recorder struct {
	*httptest.ResponseRecorder
	code int
}

func newRecorder() *recorder { return &recorder{ResponseRecorder: httptest.NewRecorder()} }

func (r *recorder) WriteHeader(code int) { r.code = code; r.ResponseRecorder.WriteHeader(code) }

// listenAgain listens on addr again after a server there closed.
func listenAgain(addr string) (net.Listener, error) {
	var err error
	for range 50 {
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, err
}

// bound returns a time limit of a test, longer under the race detector.
func bound(d time.Duration) time.Duration {
	if raceEnabled {
		return 5 * d
	}
	return d
}
