package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/internal/providertest"
	"github.com/wardenhq/warden/tool"
)

// wireRequest is the Messages API request body as the server sees it.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int64  `json:"max_tokens"`
	System    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"system"`
	Messages []struct {
		Role    string      `json:"role"`
		Content []wireBlock `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   *bool           `json:"is_error"`
	Content   []wireBlock     `json:"content"`
}

// requestID is the header the Messages API answers with.
var requestID = http.Header{"Request-Id": {"req_test"}}

const reply = `{
  "id": "msg_01",
  "type": "message",
  "role": "assistant",
  "model": "claude-test",
  "content": [
    {"type": "text", "text": "I'll look "},
    {"type": "text", "text": "at the files."},
    {"type": "tool_use", "id": "toolu_a", "name": "list_files",
     "input": {"path": "/tmp", "recursive": true, "depth": 2, "exclude": ["*.o"]}},
    {"type": "tool_use", "id": "toolu_b", "name": "write_file", "input": {"zeta": "z", "alpha": {"y": 1, "x": null}}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 321, "output_tokens": 54, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}`

func conversation() model.Request {
	return providertest.Conversation(
		chat.Message{Role: chat.Assistant, Content: "Reading.", ToolCalls: []tool.Call{
			tool.NewCall("toolu_1", "read_file", `{"path": "/tmp/x", "limit": 10}`),
			tool.NewCall("toolu_2", "run", `{"cmd": `),
			tool.NewCall("toolu_3", "stat", ``),
		}},
		chat.Message{Role: chat.Tool, ToolCallID: "toolu_1", Function: "read_file", Content: "hello"},
		chat.Message{Role: chat.Tool, ToolCallID: "toolu_2", Function: "run", Content: "parsing: arguments of run are not valid JSON",
			Error: tool.Errorf(tool.ErrParsing, "arguments of run are not valid JSON")},
		chat.Message{Role: chat.Tool, ToolCallID: "toolu_3", Function: "stat", Content: ""},
	)
}

func TestGenerate(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, reply, requestID)
	var req wireRequest
	resp := srv.GenerateOnce(t, "anthropic/claude-test", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"}, conversation(), "POST /v1/messages", &req)
	if !srv.HasKey(0, "sk-ant-test") {
		t.Errorf("request does not carry the key: %v", srv.Headers[0])
	}
	if req.Model != "claude-test" || req.MaxTokens != 4096 {
		t.Errorf("model %q max_tokens %d", req.Model, req.MaxTokens)
	}
	if len(req.System) != 1 || req.System[0].Type != "text" || req.System[0].Text != "You are careful." {
		t.Errorf("system %+v", req.System)
	}
	var roles []string
	for _, msg := range req.Messages {
		roles = append(roles, msg.Role)
	}
	if got, want := strings.Join(roles, ","), "user,assistant,user,assistant,user"; got != want {
		t.Fatalf("roles %s, want %s\n%s", got, want, srv.Bodies[0])
	}
	if c := req.Messages[0].Content; len(c) != 1 || c[0].Type != "text" || c[0].Text != "Clean up /tmp." {
		t.Errorf("user message %+v", c)
	}

	asst := req.Messages[1].Content
	if len(asst) != 4 {
		t.Fatalf("assistant blocks %+v, want text and 3 tool_use", asst)
	}
	if asst[0].Type != "text" || asst[0].Text != "Reading." {
		t.Errorf("assistant text block %+v", asst[0])
	}
	for i, want := range []struct{ id, name, input string }{
		{"toolu_1", "read_file", `{"path":"/tmp/x","limit":10}`},
		{"toolu_2", "run", `{}`},
		{"toolu_3", "stat", `{}`},
	} {
		b := asst[i+1]
		if b.Type != "tool_use" || b.ID != want.id || b.Name != want.name || string(b.Input) != want.input {
			t.Errorf("tool_use %d = type %s id %s name %s input %s, want %+v", i, b.Type, b.ID, b.Name, b.Input, want)
		}
	}

	// The three tool results make one user message, in order.
	results := req.Messages[2].Content
	if len(results) != 3 {
		t.Fatalf("tool results %+v, want 3 in one message", results)
	}
	for i, want := range []struct {
		id, text string
		isError  bool
	}{
		{"toolu_1", "hello", false},
		{"toolu_2", "parsing: arguments of run are not valid JSON", true},
		{"toolu_3", "", false},
	} {
		b := results[i]
		var text string
		for _, c := range b.Content {
			if c.Type != "text" {
				t.Errorf("result %d has a %s block", i, c.Type)
			}
			text += c.Text
		}
		isError := b.IsError != nil && *b.IsError
		if b.Type != "tool_result" || b.ToolUseID != want.id || text != want.text || isError != want.isError {
			t.Errorf("tool_result %d = type %s id %s text %q is_error %v, want %+v", i, b.Type, b.ToolUseID, text, isError, want)
		}
	}
	if c := req.Messages[3].Content; len(c) != 1 || c[0].Text != "Read it." {
		t.Errorf("second assistant message %+v", c)
	}
	if c := req.Messages[4].Content; len(c) != 1 || c[0].Text != "Go on." {
		t.Errorf("last user message %+v", c)
	}

	if len(req.Tools) != 2 {
		t.Fatalf("tools %+v, want 2", req.Tools)
	}
	if tl := req.Tools[0]; tl.Name != "read_file" || tl.Description != "Reads a file." {
		t.Errorf("first tool %+v", tl)
	}
	if got, want := string(req.Tools[0].InputSchema), `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"after":{"type":"string"}},"required":["path"]}`; got != want {
		t.Errorf("input_schema\n got %s\nwant %s", got, want)
	}
	if got, want := string(req.Tools[1].InputSchema), `{"type":"object","properties":{}}`; got != want {
		t.Errorf("nil parameters sent as %s, want %s", got, want)
	}

	msg := resp.Message
	if msg.Role != chat.Assistant || msg.Content != "I'll look at the files." {
		t.Errorf("message role %q content %q", msg.Role, msg.Content)
	}
	if len(msg.ToolCalls) != 2 {
		t.Fatalf("tool calls %+v, want 2", msg.ToolCalls)
	}
	if c := msg.ToolCalls[0]; c.ID != "toolu_a" || c.Function != "list_files" || c.ParseError != "" {
		t.Errorf("call 0 = %+v", c)
	}
	if got, want := providertest.InModelOrder(msg.ToolCalls[0]), "list_files(path='/tmp', recursive=True, depth=2, exclude=['*.o'])"; got != want {
		t.Errorf("call 0 text %q, want %q", got, want)
	}
	if got, want := providertest.InModelOrder(msg.ToolCalls[1]), "write_file(zeta='z', alpha={'x': None, 'y': 1})"; got != want {
		t.Errorf("call 1 text %q, want %q", got, want)
	}
	if resp.Usage != (model.Usage{InputTokens: 321, OutputTokens: 54}) {
		t.Errorf("usage %+v", resp.Usage)
	}
}

func TestCachedTokens(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, `{"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-test",
	  "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn", "stop_sequence": null,
	  "usage": {"input_tokens": 10, "output_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000}}`, requestID)
	m, err := newModel("claude-test", model.Options{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	m.MaxTokens = 100
	resp, err := m.Generate(context.Background(), model.Request{Messages: []chat.Message{{Role: chat.User, Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Done." || len(resp.Message.ToolCalls) != 0 {
		t.Errorf("message %+v", resp.Message)
	}
	if resp.Usage != (model.Usage{InputTokens: 1110, OutputTokens: 3}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	var req wireRequest
	if err := json.Unmarshal(srv.Bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	if req.MaxTokens != 100 || req.System != nil || req.Tools != nil {
		t.Errorf("request %s", srv.Bodies[0])
	}
}

func TestEnvironment(t *testing.T) {
	srv := providertest.NewServer(t, http.StatusOK, reply, requestID)
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL+"/env")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	providertest.SayHi(t, func() (model.Model, error) { return newModel("claude-env", model.Options{}) })
	if srv.Paths[0] != "POST /env/v1/messages" || !srv.HasKey(0, "sk-ant-env") {
		t.Errorf("request %q with headers %v", srv.Paths[0], srv.Headers[0])
	}

	providertest.SayHi(t, func() (model.Model, error) {
		return newModel("claude-env", model.Options{BaseURL: srv.URL + "/opt", APIKey: "sk-ant-opt"})
	})
	if srv.Paths[1] != "POST /opt/v1/messages" || !srv.HasKey(1, "sk-ant-opt") || srv.HasKey(1, "sk-ant-env") {
		t.Errorf("request %q with headers %v", srv.Paths[1], srv.Headers[1])
	}
}

func TestHTTPError(t *testing.T) {
	providertest.CheckHTTPErrors(t, "claude-test", []providertest.HTTPError{
		{Status: http.StatusBadRequest, Body: `{"type": "error", "error": {"type": "invalid_request_error", "message": "messages: roles must alternate"}}`,
			Want: []string{"400", "roles must alternate"}},
		{Status: http.StatusUnauthorized, Body: `{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}`,
			Want: []string{"401", "invalid x-api-key"}},
		{Status: 529, Body: `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`,
			Want: []string{"529", "Overloaded"}},
	}, func(url string) (model.Model, error) {
		return newModel("claude-test", model.Options{BaseURL: url, APIKey: "k"})
	}, conversation())
}

func TestBadInput(t *testing.T) {
	providertest.CheckBadInput(t, reply, requestID, func(name string, opts model.Options) (model.Model, error) { return newModel(name, opts) }, json.RawMessage(`"x"`))
}

// Issue 10 item 5: without a credential from --api-key, ANTHROPIC_API_KEY or
// the SDK's other sources the provider does not open; the error names the
// variable and the flag.
func TestNewcomer5_MissingKeyIsConfigError(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_FEDERATION_RULE_ID"} {
		t.Setenv(v, "") // restored at the end
		os.Unsetenv(v)
	}
	t.Setenv("ANTHROPIC_CONFIG_DIR", t.TempDir()) // no profile file
	_, err := model.Open("anthropic/claude-test", model.Options{})
	var mc *model.MissingConfigError
	if !errors.As(err, &mc) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), "--api-key") {
		t.Errorf("without a key: %v", err)
	}
	for _, env := range [][2]string{{"ANTHROPIC_API_KEY", "k"}, {"ANTHROPIC_AUTH_TOKEN", "t"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			if _, err := newModel("m", model.Options{}); err != nil {
				t.Errorf("with %s: %v", env[0], err)
			}
		})
	}
	if _, err := newModel("m", model.Options{APIKey: "k"}); err != nil {
		t.Errorf("with an option key: %v", err)
	}
}
