// Package openaitest writes the answers of a fake OpenAI-compatible chat
// completions server, for tests that put a model (a reviewer, an agent)
// behind one.
package openaitest

import (
	"encoding/json"
	"net/http"
)

// Completion returns the body of a chat completion whose one choice is the
// assistant message msg (its "role", "content" and "tool_calls" fields),
// finished for its tool calls when it has some and stopped otherwise, with
// the token counts given.
func Completion(msg map[string]any, promptTokens, completionTokens int) []byte {
	finish := "stop"
	if _, ok := msg["tool_calls"]; ok {
		finish = "tool_calls"
	}
	b, err := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]any{"prompt_tokens": promptTokens, "completion_tokens": completionTokens, "total_tokens": promptTokens + completionTokens},
	})
	if err != nil {
		panic(err) // maps of JSON values only
	}
	return b
}

// Reply writes Completion(msg, promptTokens, completionTokens) to w as a
// JSON response.
func Reply(w http.ResponseWriter, msg map[string]any, promptTokens, completionTokens int) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(Completion(msg, promptTokens, completionTokens))
}

// Assistant returns an assistant message of content alone.
func Assistant(content string) map[string]any {
	return map[string]any{"role": "assistant", "content": content}
}

// UserMessage returns the text of the last user message of body, a chat
// completions request; false when body is not one or has none.
func UserMessage(body string) (string, bool) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(body), &req) != nil {
		return "", false
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content, true
		}
	}
	return "", false
}
