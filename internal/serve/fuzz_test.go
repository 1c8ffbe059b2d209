package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
