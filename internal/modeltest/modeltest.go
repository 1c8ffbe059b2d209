// Package modeltest is the model tests run agents on: it replays assistant
// turns written in the test and records every request, so that a test can
// check what reached the model (a secret must never).
package modeltest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/tool"
)

// Replay is a model.Model that answers with Turns in order, then with an
// empty assistant message, each with Usage. It records the requests it
// receives. Set Turns and Usage before the run starts.
type Replay struct {
	Turns []chat.Message
	Usage model.Usage

	mu       sync.Mutex
	requests []model.Request
}

// Generate records req and answers with the next turn.
func (r *Replay) Generate(_ context.Context, req model.Request) (model.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req)
	if len(r.Turns) == 0 {
		return model.Response{Message: chat.Message{Role: chat.Assistant}, Usage: r.Usage}, nil
	}
	m := r.Turns[0]
	r.Turns = r.Turns[1:]
	return model.Response{Message: m, Usage: r.Usage}, nil
}

// Requests returns a copy of the requests received so far, in order.
func (r *Replay) Requests() []model.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]model.Request(nil), r.requests...)
}

// Again sets the turns to answer next and forgets the requests received.
func (r *Replay) Again(turns ...chat.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Turns, r.requests = turns, nil
}

// Turn returns an assistant message with text and calls.
func Turn(text string, calls ...tool.Call) chat.Message {
	return chat.Message{Role: chat.Assistant, Content: text, ToolCalls: calls}
}

// Leaks returns the indexes of the requests in which secret appears
// anywhere: messages, tools or any other field, as JSON.
func Leaks(t testing.TB, reqs []model.Request, secret string) []int {
	t.Helper()
	var out []int
	for i, req := range reqs {
		if Mentions(t, req, secret) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// Mentions returns how many times secret appears in req, as JSON.
func Mentions(t testing.TB, req model.Request, secret string) int {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), secret)
}
