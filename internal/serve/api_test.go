package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest"
	"github.com/wardenhq/warden/internal/transcript"
)

// /healthz answers without a token; nothing else does.
func TestS2_HealthzNoAuth(t *testing.T) {
	ts := startServer(t, "")
	code, body, h := call(t, "GET", ts.URL+"/healthz", "", http.Header{})
	if code != 200 || string(body) != "ok" || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Fatalf("healthz: %d %q %s", code, body, h.Get("Content-Type"))
	}
}

// Every API route refuses a request without the token, or with a wrong
// one, before it reads or changes anything.
func TestS2_APIRequiresToken(t *testing.T) {
	ts := startServer(t, "")
	r := submit(t, ts.Client, "run1")
	routes := []struct{ method, path, body string }{
		{"GET", "/api/requests", ""},
		{"GET", "/api/requests?status=all", ""},
		{"POST", "/api/requests", `{"kind":"approval","choices":["approve","reject"]}`},
		{"GET", "/api/requests/" + r.ID, ""},
		{"POST", "/api/requests/" + r.ID + "/decision", `{"decision":"approve"}`},
		{"POST", "/api/requests/" + r.ID + "/withdraw", ""},
		{"GET", "/api/runs", ""},
		{"GET", "/api/runs/run1", ""},
		{"GET", "/api/runs/run1/events", ""},
		{"POST", "/api/events", `[]`},
		{"GET", "/api/events/stream", ""},
		{"GET", "/api/search?q=x", ""},
		{"GET", "/api/denials", ""},
		{"POST", "/api/denials/run1-d1/approve", `{}`},
		{"GET", "/api/nothing", ""},
	}
	headers := map[string]http.Header{
		"none":         {},
		"wrong token":  {"Authorization": {"Bearer not-the-token"}},
		"empty bearer": {"Authorization": {"Bearer "}},
		"basic":        {"Authorization": {"Basic " + testToken}},
		"token prefix": {"Authorization": {"Bearer " + testToken[:len(testToken)-1]}},
		"bad cookie":   {"Cookie": {sessionCookie + "=forged"}},
	}
	for name, h := range headers {
		for _, rt := range routes {
			ts.Server.failures.succeed("127.0.0.1") // the back-off has its own test (TestS2_WrongTokensBackOffPerClient)
			code, body, hdr := call(t, rt.method, ts.URL+rt.path, rt.body, h)
			if code != http.StatusUnauthorized || errorOf(body) == "" || hdr.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s with %s: %d %s", rt.method, rt.path, name, code, body)
			}
		}
	}
	if got, err := ts.Store.Request(context.Background(), r.ID); err != nil || got.Status != store.StatusPending {
		t.Fatalf("the request changed without a token: %+v %v", got, err)
	}
	// A server without a token accepts nobody, not even an empty bearer.
	open := &Server{Store: ts.Store}
	req, _ := http.NewRequest("GET", "/api/requests", nil)
	req.Header.Set("Authorization", "Bearer ")
	rec := newRecorder()
	open.Handler().ServeHTTP(rec, req)
	if rec.code != http.StatusUnauthorized {
		t.Fatalf("a server without a token answered %d", rec.code)
	}
}

// A panel session (cookie) authenticates reads, but a state-changing call
// made with it needs the session's CSRF token; a bearer call does not.
func TestS2_CSRFRequiredForCookieAuth(t *testing.T) {
	ts := startServer(t, "")
	// The panel logs in with the token; the login helper sets the cookie.
	mux := http.NewServeMux()
	mux.HandleFunc("POST /test-login", func(w http.ResponseWriter, r *http.Request) {
		if !ts.login(w, r, r.PostFormValue("token")) {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
	})
	mux.HandleFunc("GET /test-csrf", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, ts.csrfToken(r))
	})
	mux.HandleFunc("POST /test-logout", func(w http.ResponseWriter, r *http.Request) { ts.logout(w, r) })
	mux.Handle("/", ts.Handler())
	hs := httptestServer(t, mux)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}

	resp, err := browser.PostForm(hs+"/test-login", url.Values{"token": {"wrong"}})
	if err != nil || resp.StatusCode != 401 || len(jar.Cookies(mustURL(hs))) != 0 {
		t.Fatalf("login with a wrong token: %v %v %v", resp.StatusCode, err, jar.Cookies(mustURL(hs)))
	}
	resp, err = browser.PostForm(hs+"/test-login", url.Values{"token": {testToken}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("login: %v %v", resp, err)
	}
	setCookie := resp.Header.Get("Set-Cookie")
	for _, want := range []string{sessionCookie + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	if strings.Contains(setCookie, "Secure") {
		t.Errorf("Set-Cookie %q is Secure without TLS: the browser would not send it back", setCookie)
	}
	csrf := get(t, browser, hs+"/test-csrf")
	if len(csrf) < 32 {
		t.Fatalf("csrf token %q", csrf)
	}

	r := submit(t, ts.Client, "run1")
	if code := status(t, browser, "GET", hs+"/api/requests?status=pending", "", nil); code != 200 {
		t.Fatalf("a read with the session: %d", code)
	}
	decision := `{"decision":"approve"}`
	for _, tc := range []struct {
		name   string
		header http.Header
		want   int
	}{
		{"no csrf token", nil, http.StatusForbidden},
		{"wrong csrf token", http.Header{"X-Csrf-Token": {csrf + "x"}}, http.StatusForbidden},
		{"another session's token", http.Header{"X-Csrf-Token": {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}, http.StatusForbidden},
		{"the session's token", http.Header{"X-Csrf-Token": {csrf}}, http.StatusOK},
	} {
		if code := status(t, browser, "POST", hs+"/api/requests/"+r.ID+"/decision", decision, tc.header); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
	}
	// The form field works as well as the header.
	r2 := submit(t, ts.Client, "run1")
	if code := status(t, browser, "POST", hs+"/api/requests/"+r2.ID+"/withdraw", "", nil); code != http.StatusForbidden {
		t.Errorf("withdraw without csrf: %d", code)
	}
	form := url.Values{"csrf": {csrf}}.Encode()
	if code := status(t, browser, "POST", hs+"/api/requests/"+r2.ID+"/withdraw", form, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}); code != 200 {
		t.Errorf("withdraw with the csrf form field: %d", code)
	}
	// A bearer call needs no CSRF token: a browser cannot forge the header.
	r3 := submit(t, ts.Client, "run1")
	if code, body, _ := call(t, "POST", ts.URL+"/api/requests/"+r3.ID+"/decision", decision, nil); code != 200 {
		t.Errorf("bearer decision: %d %s", code, body)
	}
	// The decision made through the panel says so.
	got, _ := ts.Store.Request(context.Background(), r.ID)
	if got.DecidedBy != "panel" {
		t.Errorf("decided_by = %q, want panel", got.DecidedBy)
	}
	// After logout the cookie is worth nothing, even replayed.
	old := jar.Cookies(mustURL(hs))
	if status(t, browser, "POST", hs+"/test-logout", "", nil) != 200 {
		t.Fatal("logout")
	}
	req, _ := http.NewRequest("GET", hs+"/api/requests", nil)
	for _, c := range old {
		req.AddCookie(c)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("a session cookie replayed after logout: %v %v", resp.StatusCode, err)
	}
	// Under TLS the cookie is Secure.
	tlsSrv := httptest.NewTLSServer(mux)
	defer tlsSrv.Close()
	resp, err = tlsSrv.Client().PostForm(tlsSrv.URL+"/test-login", url.Values{"token": {testToken}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("login over TLS: %v %v", resp, err)
	}
	if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, "Secure") || !strings.Contains(c, "HttpOnly") {
		t.Errorf("Set-Cookie over TLS: %q", c)
	}
}

// The API's routes and status codes, as the contract fixes them.
func TestS2_APIContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, e storetest.Engine) { testAPIContract(t, e.URL) })
}

func testAPIContract(t *testing.T, u string) {
	ts := startServer(t, u)
	ctx := context.Background()
	run := "20260102T150405Z-0badc0de"
	t0 := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	evs := []event.Event{
		{ID: run + "-000001", Time: t0, RunID: run, Agent: "main", Data: event.RunStart{Task: "fix the build", Model: "scripted"}},
		{ID: run + "-000002", Time: t0.Add(time.Second), RunID: run, Agent: "main", Data: event.TurnStart{Input: "go"}},
		{ID: run + "-000003", Time: t0.Add(2 * time.Second), RunID: run, Agent: "main", Data: event.Tool{CallID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`), Result: "needle.txt"}},
	}
	body, _ := json.Marshal(evs[:2])
	if code, b, _ := call(t, "POST", ts.URL+"/api/events", string(body), nil); code != 204 {
		t.Fatalf("POST /api/events: %d %s", code, b)
	}
	one, _ := json.Marshal(evs[2])
	if code, b, _ := call(t, "POST", ts.URL+"/api/events", string(one), nil); code != 204 {
		t.Fatalf("POST /api/events (one object): %d %s", code, b)
	}
	// Posting a batch again keeps one copy of each event.
	if code, b, _ := call(t, "POST", ts.URL+"/api/events", string(body), nil); code != 204 {
		t.Fatalf("POST /api/events again: %d %s", code, b)
	}

	pending := submit(t, ts.Client, run)
	decided := submit(t, ts.Client, run)
	if _, err := ts.Client.Decide(ctx, decided.ID, store.Answer{Decision: "reject", Explanation: "no"}); err != nil {
		t.Fatal(err)
	}
	modifyMe := submit(t, ts.Client, run)
	review := store.Request{Kind: store.KindReview, RunID: run, Call: store.Call{ID: "c2", Function: "bash"}, Result: "<b>out</b>"}
	if err := ts.Client.Submit(ctx, &review); err != nil {
		t.Fatal(err)
	}
	rid := func(r store.Request) string { return "/api/requests/" + r.ID }

	cases := []struct {
		name, method, path, body string
		want                     int
		check                    func(t *testing.T, body []byte)
	}{
		{"pending requests", "GET", "/api/requests?status=pending", "", 200, func(t *testing.T, b []byte) {
			var out struct{ Requests []store.Request }
			decode(t, b, &out)
			if len(out.Requests) != 3 || out.Requests[0].ID != pending.ID {
				t.Errorf("pending: %s", b)
			}
			for _, key := range []string{`"id"`, `"kind"`, `"run_id"`, `"agent"`, `"call"`, `"function"`, `"arguments"`, `"view"`, `"message"`, `"result"`, `"choices"`, `"status"`, `"decision"`, `"explanation"`, `"decided_by"`, `"created"`, `"deadline"`} {
				if !strings.Contains(string(b), key) {
					t.Errorf("a request lacks %s: %s", key, b)
				}
			}
		}},
		{"decided requests", "GET", "/api/requests?status=decided", "", 200, func(t *testing.T, b []byte) {
			var out struct{ Requests []store.Request }
			decode(t, b, &out)
			if len(out.Requests) != 1 || out.Requests[0].ID != decided.ID || out.Requests[0].Decision != "reject" {
				t.Errorf("decided: %s", b)
			}
		}},
		{"all requests", "GET", "/api/requests?status=all", "", 200, func(t *testing.T, b []byte) {
			var out struct{ Requests []store.Request }
			decode(t, b, &out)
			if len(out.Requests) != 4 {
				t.Errorf("all: %s", b)
			}
		}},
		{"unknown status", "GET", "/api/requests?status=maybe", "", 400, nil},
		{"one request", "GET", rid(pending), "", 200, func(t *testing.T, b []byte) {
			var r store.Request
			decode(t, b, &r)
			if r.ID != pending.ID || r.Status != "pending" || string(r.Call.Arguments) != `{"cmd":"ls"}` {
				t.Errorf("request: %s", b)
			}
		}},
		{"unknown request", "GET", "/api/requests/nope", "", 404, nil},
		{"a bad wait", "GET", rid(pending) + "?wait=soon", "", 400, nil},
		{"a wait that elapses", "GET", rid(pending) + "?wait=50ms", "", 200, func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), `"status":"pending"`) {
				t.Errorf("after the wait: %s", b)
			}
		}},
		{"a choice not offered", "POST", rid(pending) + "/decision", `{"decision":"escalate"}`, 400, nil},
		{"no decision", "POST", rid(pending) + "/decision", `{}`, 400, nil},
		{"not JSON", "POST", rid(pending) + "/decision", `approve`, 400, nil},
		{"modify without arguments", "POST", rid(modifyMe) + "/decision", `{"decision":"modify"}`, 400, nil},
		{"modify with an array", "POST", rid(modifyMe) + "/decision", `{"decision":"modify","modified":["ls"]}`, 400, nil},
		{"modify with a string", "POST", rid(modifyMe) + "/decision", `{"decision":"modify","modified":"{\"cmd\":\"ls\"}"}`, 400, nil},
		{"modified on approve", "POST", rid(modifyMe) + "/decision", `{"decision":"approve","modified":{"cmd":"ls"}}`, 400, nil},
		{"modify with an object", "POST", rid(modifyMe) + "/decision", `{"decision":"modify","modified":{"cmd":"ls -l"},"explanation":"long"}`, 200, func(t *testing.T, b []byte) {
			var r store.Request
			decode(t, b, &r)
			if r.Status != "decided" || r.Decision != "modify" || string(r.Modified) != `{"cmd":"ls -l"}` || r.Explanation != "long" || r.DecidedBy != "api" {
				t.Errorf("modified: %s", b)
			}
		}},
		{"decide", "POST", rid(pending) + "/decision", `{"decision":"approve","explanation":"fine"}`, 200, func(t *testing.T, b []byte) {
			got, err := ts.Store.Request(ctx, pending.ID)
			if err != nil || got.Status != "decided" || got.Decision != "approve" {
				t.Errorf("stored: %+v %v", got, err)
			}
		}},
		{"decide again", "POST", rid(pending) + "/decision", `{"decision":"reject"}`, 409, nil},
		{"decide unknown", "POST", "/api/requests/nope/decision", `{"decision":"approve"}`, 404, nil},
		{"a review continues", "POST", rid(review) + "/decision", `{"decision":"continue"}`, 200, nil},
		{"withdraw a decided one", "POST", rid(decided) + "/withdraw", "", 200, func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), `"status":"decided"`) {
				t.Errorf("withdraw changed a decided request: %s", b)
			}
		}},
		{"withdraw unknown", "POST", "/api/requests/nope/withdraw", "", 404, nil},
		{"submit", "POST", "/api/requests", `{"kind":"boundary","run_id":"` + run + `","call":{"id":"c9","function":"bash","arguments":{"cmd":"curl x"}},"message":"needs network","choices":["approve","reject"],"id":"mine","status":"decided"}`, 201, func(t *testing.T, b []byte) {
			var r store.Request
			decode(t, b, &r)
			if r.ID == "" || r.ID == "mine" || r.Status != "pending" || r.Kind != "boundary" {
				t.Errorf("submitted: %s", b)
			}
		}},
		{"submit an unknown kind", "POST", "/api/requests", `{"kind":"vote","choices":["approve"]}`, 400, nil},
		{"submit a fail-safe approve", "POST", "/api/requests", `{"kind":"approval","choices":["approve","reject"],"deadline":"2030-01-01T00:00:00Z","failsafe":"approve"}`, 400, nil},
		{"submit not JSON", "POST", "/api/requests", `{`, 400, nil},
		{"submit a choice the kind lacks", "POST", "/api/requests", `{"kind":"review","choices":["approve"]}`, 400, nil},
		{"submit a choice twice", "POST", "/api/requests", `{"kind":"approval","choices":["reject","reject"]}`, 400, nil},
		{"submit a review failing safe to reject", "POST", "/api/requests", `{"kind":"review","deadline":"2030-01-01T00:00:00Z","failsafe":"reject"}`, 400, nil},
		{"runs", "GET", "/api/runs", "", 200, func(t *testing.T, b []byte) {
			var out struct{ Runs []store.Run }
			decode(t, b, &out)
			if len(out.Runs) != 1 || out.Runs[0].ID != run || out.Runs[0].Task != "fix the build" || out.Runs[0].Status != "running" {
				t.Errorf("runs: %s", b)
			}
		}},
		{"runs by task and time", "GET", "/api/runs?task=build&since=2026-01-02T00:00:00Z&until=2026-01-03T00:00:00Z&status=running", "", 200, func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), run) {
				t.Errorf("filtered runs: %s", b)
			}
		}},
		{"runs of another task", "GET", "/api/runs?task=deploy", "", 200, func(t *testing.T, b []byte) {
			if strings.TrimSpace(string(b)) != `{"runs":[]}` {
				t.Errorf("filtered runs: %s", b)
			}
		}},
		{"runs with a bad time", "GET", "/api/runs?since=yesterday", "", 400, nil},
		{"one run", "GET", "/api/runs/" + run, "", 200, func(t *testing.T, b []byte) {
			var r store.Run
			decode(t, b, &r)
			if r.ID != run || r.Model != "scripted" || r.Counts["events"] != 3 {
				t.Errorf("run: %s", b)
			}
		}},
		{"unknown run", "GET", "/api/runs/nope", "", 404, nil},
		{"events", "GET", "/api/runs/" + run + "/events", "", 200, func(t *testing.T, b []byte) {
			var lines []json.RawMessage
			decode(t, b, &lines)
			if len(lines) != 3 {
				t.Fatalf("events: %s", b)
			}
			var e event.Event
			decode(t, lines[2], &e)
			if e.ID != evs[2].ID || e.Kind() != eventkind.Tool {
				t.Errorf("third event: %s", lines[2])
			}
		}},
		{"events after", "GET", "/api/runs/" + run + "/events?after=" + evs[0].ID + "&limit=1", "", 200, func(t *testing.T, b []byte) {
			var lines []json.RawMessage
			decode(t, b, &lines)
			if len(lines) != 1 || !strings.Contains(string(lines[0]), evs[1].ID) {
				t.Errorf("paged events: %s", b)
			}
		}},
		{"events of an unknown run", "GET", "/api/runs/nope/events", "", 404, nil},
		{"events with a bad limit", "GET", "/api/runs/" + run + "/events?limit=-1", "", 400, nil},
		{"search", "GET", "/api/search?q=needle&kind=tool&run=" + run, "", 200, func(t *testing.T, b []byte) {
			var out struct{ Events []json.RawMessage }
			decode(t, b, &out)
			if len(out.Events) != 1 || !strings.Contains(string(out.Events[0]), "needle.txt") {
				t.Errorf("search: %s", b)
			}
		}},
		{"search finds nothing", "GET", "/api/search?q=haystack", "", 200, func(t *testing.T, b []byte) {
			if strings.TrimSpace(string(b)) != `{"events":[]}` {
				t.Errorf("search: %s", b)
			}
		}},
		{"denials", "GET", "/api/denials?run=" + run, "", 200, func(t *testing.T, b []byte) {
			if strings.TrimSpace(string(b)) != `{"denials":[]}` {
				t.Errorf("denials: %s", b)
			}
		}},
		{"approve an unknown denial", "POST", "/api/denials/" + run + "-d7/approve", `{"note":"ok"}`, 404, nil},
		{"approve a malformed denial id", "POST", "/api/denials/..%2F..%2Fetc-d1/approve", ``, 404, nil},
		{"events that are not events", "POST", "/api/events", `"hello"`, 400, nil},
		{"an event without a run", "POST", "/api/events", `[{"event":"info","id":"x"}]`, 400, nil},
		{"an unknown route", "GET", "/api/nothing", "", 404, nil},
		{"a wrong method", "DELETE", rid(pending), "", 405, nil},
	}
	for _, tc := range cases {
		code, b, h := call(t, tc.method, ts.URL+tc.path, tc.body, nil)
		if code != tc.want {
			t.Errorf("%s: %s %s: %d, want %d: %s", tc.name, tc.method, tc.path, code, tc.want, b)
			continue
		}
		if code >= 400 && code != 405 && errorOf(b) == "" {
			t.Errorf("%s: error body %q is not {\"error\":…}", tc.name, b)
		}
		if code < 300 && code != 204 && h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, h.Get("Content-Type"))
		}
		if tc.check != nil && code == tc.want {
			tc.check(t, b)
		}
	}
}

// The event stream delivers new events and request changes as they
// happen, keeps an idle connection alive, and ends with the client.
func TestS2_EventStream(t *testing.T) {
	ts := startServer(t, "")
	ts.keepalive = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(prefix string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the stream ended waiting for %q", prefix)
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("no %q on the stream", prefix)
			}
		}
	}
	next(": keepalive")
	e := event.Event{ID: "r1-000001", Time: time.Now().UTC(), RunID: "r1", Agent: "main", Data: event.Info{Message: "hello <there>"}}
	if err := ts.Client.Write(e); err != nil {
		t.Fatal(err)
	}
	if err := ts.Client.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if l := next("event: "); l != "event: event" {
		t.Fatalf("got %q", l)
	}
	data := strings.TrimPrefix(next("data: "), "data: ")
	var got event.Event
	decode(t, []byte(data), &got)
	if got.ID != e.ID || got.Kind() != eventkind.Info {
		t.Fatalf("streamed event %s", data)
	}
	r := submit(t, ts.Client, "r1")
	if l := next("event: "); l != "event: request" {
		t.Fatalf("got %q", l)
	}
	var sr store.Request
	decode(t, []byte(strings.TrimPrefix(next("data: "), "data: ")), &sr)
	if sr.ID != r.ID || sr.Status != "pending" {
		t.Fatalf("streamed request %+v", sr)
	}
	if _, err := ts.Client.Decide(ctx, r.ID, store.Answer{Decision: "approve"}); err != nil {
		t.Fatal(err)
	}
	next("event: request")
	decode(t, []byte(strings.TrimPrefix(next("data: "), "data: ")), &sr)
	if sr.Status != "decided" {
		t.Fatalf("streamed decision %+v", sr)
	}
}

func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := newHTTPTest(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&b)
	return b.String()
}

func status(t *testing.T, c *http.Client, method, u, body string, h http.Header) int {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// /healthz says when the server cannot write its store and recovers when
// it can again: the SQLite file and its log are made immutable (chattr +i,
// which stops root too, unlike chmod), then writable again.
func TestS2_HealthzStoreNotWritable(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "warden.db")
	ts := startServer(t, "sqlite:"+db)
	files := []string{db, db + "-wal"}
	if out, err := exec.Command("chattr", "+i", files[0]).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	exec.Command("chattr", "-i", files[0]).Run()
	health := func() (int, string) {
		code, body, _ := call(t, "GET", ts.URL+"/healthz", "", http.Header{})
		return code, string(body)
	}
	// until reports /healthz after the probe cache has expired.
	until := func(want int) string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, body := health()
			if code == want || time.Now().After(deadline) {
				if code != want {
					t.Fatalf("healthz: %d %q, want %d", code, body, want)
				}
				return body
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if body := until(200); body != "ok" {
		t.Fatalf("healthz: %q", body)
	}
	args := append([]string{"+i"}, files...)
	if out, err := exec.Command("chattr", args...).CombinedOutput(); err != nil {
		t.Fatalf("chattr: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", append([]string{"-i"}, files...)...).Run() })
	if body := until(503); !strings.Contains(body, "store not writable") {
		t.Fatalf("healthz: %q", body)
	}
	// The API cannot write either: the health says what is true.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	ro := store.Request{Kind: store.KindApproval, RunID: "run-ro", Choices: []string{"approve", "reject"}}
	if err := ts.Client.Submit(ctx, &ro); err == nil {
		t.Fatal("a request was created on an immutable store")
	}
	args[0] = "-i"
	if out, err := exec.Command("chattr", args...).CombinedOutput(); err != nil {
		t.Fatalf("chattr: %v %s", err, out)
	}
	if body := until(200); body != "ok" {
		t.Fatalf("healthz after recovery: %q", body)
	}
	r := submit(t, ts.Client, "run-rw")
	if r.ID == "" {
		t.Fatal("no request after recovery")
	}
}

// A run that sends its events to `warden serve` (--server) has them stored
// as its transcript's sealed lines, byte for byte, so the store keeps the
// same chain (SPEC L8), escapes and all.
func TestL8_PostedEventsKeepTheirSealedLines(t *testing.T) {
	storetest.Run(t, func(t *testing.T, e storetest.Engine) {
		ts := startServer(t, e.URL)
		k, _ := seal.NewKey(bytes.Repeat([]byte{5}, seal.KeySize))
		key := k.Derive(seal.LineKeyLabel)
		path := filepath.Join(t.TempDir(), "t.jsonl")
		tr, err := transcript.Open(path, key, "")
		if err != nil {
			t.Fatal(err)
		}
		var sent []event.Event
		run := "20260102T150405Z-5ea1ed00"
		rec := event.NewRecorder(run, event.Tee(tr, event.SinkFunc(func(e event.Event) error { sent = append(sent, e); return nil })))
		rec.Emit(event.RunStart{Task: "t & <b>"})
		rec.Emit(event.Tool{CallID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"echo '<&>' \u2028"}`), Result: "a\u2028b <tag> & \"q\""})
		rec.Emit(event.RunEnd{Status: event.StatusCompleted})
		tr.Close()
		body, _ := json.Marshal(sent)
		if code, b, _ := call(t, "POST", ts.URL+"/api/events", string(body), nil); code != 204 {
			t.Fatalf("POST /api/events: %d %s", code, b)
		}
		lines, err := ts.Store.EventLines(context.Background(), run, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range lines {
			got = append(got, string(l))
		}
		data, _ := os.ReadFile(path)
		if strings.Join(got, "\n")+"\n" != string(data) {
			t.Fatalf("stored lines differ from the transcript:\n%s\n---\n%s", strings.Join(got, "\n"), data)
		}
		if err := ts.Store.VerifyChain(context.Background(), run, key); err != nil {
			t.Fatal(err)
		}
	})
}
