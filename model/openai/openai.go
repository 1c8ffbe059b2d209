// Package openai is a model provider for OpenAI's chat completions API and
// the servers that speak it (vLLM, llama.cpp, Ollama and others), chosen by
// base URL. It registers itself as the provider "openai", so importing it
// for its side effect makes specs such as "openai/gpt-4o" open a model.
//
// The endpoint and key come from model.Options when set, otherwise from the
// environment variables OPENAI_BASE_URL and OPENAI_API_KEY, which openai-go
// reads along with its other OPENAI_* settings.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/internal/wire"
	"github.com/wardenhq/warden/tool"
)

func init() {
	model.Register("openai", func(name string, opts model.Options) (model.Model, error) {
		return newModel(name, opts)
	})
}

// remote is a chat-completions model. It is safe for concurrent use.
type remote struct {
	client sdk.Client
	name   string
}

var _ model.Model = (*remote)(nil)

// newModel returns the model named modelName ("gpt-4o", or whatever name the
// server at the base URL knows). opts.BaseURL and opts.APIKey override the
// OPENAI_BASE_URL and OPENAI_API_KEY environment variables. Without a key
// from either it returns a *model.MissingConfigError, before any request;
// a server that needs no key takes any.
func newModel(modelName string, opts model.Options) (*remote, error) {
	if err := wire.CheckOpen("openai", modelName, opts, "OPENAI_API_KEY", func() bool { return os.Getenv("OPENAI_API_KEY") != "" }); err != nil {
		return nil, err
	}
	reqOpts := wire.ClientOptions(opts, option.WithBaseURL, option.WithAPIKey, option.WithMaxRetries)
	return &remote{client: sdk.NewClient(reqOpts...), name: modelName}, nil
}

// Name returns the model name sent to the server.
func (m *remote) Name() string { return m.name }

// Generate sends the conversation and tools to the chat completions endpoint
// and returns the first choice as an assistant message, with its tool calls
// in the order and with the argument text the model produced.
func (m *remote) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return model.Response{}, fmt.Errorf("openai %s: %w", m.name, err)
	}
	completion, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			return model.Response{}, fmt.Errorf("openai %s: %w: %s", m.name, err, apiErr.Message)
		}
		return model.Response{}, fmt.Errorf("openai %s: %w", m.name, err)
	}
	return response(completion)
}

// params builds the request body for req.
func (m *remote) params(req model.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{Model: m.name}
	for i, msg := range req.Messages {
		p, err := message(msg)
		if err != nil {
			return params, fmt.Errorf("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, p)
	}
	var err error
	params.Tools, err = wire.Tools(req.Tools, toolParam)
	return params, err
}

// message converts one chat message to its wire form.
func message(msg chat.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case chat.System:
		return sdk.SystemMessage(msg.Content), nil
	case chat.User:
		return sdk.UserMessage(msg.Content), nil
	case chat.Assistant:
		var a sdk.ChatCompletionAssistantMessageParam
		if msg.Content != "" || len(msg.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(msg.Content)
		}
		for _, c := range msg.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      c.Function,
						Arguments: argumentText(c),
					},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case chat.Tool:
		return sdk.ToolMessage(wire.ToolText(msg), msg.ToolCallID), nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", msg.Role)
}

// argumentText returns the argument text of c as the model sent it: the
// JSON object, or the raw text of arguments that did not parse.
func argumentText(c tool.Call) string {
	if c.ParseError != "" || c.Arguments == nil {
		return c.ArgumentsRaw
	}
	return string(c.Arguments)
}

// toolParam converts a tool description to a function tool definition. The
// definition is sent as JSON built here so that the parameter schema keeps
// its key order (the SDK holds schemas in a map).
func toolParam(info tool.Info) (sdk.ChatCompletionToolUnionParam, error) {
	schema, err := wire.Schema(info)
	if err != nil {
		return sdk.ChatCompletionToolUnionParam{}, err
	}
	def := struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}{Type: "function"}
	def.Function.Name = info.Name
	def.Function.Description = info.Description
	def.Function.Parameters = schema
	raw, err := json.Marshal(def)
	if err != nil {
		return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("tool %s: %w", info.Name, err)
	}
	fn := param.Override[sdk.ChatCompletionFunctionToolParam](json.RawMessage(raw))
	return sdk.ChatCompletionToolUnionParam{OfFunction: &fn}, nil
}

// response converts a completion to a model response.
func response(c *sdk.ChatCompletion) (model.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return model.Response{}, errors.New("openai: response has no choices")
	}
	msg := c.Choices[0].Message
	out := chat.Message{Role: chat.Assistant, Content: msg.Content}
	if out.Content == "" && msg.Refusal != "" {
		out.Content = msg.Refusal
	}
	for i, tc := range msg.ToolCalls {
		id := tc.ID
		if id == "" {
			// Some compatible servers omit ids; tool results need one.
			id = "call_" + strconv.Itoa(i+1)
		}
		switch tc.Type {
		case "custom":
			out.ToolCalls = append(out.ToolCalls, tool.NewCall(id, tc.Custom.Name, tc.Custom.Input))
		default:
			out.ToolCalls = append(out.ToolCalls, tool.NewCall(id, tc.Function.Name, tc.Function.Arguments))
		}
	}
	return model.Response{
		Message: out,
		Usage: model.Usage{
			InputTokens:  int(c.Usage.PromptTokens),
			OutputTokens: int(c.Usage.CompletionTokens),
		},
	}, nil
}
