package openaitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Server is a loopback OpenAI-compatible chat completions server: it keeps
// the path and body of every request and answers each with the assistant
// message its answer function makes from the body, so that a test sees
// exactly what the model received.
type Server struct {
	*httptest.Server
	mu     sync.Mutex
	paths  []string
	bodies []string
	taken  int
}

// NewServer starts a Server, closed when the test ends, whose every reply
// is answer(body) with the token counts given.
func NewServer(t testing.TB, promptTokens, completionTokens int, answer func(body string) map[string]any) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		Reply(w, answer(string(body)), promptTokens, completionTokens)
	}))
	t.Cleanup(s.Close)
	return s
}

// Bodies returns the request bodies received so far, in order.
func (s *Server) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// Take returns the request bodies received since the last Take.
func (s *Server) Take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.bodies[s.taken:]...)
	s.taken = len(s.bodies)
	return out
}

// Paths returns the URL paths of the requests received so far, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// Choose returns an answer function that replies with the content matched
// when the request body contains one of words, and otherwise with the
// content otherwise (a reviewer's verdict, say).
func Choose(otherwise, matched string, words ...string) func(body string) map[string]any {
	return func(body string) map[string]any {
		for _, w := range words {
			if strings.Contains(body, w) {
				return Assistant(matched)
			}
		}
		return Assistant(otherwise)
	}
}
