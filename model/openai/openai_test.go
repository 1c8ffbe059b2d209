package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/internal/providertest"
	"github.com/wardenhq/warden/tool"
)

// wireRequest is the chat completions request body as the server sees it.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

const completion = `{
  "id": "chatcmpl-123",
  "object": "chat.completion",
  "created": 1730000000,
  "model": "gpt-test",
  "choices": [{
    "index": 0,
    "finish_reason": "tool_calls",
    "logprobs": null,
    "message": {
      "role": "assistant",
      "content": "Looking at the files.",
      "refusal": null,
      "tool_calls": [
        {"id": "call_a", "type": "function",
         "function": {"name": "list_files", "arguments": "{\"path\": \"/tmp\", \"recursive\": true, \"depth\": 2, \"exclude\": [\"*.o\"]}"}},
        {"id": "call_b", "type": "function",
         "function": {"name": "write_file", "arguments": "{\"zeta\": \"z\", \"alpha\": \"a\"}"}},
        {"id": "call_c", "type": "function",
         "function": {"name": "run", "arguments": "{\"cmd\": \"ls"}}
      ]
    }
  }],
  "usage": {"prompt_tokens": 123, "completion_tokens": 45, "total_tokens": 168}
}`

func conversation() model.Request {
	return providertest.Conversation(
		chat.Message{Role: chat.Assistant, Content: "", ToolCalls: []tool.Call{
			tool.NewCall("call_1", "read_file", `{"path": "/tmp/x", "limit": 10}`),
			tool.NewCall("call_2", "run", `{"cmd": `),
		}},
		chat.Message{Role: chat.Tool, ToolCallID: "call_1", Function: "read_file", Content: "hello"},
		chat.Message{Role: chat.Tool, ToolCallID: "call_2", Function: "run", Content: "parsing: arguments of run are not valid JSON",
			Error: tool.Errorf(tool.ErrParsing, "arguments of run are not valid JSON")},
	)
}

func TestGenerate(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, completion, nil)
	var req wireRequest
	resp := srv.GenerateOnce(t, "openai/gpt-test", model.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test"}, conversation(), "POST /v1/chat/completions", &req)
	if got, want := srv.Headers[0].Get("Authorization"), "Bearer sk-test"; got != want {
		t.Errorf("Authorization %q, want %q", got, want)
	}
	if req.Model != "gpt-test" {
		t.Errorf("model %q, want gpt-test", req.Model)
	}
	var roles []string
	for _, msg := range req.Messages {
		roles = append(roles, msg.Role)
	}
	if got, want := strings.Join(roles, ","), "system,user,assistant,tool,tool,assistant,user"; got != want {
		t.Fatalf("roles %s, want %s", got, want)
	}
	content := func(i int) string {
		var s string
		if err := json.Unmarshal(req.Messages[i].Content, &s); err != nil {
			t.Errorf("message %d content %s: %v", i, req.Messages[i].Content, err)
		}
		return s
	}
	if got := content(0); got != "You are careful." {
		t.Errorf("system content %q", got)
	}
	if got := content(1); got != "Clean up /tmp." {
		t.Errorf("user content %q", got)
	}
	asst := req.Messages[2]
	if len(asst.ToolCalls) != 2 {
		t.Fatalf("assistant tool calls %+v, want 2", asst.ToolCalls)
	}
	for i, want := range []struct{ id, name, args string }{
		{"call_1", "read_file", `{"path": "/tmp/x", "limit": 10}`},
		{"call_2", "run", `{"cmd": `},
	} {
		c := asst.ToolCalls[i]
		if c.ID != want.id || c.Type != "function" || c.Function.Name != want.name || c.Function.Arguments != want.args {
			t.Errorf("tool call %d = %+v, want id %s name %s arguments %q", i, c, want.id, want.name, want.args)
		}
	}
	if req.Messages[3].ToolCallID != "call_1" || content(3) != "hello" {
		t.Errorf("first tool message id %q content %q", req.Messages[3].ToolCallID, content(3))
	}
	if req.Messages[4].ToolCallID != "call_2" || !strings.HasPrefix(content(4), "parsing: ") {
		t.Errorf("second tool message id %q content %q", req.Messages[4].ToolCallID, content(4))
	}
	if got := content(5); got != "Read it." {
		t.Errorf("second assistant content %q", got)
	}

	if len(req.Tools) != 2 {
		t.Fatalf("tools %+v, want 2", req.Tools)
	}
	rf := req.Tools[0]
	if rf.Type != "function" || rf.Function.Name != "read_file" || rf.Function.Description != "Reads a file." {
		t.Errorf("first tool %+v", rf)
	}
	// The schema keeps its property order.
	if got, want := string(rf.Function.Parameters), `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"after":{"type":"string"}},"required":["path"]}`; got != want {
		t.Errorf("parameters\n got %s\nwant %s", got, want)
	}
	if got, want := string(req.Tools[1].Function.Parameters), `{"type":"object","properties":{}}`; got != want {
		t.Errorf("nil parameters sent as %s, want %s", got, want)
	}

	msg := resp.Message
	if msg.Role != chat.Assistant || msg.Content != "Looking at the files." {
		t.Errorf("message role %q content %q", msg.Role, msg.Content)
	}
	if len(msg.ToolCalls) != 3 {
		t.Fatalf("tool calls %+v, want 3", msg.ToolCalls)
	}
	if got, want := providertest.InModelOrder(msg.ToolCalls[0]), "list_files(path='/tmp', recursive=True, depth=2, exclude=['*.o'])"; got != want {
		t.Errorf("call 0 text %q, want %q", got, want)
	}
	if got, want := providertest.InModelOrder(msg.ToolCalls[1]), "write_file(zeta='z', alpha='a')"; got != want {
		t.Errorf("call 1 text %q, want %q", got, want)
	}
	if c := msg.ToolCalls[0]; c.ID != "call_a" || string(c.Arguments) != `{"path": "/tmp", "recursive": true, "depth": 2, "exclude": ["*.o"]}` {
		t.Errorf("call 0 = %+v", c)
	}
	if c := msg.ToolCalls[2]; c.ID != "call_c" || c.ParseError == "" || c.ArgumentsRaw != `{"cmd": "ls` || c.Arguments != nil {
		t.Errorf("call 2 = %+v, want a parse error keeping the raw text", c)
	}
	if resp.Usage != (model.Usage{InputTokens: 123, OutputTokens: 45}) {
		t.Errorf("usage %+v", resp.Usage)
	}
}

func TestEnvironment(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, completion, nil)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/api")
	t.Setenv("OPENAI_API_KEY", "sk-env")
	providertest.SayHi(t, func() (model.Model, error) { return newModel("gpt-env", model.Options{}) })
	if srv.Paths[0] != "POST /api/chat/completions" || srv.Headers[0].Get("Authorization") != "Bearer sk-env" {
		t.Errorf("request %q with Authorization %q", srv.Paths[0], srv.Headers[0].Get("Authorization"))
	}

	// Options override the environment.
	providertest.SayHi(t, func() (model.Model, error) {
		return newModel("gpt-env", model.Options{BaseURL: srv.URL + "/other", APIKey: "sk-opt"})
	})
	if srv.Paths[1] != "POST /other/chat/completions" || srv.Headers[1].Get("Authorization") != "Bearer sk-opt" {
		t.Errorf("request %q with Authorization %q", srv.Paths[1], srv.Headers[1].Get("Authorization"))
	}
}

func TestHTTPError(t *testing.T) {
	providertest.CheckHTTPErrors(t, "gpt-test", []providertest.HTTPError{
		{Status: http.StatusBadRequest, Body: `{"error": {"message": "Invalid schema for function 'run'", "type": "invalid_request_error", "param": "tools[0]", "code": null}}`,
			Want: []string{"400", "Invalid schema for function 'run'"}},
		{Status: http.StatusUnauthorized, Body: `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`,
			Want: []string{"401", "Incorrect API key"}},
		{Status: http.StatusInternalServerError, Body: `oops`, Want: []string{"500"}},
	}, func(url string) (model.Model, error) {
		return newModel("gpt-test", model.Options{BaseURL: url, APIKey: "sk-test"})
	}, conversation())
}

func TestNoChoices(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, `{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}}`, nil)
	m, err := newModel("m", model.Options{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), conversation()); err == nil {
		t.Error("no error for a response without choices")
	}
}

func TestBadInput(t *testing.T) {
	providertest.CheckBadInput(t, completion, nil, func(name string, opts model.Options) (model.Model, error) { return newModel(name, opts) }, json.RawMessage(`[1]`))
}

func TestMissingToolCallID(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, `{"id": "x", "object": "chat.completion", "created": 1, "model": "m",
	  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
	    "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}, {"id": "", "type": "function", "function": {"name": "g", "arguments": ""}}]}}],
	  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}`, nil)
	m, err := newModel("m", model.Options{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Generate(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID == "" || calls[1].ID == "" || calls[0].ID == calls[1].ID {
		t.Errorf("calls %+v: want distinct generated ids", calls)
	}
	if calls[1].ParseError != "" || string(calls[1].Arguments) != "{}" {
		t.Errorf("empty arguments gave %+v, want {}", calls[1])
	}
}

// MaxRetries 0 leaves retrying to the caller: one request per Generate.
func TestMaxRetries(t *testing.T) {
	for _, tc := range []struct {
		retries int
		want    int32
	}{{0, 1}, {1, 2}} {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Retry-After-Ms", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		m, err := newModel("gpt-test", model.Options{BaseURL: srv.URL, APIKey: "sk-test", MaxRetries: &tc.retries})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(context.Background(), conversation()); err == nil {
			t.Fatal("no error from a 503")
		}
		srv.Close()
		if n := hits.Load(); n != tc.want {
			t.Errorf("MaxRetries %d: %d requests, want %d", tc.retries, n, tc.want)
		}
	}
}

// Issue 10 item 5: without --api-key or OPENAI_API_KEY the provider does
// not open (no request is made); the error names the variable and the flag.
func TestNewcomer5_MissingKeyIsConfigError(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, completion, nil)
	t.Setenv("OPENAI_API_KEY", "")
	for _, spec := range []string{"openai/gpt-test"} {
		_, err := model.Open(spec, model.Options{BaseURL: srv.URL})
		var mc *model.MissingConfigError
		if !errors.As(err, &mc) || mc.Env != "OPENAI_API_KEY" ||
			!strings.Contains(err.Error(), "OPENAI_API_KEY") || !strings.Contains(err.Error(), "--api-key") {
			t.Errorf("%s without a key: %v", spec, err)
		}
	}
	if len(srv.Paths) != 0 {
		t.Errorf("requests made: %v", srv.Paths)
	}
	// Either source of the key opens it.
	if _, err := newModel("m", model.Options{APIKey: "k"}); err != nil {
		t.Errorf("with an option key: %v", err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-env")
	if _, err := newModel("m", model.Options{}); err != nil {
		t.Errorf("with OPENAI_API_KEY: %v", err)
	}
}
