package hosttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// model is a fake model API: the fake state it embeds and its handler.
type model interface {
	state() *fake
	serve(w http.ResponseWriter, r *http.Request)
}

func (f *fake) state() *fake { return f }

// launch starts m on loopback for command, its URL ending in path, until
// the test ends.
func launch[M model](t testing.TB, command, path string, m M) M {
	m.state().start(t, command, m.serve, path)
	return m
}

// events returns a writer of server-sent events on w, each flushed at
// once; an event without a name is sent as its data alone.
func events(w http.ResponseWriter) func(event string, data any) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	return func(event string, data any) {
		b, _ := json.Marshal(data)
		if event != "" {
			fmt.Fprintf(w, "event: %s\n", event)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
}

// Anthropic is a fake Anthropic Messages API for Claude Code on loopback:
// its first answer is the scripted tool call (Bash with Command), every
// later one a final text. It records the requests' bodies.
type Anthropic struct{ fake }

// NewAnthropic starts the fake API; it stops when the test ends.
func NewAnthropic(t testing.TB, command string) *Anthropic {
	return launch(t, command, "", &Anthropic{})
}

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	a.add(string(body))
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	// A tool result in the conversation: the call was made (or refused);
	// answer with the final text.
	done := strings.Contains(string(body), `"tool_result"`)
	send := events(w)
	msg := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}
	send("message_start", map[string]any{"type": "message_start", "message": msg})
	stop := "end_turn"
	if done {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "Done."}})
	} else {
		stop = "tool_use"
		input, _ := json.Marshal(map[string]any{"command": a.Command, "description": "run the command"})
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// Gemini is a fake Gemini API for Gemini CLI on loopback: the routing call
// (generateContent) is answered with a plain choice, the first streamed
// turn (streamGenerateContent) is the scripted call of run_shell_command
// with Command, every later one a final text. It records the bodies.
type Gemini struct{ fake }

// NewGemini starts the fake API; it stops when the test ends.
func NewGemini(t testing.TB, command string) *Gemini {
	return launch(t, command, "", &Gemini{})
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
		send := events(w)
		var resp map[string]any
		if strings.Contains(string(body), `"functionResponse"`) {
			resp = text("Done.")
		} else {
			resp = map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{
				map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": g.Command, "description": "run the command"}}}}},
				"finishReason": "STOP", "index": 0}}, "usageMetadata": usage}
		}
		send("", resp)
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"totalTokens":10}`)
	default:
		http.NotFound(w, r)
	}
}

// Responses is a fake OpenAI Responses API for Codex on loopback: its
// first answer calls Codex's shell tool with Command, every later one is a
// final text. It records the requests' bodies.
type Responses struct{ fake }

// NewResponses starts the fake API; it stops when the test ends.
func NewResponses(t testing.TB, command string) *Responses {
	return launch(t, command, "/v1", &Responses{})
}

// call is the function call of Codex's shell tool, as the tools the
// request offers name it.
func (r *Responses) call(body string) (name, args string) {
	var req struct {
		Tools []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"tools"`
	}
	_ = json.Unmarshal([]byte(body), &req)
	have := map[string]bool{}
	for _, t := range req.Tools {
		have[t.Name] = true
	}
	var a []byte
	switch {
	case have["exec_command"]:
		a, _ = json.Marshal(map[string]any{"cmd": r.Command})
		return "exec_command", string(a)
	case have["shell_command"]:
		a, _ = json.Marshal(map[string]any{"command": r.Command})
		return "shell_command", string(a)
	default:
		a, _ = json.Marshal(map[string]any{"command": []string{"bash", "-lc", r.Command}})
		return "shell", string(a)
	}
}

func (r *Responses) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	n := r.add(req.URL.Path + " " + string(body))
	if !strings.HasSuffix(req.URL.Path, "/responses") {
		http.NotFound(w, req)
		return
	}
	sse := events(w)
	send := func(data map[string]any) { sse(data["type"].(string), data) }
	id := fmt.Sprintf("resp_%d", n)
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	var item map[string]any
	if strings.Contains(string(body), `"function_call_output"`) || strings.Contains(string(body), `"custom_tool_call_output"`) {
		item = map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}}
	} else {
		name, args := r.call(string(body))
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id, "name": name, "arguments": args, "status": "completed"}
	}
	send(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	send(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}
