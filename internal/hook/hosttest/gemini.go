package hosttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Gemini is a fake Gemini API for Gemini CLI on loopback: the routing call
// (generateContent) is answered with a plain choice, the first streamed
// turn (streamGenerateContent) is the scripted call of run_shell_command
// with Command, every later one a final text. It records the bodies.
type Gemini struct{ fake }

// NewGemini starts the fake API; it stops when the test ends.
func NewGemini(t testing.TB, command string) *Gemini {
	g := &Gemini{}
	g.start(t, command, g.serve, "")
	return g
}

func (g *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g.add(r.URL.Path + " " + string(body))
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
