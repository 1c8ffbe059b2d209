// Package anthropic is a model provider for Anthropic's Messages API. It
// registers itself as the provider "anthropic", so importing it for its side
// effect makes specs such as "anthropic/claude-sonnet-4-5" open a model.
//
// The endpoint and key come from model.Options when set, otherwise from the
// environment variables ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (and the
// other credential sources the SDK's client reads).
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/config"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/internal/wire"
	"github.com/wardenhq/warden/tool"
)

func init() {
	model.Register("anthropic", func(name string, opts model.Options) (model.Model, error) {
		return newModel(name, opts)
	})
}

// defaultMaxTokens is the max_tokens a new model asks for.
const defaultMaxTokens = 4096

// remote is a Messages API model. Its methods are safe for concurrent use;
// set MaxTokens before the first call to Generate.
type remote struct {
	// MaxTokens is the max_tokens of each request (defaultMaxTokens unless
	// changed). The SDK refuses values whose answer could take more than
	// ten minutes without streaming (above about 21000), and this client
	// does not stream.
	MaxTokens int64

	client sdk.Client
	name   string
}

var _ model.Model = (*remote)(nil)

// newModel returns the model named modelName ("claude-sonnet-4-5"). opts.BaseURL
// and opts.APIKey override ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY. When
// no credential is found (opts.APIKey, ANTHROPIC_API_KEY, or one of the SDK's
// other sources: ANTHROPIC_AUTH_TOKEN, ANTHROPIC_PROFILE, federation
// variables, a profile configuration file) it returns a
// *model.MissingConfigError, before any request.
func newModel(modelName string, opts model.Options) (*remote, error) {
	if err := wire.CheckOpen("anthropic", modelName, opts, "ANTHROPIC_API_KEY", hasCredential); err != nil {
		return nil, err
	}
	reqOpts := wire.ClientOptions(opts, option.WithBaseURL, option.WithAPIKey, option.WithMaxRetries)
	return &remote{
		MaxTokens: defaultMaxTokens,
		client:    sdk.NewClient(reqOpts...),
		name:      modelName,
	}, nil
}

// hasCredential reports whether the SDK's client would find a credential of
// its own: an environment variable of its credential chain, or a profile
// configuration file it can load.
func hasCredential() bool {
	for _, v := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_FEDERATION_RULE_ID"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	_, err := config.LoadConfig()
	return !errors.Is(err, os.ErrNotExist)
}

// Name returns the model name sent to the API.
func (m *remote) Name() string { return m.name }

// Generate sends the conversation and tools to the Messages API and returns
// the answer as an assistant message: its text blocks joined, its tool_use
// blocks as tool calls with the input JSON as the model produced it.
func (m *remote) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return model.Response{}, fmt.Errorf("anthropic %s: %w", m.name, err)
	}
	msg, err := m.client.Messages.New(ctx, params)
	if err != nil {
		return model.Response{}, fmt.Errorf("anthropic %s: %w", m.name, err)
	}
	if msg == nil {
		return model.Response{}, fmt.Errorf("anthropic %s: empty response", m.name)
	}
	return response(msg), nil
}

// params builds the request body for req.
func (m *remote) params(req model.Request) (sdk.MessageNewParams, error) {
	maxTokens := m.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	params := sdk.MessageNewParams{Model: m.name, MaxTokens: maxTokens}
	for i, msg := range req.Messages {
		switch msg.Role {
		case chat.System:
			if msg.Content != "" {
				params.System = append(params.System, sdk.TextBlockParam{Text: msg.Content})
			}
		case chat.User:
			params.Messages = appendBlocks(params.Messages, chat.User, textBlock(msg.Content)...)
		case chat.Assistant:
			blocks := textBlock(msg.Content)
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c), c.Function))
			}
			params.Messages = appendBlocks(params.Messages, chat.Assistant, blocks...)
		case chat.Tool:
			result := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			if text := wire.ToolText(msg); text != "" {
				result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: text}}}
			}
			if msg.Error != nil {
				result.IsError = param.NewOpt(true)
			}
			params.Messages = appendBlocks(params.Messages, chat.User, sdk.ContentBlockParamUnion{OfToolResult: &result})
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	var err error
	params.Tools, err = wire.Tools(req.Tools, toolParam)
	return params, err
}

// appendBlocks adds blocks to the conversation as a message of role (user or
// assistant), merging them into the last message when it has the same role:
// the API wants roles to alternate, and all the results of one assistant
// turn's tool calls in a single user message.
func appendBlocks(msgs []sdk.MessageParam, role chat.Role, blocks ...sdk.ContentBlockParamUnion) []sdk.MessageParam {
	if len(blocks) == 0 {
		return msgs
	}
	if n := len(msgs); n > 0 {
		last := msgs[n-1]
		switch {
		case role == chat.User && last.OfUser != nil:
			last.OfUser.Content = append(last.OfUser.Content, blocks...)
			return msgs
		case role == chat.Assistant && last.OfAssistant != nil:
			last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
			return msgs
		}
	}
	if role == chat.User {
		return append(msgs, sdk.NewUserMessage(blocks...))
	}
	return append(msgs, sdk.NewAssistantMessage(blocks...))
}

// textBlock returns a text block of s, or none when s is empty (the API
// rejects empty text blocks).
func textBlock(s string) []sdk.ContentBlockParamUnion {
	if s == "" {
		return nil
	}
	return []sdk.ContentBlockParamUnion{sdk.NewTextBlock(s)}
}

// toolInput returns the input of a tool_use block for c: its arguments JSON
// as the model sent it. Arguments that did not parse are sent as an empty
// object, since the API accepts only objects; the tool result that follows
// carries the parsing error.
func toolInput(c tool.Call) json.RawMessage {
	if c.ParseError != "" || len(bytes.TrimSpace(c.Arguments)) == 0 {
		return json.RawMessage("{}")
	}
	return c.Arguments
}

// toolParam converts a tool description to a custom tool definition. The
// input schema is sent as the JSON the tool declared, keeping its key order.
func toolParam(info tool.Info) (sdk.ToolUnionParam, error) {
	schema, err := wire.Schema(info)
	if err != nil {
		return sdk.ToolUnionParam{}, err
	}
	t := sdk.ToolParam{
		Name:        info.Name,
		InputSchema: param.Override[sdk.ToolInputSchemaParam](json.RawMessage(schema)),
	}
	if info.Description != "" {
		t.Description = param.NewOpt(info.Description)
	}
	return sdk.ToolUnionParam{OfTool: &t}, nil
}

// response converts an API message to a model response.
func response(msg *sdk.Message) model.Response {
	out := chat.Message{Role: chat.Assistant}
	var text strings.Builder
	for _, block := range msg.Content {
		switch block.Type {
		case "text":
			text.WriteString(block.Text)
		case "tool_use":
			out.ToolCalls = append(out.ToolCalls, tool.NewCall(block.ID, block.Name, string(block.Input)))
		}
	}
	out.Content = text.String()
	u := msg.Usage
	return model.Response{
		Message: out,
		Usage: model.Usage{
			// Cached prompt tokens are counted apart from input_tokens;
			// all of them were read by the model.
			InputTokens:  int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens: int(u.OutputTokens),
		},
	}
}
