package openaitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// A request reaches the answer function, is kept in order, and is taken
// once; Choose picks its reply by what the body says.
func TestServerKeepsRequestsAndAnswers(t *testing.T) {
	s := NewServer(t, 3, 2, Choose("no", "yes", "please"))
	ask := func(body string) map[string]any {
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c struct {
			Choices []struct{ Message map[string]any }
			Usage   struct {
				PromptTokens int `json:"prompt_tokens"`
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) != 1 || c.Usage.PromptTokens != 3 {
			t.Fatalf("completion %+v, %v", c, err)
		}
		return c.Choices[0].Message
	}
	if m := ask(`{"q":"please"}`); m["content"] != "yes" {
		t.Errorf("reply %v, want yes", m)
	}
	if m := ask(`{"q":"now"}`); m["content"] != "no" {
		t.Errorf("reply %v, want no", m)
	}
	if got := s.Take(); len(got) != 2 || got[0] != `{"q":"please"}` {
		t.Errorf("taken %q", got)
	}
	ask(`{}`)
	if got, all := s.Take(), s.Bodies(); len(got) != 1 || len(all) != 3 {
		t.Errorf("taken %q of %q", got, all)
	}
	if p := s.Paths(); len(p) != 3 || p[0] != "/v1/chat/completions" {
		t.Errorf("paths %q", p)
	}
}

// UserMessage finds the last user message of a request, and nothing in a
// body that is not one.
func TestUserMessage(t *testing.T) {
	for _, tc := range []struct {
		body, want string
		ok         bool
	}{
		{`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u1"},{"role":"assistant","content":"a"},{"role":"user","content":"u2"}]}`, "u2", true},
		{`{"messages":[{"role":"system","content":"s"}]}`, "", false},
		{`{"messages":`, "", false},
	} {
		if got, ok := UserMessage(tc.body); got != tc.want || ok != tc.ok {
			t.Errorf("UserMessage(%s) = %q, %v; want %q, %v", tc.body, got, ok, tc.want, tc.ok)
		}
	}
}
