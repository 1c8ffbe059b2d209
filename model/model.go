// Package model defines the interface to language models and a registry of
// providers that open a model from a spec such as "openai/gpt-4o".
package model

import (
	"context"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/registry"
	"github.com/wardenhq/warden/tool"
)

// A Model generates the next assistant message of a conversation.
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}

// Func adapts a function to the Model interface.
type Func func(ctx context.Context, req Request) (Response, error)

// Generate calls f.
func (f Func) Generate(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// Request is what a model is asked.
type Request struct {
	// Messages is the conversation so far, system message first if any.
	Messages []chat.Message
	// Tools are the tools the model may call.
	Tools []tool.Info
}

// Response is a model's answer.
type Response struct {
	// Message is the assistant message. Its Role is chat.Assistant.
	Message chat.Message
	Usage   Usage
}

// Usage counts the tokens of one generation.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Total returns input plus output tokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Options configure a provider when a model is opened.
type Options struct {
	// BaseURL overrides the provider's API endpoint.
	BaseURL string
	// APIKey overrides the provider's key.
	APIKey string
	// MaxRetries, when set, bounds the retries the provider's client makes
	// on its own (0 disables them, for callers that retry themselves, such
	// as the reviewer agent).
	MaxRetries *int
}

// MissingConfigError is what a provider returns when it is opened without
// configuration it cannot work without (an API key): a configuration error,
// found before any request is made, that names where to give it. Callers
// detect it with errors.As; Open keeps it in its chain.
type MissingConfigError struct {
	// Provider is the provider's prefix ("openai").
	Provider string
	// What is what is missing, in words ("API key").
	What string
	// Env is the environment variable that gives it ("OPENAI_API_KEY").
	Env string
	// Flag is warden's command-line flag that gives it ("--api-key"), the
	// Options field the caller fills from it.
	Flag string
}

// Error says what is missing and both ways to give it.
func (e *MissingConfigError) Error() string {
	return fmt.Sprintf("%s: no %s: set %s or pass %s", e.Provider, e.What, e.Env, e.Flag)
}

// A Provider opens the model named by the part of a spec after the
// provider's prefix ("gpt-4o" in "openai/gpt-4o", a path in "scripted:PATH").
// It opens without any request; configuration it needs and lacks is a
// *MissingConfigError.
type Provider func(name string, opts Options) (Model, error)

// providers holds the providers by prefix.
var providers = registry.New[Provider]("model: provider registered twice: ")

// Register makes a provider available under prefix. It panics if the prefix
// is registered twice.
func Register(prefix string, p Provider) { providers.Register(prefix, p) }

// Open opens the model named by spec: "PROVIDER/NAME" or "PROVIDER:NAME".
func Open(spec string, opts Options) (Model, error) {
	i := strings.IndexAny(spec, "/:")
	if i <= 0 || i == len(spec)-1 {
		return nil, fmt.Errorf("model %q: want PROVIDER/NAME or scripted:PATH (providers: %s)", spec, strings.Join(providers.Names(), ", "))
	}
	p, ok := providers.Get(spec[:i])
	if !ok {
		return nil, fmt.Errorf("model %q: unknown provider %q (providers: %s)", spec, spec[:i], strings.Join(providers.Names(), ", "))
	}
	m, err := p(spec[i+1:], opts)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", spec, err)
	}
	return m, nil
}
