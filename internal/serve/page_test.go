package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/store"
)

// Every list of the API comes in bounded pages (issue 21 item 6): after
// thousands of requests, GET /api/requests answers one page (the default
// size, never more than store.MaxPage items or about 4<<20),
// in the shape it always had, with the next page's cursor in "next" and a
// Link header; following the cursors gives every request once, in order.
// A run's transcript is a bare JSON array as before, its next page named
// by X-Warden-Next-After and the Link header. A cursor the list did not
// give is a 400.
func TestS2_APIListsArePaged(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	args := json.RawMessage(`{"cmd":"` + strings.Repeat("a", 4000) + `"}`)
	const requests = 1500
	for i := range requests {
		r := store.Request{Kind: store.KindApproval, RunID: fmt.Sprint("run-", i%40), Call: store.Call{ID: fmt.Sprint("c", i), Function: "bash", Arguments: args}}
		if err := ts.Store.Submit(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	want, err := ts.Store.Requests(ctx, "pending")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	next := ""
	pages := 0
	for {
		u := ts.URL + "/api/requests?status=pending"
		if next != "" {
			u += "&cursor=" + url.QueryEscape(next)
		}
		code, body, h := call(t, "GET", u, "", nil)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", u, code, body)
		}
		var page struct {
			Requests []store.Request `json:"requests"`
			Next     string          `json:"next"`
		}
		decode(t, body, &page)
		if len(page.Requests) > store.DefaultPage || len(body) > 4<<20+64<<10 {
			t.Fatalf("a page of %d requests, %d bytes", len(page.Requests), len(body))
		}
		if pages == 0 && len(page.Requests) != store.DefaultPage {
			t.Errorf("the first page holds %d requests, want the default %d", len(page.Requests), store.DefaultPage)
		}
		if (page.Next != "") != strings.Contains(h.Get("Link"), `rel="next"`) {
			t.Errorf("next %q but Link %q", page.Next, h.Get("Link"))
		}
		for _, r := range page.Requests {
			got = append(got, r.ID)
		}
		pages++
		if page.Next == "" {
			break
		}
		next = page.Next
		if pages > requests {
			t.Fatal("the pages do not end")
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d requests page by page, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i].ID {
			t.Fatalf("request %d page by page is %s, want %s", i, got[i], want[i].ID)
		}
	}
	// A limit above the maximum gets the maximum.
	_, body, _ := call(t, "GET", ts.URL+"/api/requests?status=all&limit=100000", "", nil)
	var big struct {
		Requests []json.RawMessage `json:"requests"`
	}
	decode(t, body, &big)
	if len(big.Requests) > store.MaxPage || len(body) > 4<<20+64<<10 {
		t.Errorf("limit=100000 gave %d requests, %d bytes", len(big.Requests), len(body))
	}
	// Bad cursors and limits are refused.
	for _, q := range []string{"/api/requests?cursor=bogus!", "/api/runs?cursor=%00", "/api/search?q=x&cursor=zz", "/api/denials?cursor=-", "/api/requests?limit=-1"} {
		if code, body, _ := call(t, "GET", ts.URL+q, "", nil); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", q, code, body)
		}
	}

	// A run's transcript: 1,234 events, in pages of a bare array.
	buf := ts.Store.Buffer()
	for i := range 1234 {
		buf.Write(event.Event{ID: fmt.Sprintf("e-%05d", i), Time: time.Now().UTC(), RunID: "long", Agent: "main", Data: event.Info{Message: fmt.Sprint("line ", i)}})
	}
	for i := range 20 {
		buf.Write(event.Event{ID: "start", Time: time.Now().UTC(), RunID: fmt.Sprint("short-", i), Agent: "main", Data: event.RunStart{Task: "t"}})
	}
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	var evIDs []string
	after := ""
	for range 100 {
		u := ts.URL + "/api/runs/long/events"
		if after != "" {
			u += "?after=" + url.QueryEscape(after)
		}
		code, body, h := call(t, "GET", u, "", nil)
		if code != http.StatusOK || body[0] != '[' {
			t.Fatalf("%s: %d %.80s", u, code, body)
		}
		var lines []event.Event
		decode(t, body, &lines)
		if len(lines) > runPageEvents {
			t.Fatalf("a page of %d events", len(lines))
		}
		for _, e := range lines {
			evIDs = append(evIDs, e.ID)
		}
		after = h.Get("X-Warden-Next-After")
		if (after != "") != strings.Contains(h.Get("Link"), "after="+url.QueryEscape(after)) {
			t.Errorf("next after %q, Link %q", after, h.Get("Link"))
		}
		if after == "" {
			break
		}
	}
	if len(evIDs) != 1234 || evIDs[0] != "e-00000" || evIDs[1233] != "e-01233" {
		t.Errorf("the transcript page by page: %d events", len(evIDs))
	}

	// Runs and search: the first page is bounded and names the next.
	for _, q := range []string{"/api/runs?limit=15", "/api/search?q=line&limit=15"} {
		_, body, h := call(t, "GET", ts.URL+q, "", nil)
		var page map[string]json.RawMessage
		decode(t, body, &page)
		var next string
		json.Unmarshal(page["next"], &next)
		if next == "" || !strings.Contains(h.Get("Link"), "cursor=") {
			t.Errorf("%s: no next page in %s / %q", q, page["next"], h.Get("Link"))
		}
		_, body2, _ := call(t, "GET", ts.URL+q+"&cursor="+url.QueryEscape(next), "", nil)
		if string(body2) == string(body) {
			t.Errorf("%s: the second page is the first", q)
		}
	}
	// A short list has no "next" and keeps its shape.
	_, body, _ = call(t, "GET", ts.URL+"/api/denials", "", nil)
	if strings.TrimSpace(string(body)) != `{"denials":[]}` {
		t.Errorf("an empty list: %s", body)
	}
}

// The panel's pages are bounded too (issue 21 item 6): a run of 3,000
// events shows its first page of the transcript with a link to the
// next, which shows the rest from there; the queue of 300 pending
// requests and 2,000 decided ones shows a page of them and says so; the
// runs and search pages link to their next pages.
func TestS2_PanelPagesAreBounded(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env.url)
	b.login()
	ctx := context.Background()
	buf := env.st.Buffer()
	buf.Write(event.Event{ID: "start", Time: time.Now().UTC(), RunID: "long", Agent: "main", Data: event.RunStart{Task: "long"}})
	for i := range 3000 {
		buf.Write(event.Event{ID: fmt.Sprintf("e-%05d", i), Time: time.Now().UTC(), RunID: "long", Agent: "main", Data: event.Info{Message: fmt.Sprintf("marker-%05d %s", i, strings.Repeat("z", 500))}})
	}
	for i := range 250 {
		buf.Write(event.Event{ID: "start", Time: time.Now().UTC(), RunID: fmt.Sprint("short-", i), Agent: "main", Data: event.RunStart{Task: "t"}})
	}
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range 2300 {
		r := store.Request{Kind: store.KindApproval, RunID: "long", Call: store.Call{ID: fmt.Sprint("c", i), Function: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)}}
		if err := env.st.Submit(ctx, &r); err != nil {
			t.Fatal(err)
		}
		if i >= 300 {
			if _, err := env.st.Decide(ctx, r.ID, store.Answer{Decision: "reject"}); err != nil {
				t.Fatal(err)
			}
		}
	}

	resp, page := b.do("GET", "/runs/long", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/runs/long: %d", resp.StatusCode)
	}
	shown := strings.Count(page, "marker-")
	if shown == 0 || shown > runPageEvents || !strings.Contains(page, "marker-00000") || strings.Contains(page, "marker-02999") {
		t.Fatalf("the first page of the transcript shows %d events (%d bytes)", shown, len(page))
	}
	next := linkNext(page)
	if next == "" {
		t.Fatal("the transcript's first page has no link to the next")
	}
	seen := shown
	for range 20 {
		resp, page = b.do("GET", next, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", next, resp.StatusCode)
		}
		seen += strings.Count(page, "marker-")
		if next = linkNext(page); next == "" {
			break
		}
	}
	if seen != 3000 || !strings.Contains(page, "marker-02999") || !strings.Contains(page, `id="tail"`) {
		t.Errorf("the transcript page by page showed %d of 3000 events", seen)
	}

	resp, page = b.do("GET", "/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/: %d", resp.StatusCode)
	}
	if n := strings.Count(page, `<article class="req`); n == 0 || n > store.DefaultPage {
		t.Errorf("the queue shows %d cards of 300 pending", n)
	}
	if !strings.Contains(page, "of 300 pending requests are shown") || len(page) > 4<<20 {
		t.Errorf("the queue page (%d bytes) does not say it shows a part of 300", len(page))
	}
	for _, path := range []string{"/runs", "/search?q=marker"} {
		_, page := b.do("GET", path, nil)
		next := linkNext(page)
		if next == "" {
			t.Errorf("%s has no next page", path)
			continue
		}
		if resp, _ := b.do("GET", next, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", next, resp.StatusCode)
		}
	}
}

// linkNext returns the href of a page's rel="next" link, unescaped.
func linkNext(page string) string {
	i := strings.Index(page, `" rel="next"`)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(page[:i], `href="`)
	if j < 0 {
		return ""
	}
	return html.UnescapeString(page[j+len(`href="`) : i])
}
