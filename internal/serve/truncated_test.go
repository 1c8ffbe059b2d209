package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/store"
)

// A review of an output cut before the person sees it says so (issue 21
// item 6): the request keeps "truncated" [bytes produced, bytes kept]
// through the API, and its card in the panel says the output was cut; a
// whole output's request has no "truncated" at all.
func TestL3_TruncatedReviewSaysSo(t *testing.T) {
	env := newPanelEnv(t)
	b := newBrowser(t, env.url)
	b.login()
	ctx := context.Background()
	cut := store.Request{Kind: store.KindReview, RunID: "r1", Call: store.Call{ID: "c1", Function: "bash"},
		Result: "head\n[... 4983616 bytes of output dropped ...]\ntail", Truncated: &[2]int{5000000, 16384}}
	whole := store.Request{Kind: store.KindReview, RunID: "r1", Call: store.Call{ID: "c2", Function: "bash"}, Result: "ok"}
	for _, r := range []*store.Request{&cut, &whole} {
		code, body, _ := call(t, "POST", env.url+"/api/requests", mustJSON(t, r), http.Header{"Authorization": {"Bearer " + panelToken}})
		if code != http.StatusCreated {
			t.Fatalf("submit: %d %s", code, body)
		}
		var got store.Request
		decode(t, body, &got)
		r.ID = got.ID
	}
	_, body, _ := call(t, "GET", env.url+"/api/requests/"+cut.ID, "", http.Header{"Authorization": {"Bearer " + panelToken}})
	if !strings.Contains(string(body), `"truncated":[5000000,16384]`) {
		t.Errorf("GET of the cut review: %s", body)
	}
	_, body, _ = call(t, "GET", env.url+"/api/requests/"+whole.ID, "", http.Header{"Authorization": {"Bearer " + panelToken}})
	if strings.Contains(string(body), `"truncated"`) {
		t.Errorf("GET of the whole review: %s", body)
	}
	if got, err := env.st.Request(ctx, cut.ID); err != nil || got.Truncated == nil || *got.Truncated != [2]int{5000000, 16384} {
		t.Errorf("stored: %+v, %v", got.Truncated, err)
	}
	_, page := b.do("GET", "/", nil)
	if n := strings.Count(page, `data-truncated="true"`); n != 1 || !strings.Contains(page, "5000000 bytes") {
		t.Errorf("the queue marks %d cards as truncated, want the cut one", n)
	}
}

// mustJSON returns v as JSON or fails the test.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
