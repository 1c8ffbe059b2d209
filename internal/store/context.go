package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/request"
)

// RequestContext is what a person needs beside a request to decide it
// (request.RequestContext).
type RequestContext = request.RequestContext

// Turn is one message of a conversation, cut for display (request.Turn).
type Turn = request.Turn

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
