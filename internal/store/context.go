package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// RequestContext is what a person needs beside a request to decide it
// (issue 21 item 4), kept apart from the model's own words so that a
// surface can label each part: warden's reason and the risk it saw, the
// model's justification, who asked from where, and the last turns of the
// conversation that led to the call.
type RequestContext struct {
	// Host is the machine the asking run runs on.
	Host string `json:"host,omitempty"`
	// Sandbox is the sandbox mode in force where the call runs.
	Sandbox string `json:"sandbox,omitempty"`
	// Reason is warden's reason for asking: which rule, which blocked
	// action, what the first pass found.
	Reason string `json:"reason,omitempty"`
	// Risk is the risk level warden (the first pass) gave the action.
	Risk string `json:"risk,omitempty"`
	// Justification is the model's reason for the action, when it gave
	// one: the model's words, never warden's.
	Justification string `json:"justification,omitempty"`
	// Effects is what a dry run of the request's command observed (SPEC
	// G17), summarised by warden; the paths and names in it are the
	// command's own.
	Effects string `json:"effects,omitempty"`
	// Message is the model's own message that made the call (the
	// request's message may also carry warden's description of it).
	Message string `json:"message,omitempty"`
	// Turns are the last turns of the conversation, oldest first.
	Turns []Turn `json:"turns,omitempty"`
}

// Turn is one message of a conversation, cut for display.
type Turn struct {
	// Role is user, assistant or tool.
	Role string `json:"role"`
	Text string `json:"text"`
}

// maxContextBytes bounds a request's stored context: beyond it the turns
// are dropped, then the context.
const maxContextBytes = 64 << 10

// contextJSON encodes c for storing; "" when there is nothing to store.
func contextJSON(c *RequestContext) (string, error) {
	if c == nil {
		return "", nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	if len(b) > maxContextBytes {
		cut := *c
		cut.Turns = nil
		if b, err = json.Marshal(cut); err != nil {
			return "", err
		}
		if len(b) > maxContextBytes {
			return "", fmt.Errorf("request context of %d bytes is over %d", len(b), maxContextBytes)
		}
	}
	if string(b) == "{}" {
		return "", nil
	}
	return string(b), nil
}

// RequestContexts returns the stored contexts of the requests ids, by id;
// a request without one is absent.
func (s *Store) RequestContexts(ctx context.Context, ids []string) (map[string]RequestContext, error) {
	out := map[string]RequestContext{}
	for start := 0; start < len(ids); start += 200 {
		part := ids[start:min(start+200, len(ids))]
		in := strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.db.QueryContext(ctx, s.q("SELECT request_id, context FROM request_context WHERE request_id IN ("+in+")"), args...)
		if err != nil {
			return nil, fmt.Errorf("store: request contexts: %w", err)
		}
		for rows.Next() {
			var id, text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: request contexts: %w", err)
			}
			var c RequestContext
			if json.Unmarshal([]byte(text), &c) == nil {
				out[id] = c
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: request contexts: %w", err)
		}
	}
	return out, nil
}
