package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proof"
)

// browserLocation resolves a Location header as a browser does: tabs and
// line breaks dropped, backslashes read as slashes (WHATWG URL).
func browserLocation(t testing.TB, base, loc string) *url.URL {
	t.Helper()
	loc = strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(strings.Trim(loc, " \x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"))
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u, err := b.Parse(loc)
	if err != nil {
		return b // a Location the browser cannot read keeps it here
	}
	return u
}

// The attack: a link to the login page whose next= leaves the site after a
// real login. The effect checked: where the browser goes after logging in
// (and when already logged in) is this server, whatever next says.
func TestS2_LoginNextStaysOnThisServer(t *testing.T) {
	env := newPanelEnv(t)
	base, _ := url.Parse(env.url)
	for _, next := range []string{
		"/\t/evil.example", "/%09/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\\evil.example",
		"\\/evil.example", "/\\/evil.example", "//evil.example", "///evil.example", "https://evil.example/",
		"/./\t/evil.example", " //evil.example", "\t//evil.example", "/\x00/evil.example", "/\u00a0/evil.example",
		"javascript:alert(1)", "/runs//evil.example", "/x/..//evil.example", "evil.example", "/\u200b/evil.example",
	} {
		t.Run(url.QueryEscape(next), func(t *testing.T) {
			b := newBrowser(t, env.url)
			resp, _ := b.do("POST", "/login", url.Values{"token": {panelToken}, "next": {next}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("login: status %d, want 303", resp.StatusCode)
			}
			if u := browserLocation(t, env.url, resp.Header.Get("Location")); u.Host != base.Host || u.Scheme != base.Scheme {
				t.Fatalf("after login the browser goes to %s (Location %q), off this server", u, resp.Header.Get("Location"))
			}
			// Logged in, GET /login?next= redirects at once: the same rule.
			resp, _ = b.do("GET", "/login?next="+url.QueryEscape(next), nil)
			if u := browserLocation(t, env.url, resp.Header.Get("Location")); u.Host != base.Host || u.Scheme != base.Scheme {
				t.Fatalf("GET /login goes to %s (Location %q), off this server", u, resp.Header.Get("Location"))
			}
		})
	}
	// A path of this server still comes back after login.
	b := newBrowser(t, env.url)
	resp, _ := b.do("POST", "/login", url.Values{"token": {panelToken}, "next": {"/runs?status=error"}})
	if loc := resp.Header.Get("Location"); loc != "/runs?status=error" {
		t.Errorf("next=/runs?status=error went to %q", loc)
	}
}

// Whatever next= holds, the browser stays on this server.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/", "/runs", "/%09/evil.example", "/\t/evil.example", "//x", "/\\x", "https://x", "/a?b=//c", "/\u3000/x", "/\ufeff/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got != "/" && got != next {
			t.Fatalf("safeNext(%q) = %q: neither / nor next", next, got)
		}
		if u := browserLocation(t, "http://127.0.0.1:7878/", got); u.Host != "127.0.0.1:7878" || u.Scheme != "http" {
			t.Fatalf("safeNext(%q) = %q, which a browser reads as %s", next, got, u)
		}
	})
}

// The attack: guessing the token as fast as the server answers (300 wrong
// logins took 3.9 s). The effect checked: in two seconds a client gets at
// most a handful of its guesses checked, the right token sent while it
// must wait is not checked either, another client is not slowed, and a
// panel session keeps working.
func TestS2_WrongTokensBackOffPerClient(t *testing.T) {
	env := newPanelEnv(t)
	logged := newBrowser(t, env.url)
	logged.login()
	ctx := context.Background()
	req := submitPending(t, env.st, approvalRequest("run-a"))

	for _, route := range []struct {
		name string
		try  func(token string) int
	}{
		{"bearer", func(token string) int {
			st, _, _ := call(t, "GET", env.url+"/api/requests", "", http.Header{"Authorization": {"Bearer " + token}})
			return st
		}},
		{"login", func(token string) int {
			resp, _ := newBrowser(t, env.url).do("POST", "/login", url.Values{"token": {token}, "next": {"/"}})
			return resp.StatusCode
		}},
	} {
		t.Run(route.name, func(t *testing.T) {
			env.srv.failures.succeed("127.0.0.1")
			// freeFailures free, then 0.2+0.4+0.8 s: at most 9 within 2 s.
			if checked := guessFor2s(t, func(int) int { return route.try("wrong-guess") }); checked > freeFailures+4 {
				t.Errorf("%d wrong tokens were checked in 2 s; want at most %d", checked, freeFailures+4)
			}
			if st := route.try(panelToken); st != http.StatusTooManyRequests {
				t.Errorf("the right token during the back-off got %d, want 429 (not checked)", st)
			}
			// Another client is not slowed down.
			r := httptest.NewRequest("GET", "/api/requests", nil)
			r.RemoteAddr, r.Host = "192.0.2.7:40000", "127.0.0.1:7878"
			r.Header.Set("Authorization", "Bearer "+panelToken)
			w := httptest.NewRecorder()
			env.srv.Handler().ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Errorf("another client with the right token got %d", w.Code)
			}
			// A logged-in person is not locked out.
			if resp, _ := logged.do("GET", "/", nil); resp.StatusCode != http.StatusOK {
				t.Errorf("the logged-in panel got %d during the back-off", resp.StatusCode)
			}
		})
	}
	if got, _ := env.st.Request(ctx, req.ID); got.Status != "pending" {
		t.Errorf("the request is %s", got.Status)
	}
}

// The back-off is safe under concurrent failures (run with -race).
func TestS2_BackoffConcurrent(t *testing.T) {
	var b backoff
	var wg sync.WaitGroup
	now := time.Now()
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				c := string(rune('a' + (i+j)%3))
				b.fail(c, now)
				b.wait(c, now)
			}
		}()
	}
	wg.Wait()
	if d := b.wait("a", now); d != maxDelay {
		t.Errorf("after hundreds of failures the wait is %v, want %v", d, maxDelay)
	}
	if d := b.wait("a", now.Add(maxDelay)); d != 0 {
		t.Errorf("after the delay the wait is %v, want 0", d)
	}
}

// The attack: DNS rebinding. A web page at evil.example rebinds its name
// to 127.0.0.1 and calls the server as a same-origin page would. The
// effect checked: with the real token even, a request naming another host
// decides nothing and reads nothing; named by a configured host it works.
func TestS2_HostMustNameThisServer(t *testing.T) {
	env := newPanelEnv(t)
	ctx := context.Background()
	req := submitPending(t, env.st, approvalRequest("run-a"))
	send := func(host, method, path, body string) (int, string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Host = host
		r.RemoteAddr = "127.0.0.1:50000"
		r.Header.Set("Authorization", "Bearer "+panelToken)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	for _, host := range []string{"evil.example", "evil.example:7878", "127.0.0.1.evil.example", "localhost.evil.example", ":7878", "team.example"} {
		if st, body := send(host, "GET", "/api/requests", ""); st != http.StatusMisdirectedRequest || strings.Contains(body, "rm -rf") {
			t.Errorf("Host %q: GET /api/requests got %d, want 421 and nothing shown", host, st)
		}
		if st, _ := send(host, "POST", "/api/requests/"+req.ID+"/decision", `{"decision":"approve"}`); st != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: the decision got %d, want 421", host, st)
		}
		if st, _ := send(host, "GET", "/login", ""); st != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: the login page got %d, want 421", host, st)
		}
	}
	if got, _ := env.st.Request(ctx, req.ID); got.Status != "pending" {
		t.Fatalf("a rebound page decided the request: %s", got.Decision)
	}
	for _, host := range []string{"localhost", "localhost:7878", "127.0.0.1:7878", "[::1]:7878", "127.1.2.3", "warden.localhost:80", "LOCALHOST."} {
		if st, _ := send(host, "GET", "/api/requests", ""); st != http.StatusOK {
			t.Errorf("Host %q: got %d, want 200", host, st)
		}
	}
	if st, _ := send("evil.example", "GET", "/healthz", ""); st != http.StatusOK {
		t.Errorf("/healthz with another Host got %d, want 200", st)
	}
	env.srv.Hosts = []string{"team.example"}
	if st, _ := send("team.example:443", "GET", "/api/requests", ""); st != http.StatusOK {
		t.Errorf("a configured Host got %d, want 200", st)
	}
}

// The attack: a local program hammers wrong tokens at the server. Every
// loopback client has the same address, so with one budget per address
// the runs' own calls got 429 and waited. The effect checked: a run
// client that already presented its right credential goes on being
// answered at once, while the guesser — sending no client id, or a new
// made-up one with every guess, or a proven run's id with a wrong token —
// still gets no more guesses checked than before. A client that never
// proved itself shares the address's budget, as before.
func TestS2_BackoffSparesProvenClients(t *testing.T) {
	ts := startServer(t, "")
	ts.RunToken = runToken
	runID := "run-client-id-0123456789"
	asRun := func(id, token string) int {
		st, _, _ := call(t, "GET", ts.URL+"/api/whoami", "", http.Header{"Authorization": {"Bearer " + token}, proof.ClientHeader: {id}})
		return st
	}
	if st := asRun(runID, runToken); st != http.StatusOK {
		t.Fatalf("the run's first call: %d", st)
	}
	checked := guessFor2s(t, func(n int) int {
		h := http.Header{"Authorization": {"Bearer wrong-guess"}}
		if n%2 == 0 {
			h.Set(proof.ClientHeader, "made-up-"+strconv.Itoa(n))
		}
		st, _, _ := call(t, "GET", ts.URL+"/api/requests", "", h)
		return st
	})
	if checked > freeFailures+4 {
		t.Errorf("%d wrong tokens were checked in 2 s with made-up client ids; want at most %d", checked, freeFailures+4)
	}
	for i := range 20 {
		t0 := time.Now()
		if st := asRun(runID, runToken); st != http.StatusOK || time.Since(t0) > time.Second {
			t.Fatalf("call %d of the proven run during the attack: %d in %v, want 200 at once", i, st, time.Since(t0))
		}
	}
	if st := asRun("a-new-client-id-0123456789", runToken); st != http.StatusTooManyRequests {
		t.Errorf("a client never accepted before got %d during the attack, want 429 (the address's budget)", st)
	}
	// The guesser that uses the proven run's id gets that id's budget:
	// a handful of checks, then it waits too.
	if checked := guessFor2s(t, func(int) int { return asRun(runID, "wrong-guess") }); checked > freeFailures+4 {
		t.Errorf("%d wrong tokens with the proven id were checked in 2 s; want at most %d", checked, freeFailures+4)
	}
}

// guessFor2s sends wrong tokens with try (given the try's number) for two
// seconds and returns how many were checked (401); each other one must be
// refused unchecked (429).
func guessFor2s(t *testing.T, try func(n int) int) int {
	t.Helper()
	checked := 0
	for n, start := 0, time.Now(); time.Since(start) < 2*time.Second; n++ {
		switch st := try(n); st {
		case http.StatusUnauthorized:
			checked++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("a wrong token got %d", st)
		}
	}
	return checked
}
