package tool

import (
	"context"
	"sync"
)

// cutKey is the context key of a CutReport.
type cutKey struct{}

// CutReport collects what a tool says it cut of a call's output (ReportCut),
// for whoever runs the call to record as the result's truncation.
type CutReport struct {
	mu  sync.Mutex
	cut *[2]int
}

// WithCutReport returns ctx carrying a new CutReport for one call.
func WithCutReport(ctx context.Context) (context.Context, *CutReport) {
	r := &CutReport{}
	return context.WithValue(ctx, cutKey{}, r), r
}

// ReportCut says that the tool running in ctx cut its output at its
// capture limit: it produced total bytes and kept kept. It does nothing
// when no one asked (no CutReport in ctx).
func ReportCut(ctx context.Context, total, kept int) {
	r, _ := ctx.Value(cutKey{}).(*CutReport)
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
func (r *CutReport) Cut() *[2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut == nil {
		return nil
	}
	c := *r.cut
	return &c
}
