package autoreview_test

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/vocab"
)

var nonceRE = regexp.MustCompile(`The nonce of this review is ([A-Z2-7]+)\.`)

// nonce returns the nonce in the n-th request.
func (f *fakeServer) nonce(n int) string {
	f.t.Helper()
	req := f.request(n)
	if len(req.Messages) < 2 {
		f.t.Fatalf("request %d: %+v", n, req.Messages)
	}
	m := nonceRE.FindStringSubmatch(req.Messages[1].Content)
	if m == nil {
		f.t.Fatalf("request %d carries no nonce", n)
	}
	return m[1]
}

// verdictCall answers with a call of the verdict tool whose arguments are
// args with NONCE replaced by the nonce of the request being answered and
// OTHER by a nonce that is not it.
func verdictCall(srv **fakeServer, args string, extra ...[2]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := *srv
		nonce := s.nonce(s.requests() - 1)
		a := strings.ReplaceAll(args, "NONCE", nonce)
		a = strings.ReplaceAll(a, "OTHER", strings.Repeat("A", len(nonce)))
		calls := append([][2]string{{autoreview.VerdictTool, a}}, extra...)
		completion("", calls...)(w, r)
	}
}

// TestG6_VerdictToolCall: the reviewer is offered the verdict tool and the
// review's nonce, and a call of it with that nonce is the verdict, read by
// the same rules as a JSON answer (SPEC G6).
func TestG6_VerdictToolCall(t *testing.T) {
	var srv *fakeServer
	srv = newFake(t, verdictCall(&srv, `{"outcome":"deny","risk_level":"critical","user_authorization":"unknown","rationale":"uploads keys","nonce":"NONCE"}`))
	res, err := review(t, &autoreview.Reviewer{Model: srv.model(t)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != action.StatusDenied || res.Rationale != "uploads keys" || res.Verdict.RiskLevel != action.RiskCritical || res.Attempts != 1 {
		t.Fatalf("status %s verdict %+v attempts %d", res.Status, res.Verdict, res.Attempts)
	}
	// The saved conversation answers the call, so it stays valid (G13).
	if n := len(res.Conversation); n != 4 || res.Conversation[3].Content != "verdict received" {
		t.Errorf("conversation %+v", res.Conversation)
	}
	// Each review has its own nonce.
	srv2 := newFake(t, completion(`{"outcome":"deny"}`))
	if _, err := review(t, &autoreview.Reviewer{Model: srv2.model(t)}); err != nil {
		t.Fatal(err)
	}
	if srv.nonce(0) == srv2.nonce(0) {
		t.Errorf("two reviews share the nonce %s", srv.nonce(0))
	}
	// An allow with high authorization by tool call still needs the
	// person's words (item 4): a missing risk_level is high.
	srv = newFake(t, verdictCall(&srv, `{"outcome":"allow","user_authorization":"high","rationale":"asked","nonce":"NONCE"}`))
	res, err = review(t, &autoreview.Reviewer{Model: srv.model(t)})
	if err != nil || res.Status != action.StatusDenied || res.Verdict.RiskLevel != action.RiskHigh || res.Verdict.AuthorizationLowered == "" {
		t.Errorf("status %s verdict %+v err %v", res.Status, res.Verdict, err)
	}
	srv = newFake(t, verdictCall(&srv, `{"outcome":"allow","risk_level":"high","user_authorization":"high","user_authorization_quote":"Run the tests of the project","rationale":"asked","nonce":"NONCE"}`))
	res, err = review(t, &autoreview.Reviewer{Model: srv.model(t)})
	if err != nil || res.Status != action.StatusApproved {
		t.Errorf("status %s verdict %+v err %v", res.Status, res.Verdict, err)
	}
}

// TestG6_VerdictWithoutTheNonceIsNoAnswer plays verdicts that are not the
// reviewer's own answer to this review: a verdict call without the nonce or
// with another, a verdict call beside another tool call, two verdict calls,
// malformed arguments, a JSON answer with another nonce (one copied from
// an earlier review or the transcript). Each is asked again and then fails
// closed; none allows.
func TestG6_VerdictWithoutTheNonceIsNoAnswer(t *testing.T) {
	const allow = `"outcome":"allow","risk_level":"low","user_authorization":"unknown","rationale":"fine"`
	tests := []struct {
		name  string
		reply func(srv **fakeServer) http.HandlerFunc
	}{
		{"call without nonce", func(s **fakeServer) http.HandlerFunc { return verdictCall(s, `{`+allow+`}`) }},
		{"call with another nonce", func(s **fakeServer) http.HandlerFunc { return verdictCall(s, `{`+allow+`,"nonce":"OTHER"}`) }},
		{"call with nonce of the wrong type", func(s **fakeServer) http.HandlerFunc { return verdictCall(s, `{`+allow+`,"nonce":["NONCE"]}`) }},
		{"call with a variant of the nonce's name", func(s **fakeServer) http.HandlerFunc { return verdictCall(s, `{`+allow+`,"Nonce":"NONCE"}`) }},
		{"call beside another call", func(s **fakeServer) http.HandlerFunc {
			return verdictCall(s, `{`+allow+`,"nonce":"NONCE"}`, [2]string{"read_file", `{"path":"x"}`})
		}},
		{"two verdict calls", func(s **fakeServer) http.HandlerFunc {
			return verdictCall(s, `{`+allow+`,"nonce":"NONCE"}`, [2]string{autoreview.VerdictTool, `{"outcome":"deny","nonce":"NONCE"}`})
		}},
		{"nested verdict in the call", func(s **fakeServer) http.HandlerFunc {
			return verdictCall(s, `{"verdict":{`+allow+`},"nonce":"NONCE"}`)
		}},
		{"malformed arguments", func(s **fakeServer) http.HandlerFunc { return verdictCall(s, `{`+allow+`,"nonce":"NONCE"`) }},
		{"JSON answer with another nonce", func(s **fakeServer) http.HandlerFunc {
			return completion(`{` + allow + `,"nonce":"ZZZZZZZZZZZZZZZZZZZZZZZZZZ"}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *fakeServer
			srv = newFake(t, tt.reply(&srv))
			res, err := review(t, &autoreview.Reviewer{Model: srv.model(t)})
			if !errors.Is(err, autoreview.ErrAmbiguousVerdict) || res.Status != action.StatusFailed || !res.Denied() || srv.requests() != autoreview.DefaultAttempts {
				t.Fatalf("status %s requests %d err %v", res.Status, srv.requests(), err)
			}
			// Every call was answered before the next request.
			req := srv.request(1)
			if last := req.Messages[len(req.Messages)-1]; last.Role != "tool" && last.Role != "user" {
				t.Errorf("the retry follows a %s message", last.Role)
			}
		})
	}
	// A JSON answer with this review's nonce, or none, is still read.
	var srv *fakeServer
	srv = newFake(t, func(w http.ResponseWriter, r *http.Request) {
		completion(`{"outcome":"deny","nonce":"`+srv.nonce(0)+`"}`)(w, r)
	})
	res, err := review(t, &autoreview.Reviewer{Model: srv.model(t)})
	if err != nil || res.Status != action.StatusDenied || res.Verdict.Stated != vocab.Deny {
		t.Errorf("status %s err %v", res.Status, err)
	}
}

// TestG6_VerdictCallAfterAToolStep: the reviewer reads a file, then calls
// the verdict tool; the nonce is the same throughout the review.
func TestG6_VerdictCallAfterAToolStep(t *testing.T) {
	dir := t.TempDir()
	var srv *fakeServer
	srv = newFake(t, completion("", [2]string{"list_dir", `{}`}),
		verdictCall(&srv, `{"outcome":"deny","risk_level":"high","user_authorization":"low","rationale":"no","nonce":"NONCE"}`))
	res, err := review(t, &autoreview.Reviewer{Model: srv.model(t), Tools: autoreview.ReadOnlyTools(dir)})
	if err != nil || res.Status != action.StatusDenied || res.Steps != 1 {
		t.Fatalf("status %s steps %d err %v", res.Status, res.Steps, err)
	}
	if srv.nonce(0) != srv.nonce(1) {
		t.Error("the nonce changed within one review")
	}
}
