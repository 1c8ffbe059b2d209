// Package cutreport carries, in the context of one tool call, what the tool
// says it cut of the call's output at its capture limit, for the loop that
// runs the call to record as the result's truncation (SPEC L4).
package cutreport

import (
	"context"
	"sync"
)

// cutKey is the context key of a Report.
type cutKey struct{}

// Report collects what a tool says it cut of a call's output (Say), for
// whoever runs the call to record as the result's truncation.
type Report struct {
	mu  sync.Mutex
	cut *[2]int
}

// With returns ctx carrying a new Report for one call.
func With(ctx context.Context) (context.Context, *Report) {
	r := &Report{}
	return context.WithValue(ctx, cutKey{}, r), r
}

// Say says that the tool running in ctx cut its output at its capture
// limit: it produced total bytes and kept kept. It does nothing when no one
// asked (no Report in ctx).
func Say(ctx context.Context, total, kept int) {
	r, _ := ctx.Value(cutKey{}).(*Report)
	if r == nil || total <= kept {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut == nil || total > r.cut[0] {
		r.cut = &[2]int{total, kept}
	}
}

// Cut returns what the tool reported cutting, [bytes produced, bytes
// kept]; nil when it cut nothing.
func (r *Report) Cut() *[2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut == nil {
		return nil
	}
	c := *r.cut
	return &c
}
