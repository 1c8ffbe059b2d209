// Package wire holds what the model providers send alike, whatever their
// API: the options of their SDK's client, the text a model reads for a
// tool's answer, and the parameter schema of a tool.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/tool"
)

// CheckOpen checks what provider needs before it opens the model
// modelName, before any request: a name, and an API key in opts or, when
// there is none, one hasKey finds of the provider's own (env names its
// variable); a missing key is a *model.MissingConfigError.
func CheckOpen(provider, modelName string, opts model.Options, env string, hasKey func() bool) error {
	if modelName == "" {
		return errors.New(provider + ": empty model name")
	}
	if opts.APIKey == "" && !hasKey() {
		return &model.MissingConfigError{Provider: provider, What: "API key", Env: env, Flag: "--api-key"}
	}
	return nil
}

// ClientOptions returns the request options of a provider SDK's client for
// opts, made by that SDK's constructors: the base URL and the API key when
// given, and the retries when set (not negative).
func ClientOptions[O any](opts model.Options, baseURL, apiKey func(string) O, maxRetries func(int) O) []O {
	var out []O
	if opts.BaseURL != "" {
		out = append(out, baseURL(opts.BaseURL))
	}
	if opts.APIKey != "" {
		out = append(out, apiKey(opts.APIKey))
	}
	if opts.MaxRetries != nil && *opts.MaxRetries >= 0 {
		out = append(out, maxRetries(*opts.MaxRetries))
	}
	return out
}

// emptySchema is the parameter schema sent for tools that declare none.
const emptySchema = `{"type":"object","properties":{}}`

// ToolText returns what the model reads for a tool message: its content,
// or its error's text when the content is empty.
func ToolText(msg chat.Message) string {
	if msg.Content == "" && msg.Error != nil {
		return msg.Error.Error()
	}
	return msg.Content
}

// Tools converts the tools of a request to a provider's tool parameters
// with toolParam, in order; it stops at the first error.
func Tools[T any](infos []tool.Info, toolParam func(tool.Info) (T, error)) ([]T, error) {
	var out []T
	for _, info := range infos {
		t, err := toolParam(info)
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Schema returns the parameter schema of the tool info as the JSON the tool
// declared (keeping its key order), an empty object schema when it
// declares none, and an error when it is not a JSON object.
func Schema(info tool.Info) (json.RawMessage, error) {
	schema := bytes.TrimSpace(info.Parameters)
	if len(schema) == 0 || bytes.Equal(schema, []byte("null")) {
		schema = []byte(emptySchema)
	}
	if !json.Valid(schema) || schema[0] != '{' {
		return nil, fmt.Errorf("tool %s: parameters are not a JSON object", info.Name)
	}
	return json.RawMessage(schema), nil
}
