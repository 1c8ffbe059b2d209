package hosttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Responses is a fake OpenAI Responses API for Codex on loopback: its
// first answer calls Codex's shell tool with Command, every later one is a
// final text. It records the requests' bodies.
type Responses struct{ fake }

// NewResponses starts the fake API; it stops when the test ends.
func NewResponses(t testing.TB, command string) *Responses {
	r := &Responses{}
	r.start(t, command, r.serve, "/v1")
	return r
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
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
		if fl != nil {
			fl.Flush()
		}
	}
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
