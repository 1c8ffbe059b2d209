// Package providertest is the fake provider the model providers' tests
// talk to: an HTTP server that answers every request with one reply and
// records what it received, and the checks every provider passes alike.
package providertest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/tool"
)

// Server answers every request with one status and body, recording each
// request's body, headers and method and path ("POST /v1/messages"). Read
// the records once the requests are answered.
type Server struct {
	*httptest.Server
	Bodies  [][]byte
	Headers []http.Header
	Paths   []string

	mu sync.Mutex
}

// NewServer starts a Server answering with status and reply as JSON, with
// the response headers header too; it is closed when the test ends.
func NewServer(t testing.TB, status int, reply string, header http.Header) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading request: %v", err)
		}
		s.mu.Lock()
		s.Bodies = append(s.Bodies, body)
		s.Headers = append(s.Headers, r.Header.Clone())
		s.Paths = append(s.Paths, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Should-Retry", "false")
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	t.Cleanup(s.Close)
	return s
}

// Tools are the tools of the conversation every provider's tests send:
// read_file with a parameter schema, run without one.
func Tools() []tool.Info {
	return []tool.Info{
		{Name: "read_file", Description: "Reads a file.",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}, "after": {"type": "string"}}, "required": ["path"]}`)},
		{Name: "run", Description: "Runs a command."},
	}
}

// Conversation is the request every provider's tests send, with Tools: a
// system prompt and a user's message, then turn (the assistant's message
// and its calls) and results (the tool messages that answer them), then an
// assistant's reply and the user's next message. The turn and results are
// each provider's own: its call ids and what its wire format can carry.
func Conversation(turn chat.Message, results ...chat.Message) model.Request {
	msgs := []chat.Message{
		{Role: chat.System, Content: "You are careful."},
		{Role: chat.User, Content: "Clean up /tmp."},
		turn,
	}
	msgs = append(msgs, results...)
	msgs = append(msgs, chat.Message{Role: chat.Assistant, Content: "Read it."}, chat.Message{Role: chat.User, Content: "Go on."})
	return model.Request{Messages: msgs, Tools: Tools()}
}

// GenerateOnce opens the model name with opts and sends it conv; it checks
// that the server received exactly that one request, as path ("POST
// /v1/messages"), decodes the request's body into req and returns the
// model's response.
func (s *Server) GenerateOnce(t testing.TB, name string, opts model.Options, conv model.Request, path string, req any) model.Response {
	t.Helper()
	m, err := model.Open(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Generate(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests() != 1 {
		t.Fatalf("server got %d requests, want 1", s.Requests())
	}
	if got := s.Paths[0]; got != path {
		t.Errorf("request %q, want %q", got, path)
	}
	if err := json.Unmarshal(s.Bodies[0], req); err != nil {
		t.Fatalf("decoding request %s: %v", s.Bodies[0], err)
	}
	return resp
}

// Requests returns how many requests the server received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.Bodies)
}

// HasKey reports whether request i carries key as its credential, as an
// X-Api-Key header or a bearer token.
func (s *Server) HasKey(i int, key string) bool {
	h := s.Headers[i]
	return h.Get("X-Api-Key") == key || h.Get("Authorization") == "Bearer "+key
}

// InModelOrder renders c with its arguments in the order the model sent
// them, to check that decoding kept that order in Arguments (patterns never
// see it: they match tool.Call.TextIn in the tool's order).
func InModelOrder(c tool.Call) string {
	var o tool.Order
	for _, a := range argjson.Append(nil, c.Arguments) {
		o = append(o, a.Key)
	}
	return c.TextIn(o)
}

// HTTPError is an error answer of a provider's API and what the error
// Generate returns for it must say.
type HTTPError struct {
	Status int
	Body   string
	Want   []string
}

// CheckHTTPErrors checks that the model open returns (at a server's URL)
// fails each request of the conversation conv answered with an error of
// cases, with an error that says what the case wants and names the model
// name.
func CheckHTTPErrors(t *testing.T, name string, cases []HTTPError, open func(baseURL string) (model.Model, error), conv model.Request) {
	t.Helper()
	for _, tc := range cases {
		srv := NewServer(t, tc.Status, tc.Body, nil)
		m, err := open(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.Generate(context.Background(), conv)
		if err == nil {
			t.Errorf("status %d: no error, response %+v", tc.Status, resp)
			continue
		}
		for _, w := range append(tc.Want, name) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("status %d: error %q does not contain %q", tc.Status, err, w)
			}
		}
	}
}

// CheckBadInput checks a provider's refusals of bad input: the model open
// returns for model "m" (talking to a server that answers reply with
// header) refuses, before any request, a message of an unknown role and a
// tool whose parameters are badSchema, not a JSON object; and open refuses
// an empty model name.
func CheckBadInput(t *testing.T, reply string, header http.Header, open func(name string, opts model.Options) (model.Model, error), badSchema json.RawMessage) {
	t.Helper()
	srv := NewServer(t, http.StatusOK, reply, header)
	m, err := open("m", model.Options{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]model.Request{
		"role":   {Messages: []chat.Message{{Role: "narrator", Content: "x"}}},
		"schema": {Messages: []chat.Message{{Role: chat.User, Content: "x"}}, Tools: []tool.Info{{Name: "t", Parameters: badSchema}}},
	} {
		if _, err := m.Generate(context.Background(), req); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("bad requests reached the server %d times", n)
	}
	if _, err := open("", model.Options{}); err == nil {
		t.Error("New accepted an empty model name")
	}
}

// SayHi opens a model with open and sends it one user turn, "hi", as a
// check of where the request goes; an error fails the test.
func SayHi(t testing.TB, open func() (model.Model, error)) {
	t.Helper()
	m, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), model.Request{Messages: []chat.Message{{Role: chat.User, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
}
