package hosttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Gemini is a fake Gemini API for Gemini CLI on loopback: the routing call
// (generateContent) is answered with a plain choice, the first streamed
// turn (streamGenerateContent) is the scripted call of run_shell_command
// with Command, every later one a final text. It records the bodies.
type Gemini struct {
	URL     string
	Command string

	mu       sync.Mutex
	requests []string
}

// NewGemini starts the fake API; it stops when the test ends.
func NewGemini(t testing.TB, command string) *Gemini {
	g := &Gemini{Command: command}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// Requests returns the bodies of the requests so far.
func (g *Gemini) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.requests...)
}

func (g *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.requests = append(g.requests, r.URL.Path+" "+string(body))
	g.mu.Unlock()
	usage := map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	text := func(s string) map[string]any {
		return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": s}}}, "finishReason": "STOP", "index": 0}}, "usageMetadata": usage}
	}
	switch {
	case strings.HasSuffix(r.URL.Path, ":generateContent"):
		// The router's choice of a model, as JSON text.
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(text(`{"reasoning":"simple","model_choice":"flash"}`))
	case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		w.Header().Set("Content-Type", "text/event-stream")
		var resp map[string]any
		if strings.Contains(string(body), `"functionResponse"`) {
			resp = text("Done.")
		} else {
			resp = map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{
				map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": g.Command, "description": "run the command"}}}}},
				"finishReason": "STOP", "index": 0}}, "usageMetadata": usage}
		}
		b, _ := json.Marshal(resp)
		fmt.Fprintf(w, "data: %s\n\n", b)
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"totalTokens":10}`)
	default:
		http.NotFound(w, r)
	}
}
