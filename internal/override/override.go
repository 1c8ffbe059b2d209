// Package override carries a person's override of an auto-review denial
// (SPEC G12) from the gate, which grants it, to the reviewer that decides
// the retry, in the context of the request. It sits below both, so that
// the gate links no reviewer.
package override

import (
	"bytes"
	"context"
	"encoding/json"
)

// Override is a person's approval of one retry of a denied action (SPEC
// G12). Only the person's own channel (terminal /approve, the web panel, the
// CLI) may create one; nothing the agent or a tool says can.
type Override struct {
	// DenialID identifies the denial the person overrode.
	DenialID string
	// By names the person, as their channel knows them.
	By string
	// Note is what the person wrote with their approval, if anything.
	Note string
	// Action is the JSON of the action that was denied. When set, the
	// override applies only to an action with the same JSON (whitespace
	// aside); for any other action the reviewer is told that an override
	// was presented for a different action and does not apply.
	Action []byte
}

type key struct{}

// With returns a context that carries a person's override for the review
// made with it. Only code serving the person's own channel (the terminal
// /approve command, the web panel, the CLI) may call it; the agent and its
// tools have no way to.
func With(ctx context.Context, o *Override) context.Context {
	return context.WithValue(ctx, key{}, o)
}

// From returns the override With put in ctx, or nil.
func From(ctx context.Context) *Override {
	o, _ := ctx.Value(key{}).(*Override)
	return o
}

// Applies reports whether o is an override of action: it is when o carries
// no action, or the same JSON value as action, whatever its whitespace, key
// order and escapes (a denial read back from a transcript is re-escaped).
func (o *Override) Applies(action []byte) bool {
	if o == nil {
		return false
	}
	if len(o.Action) == 0 {
		return true
	}
	return bytes.Equal(canonicalJSON(o.Action), canonicalJSON(action))
}

// canonicalJSON re-encodes a JSON text with sorted keys and one set of
// escapes; anything else is returned compacted or trimmed.
func canonicalJSON(b []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		if out, err := json.Marshal(v); err == nil {
			return out
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) == nil {
		return buf.Bytes()
	}
	return bytes.TrimSpace(b)
}
