package human

import (
	"context"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/review"
)

// A Surface asks a person somewhere other than this process's console —
// the web panel, the API, another process sharing the store (SPEC H1, H4)
// — for the "human" approvers and reviewers of policies. Package
// internal/queue provides the one warden runs with (queue.WithQueue), so
// that this package, the console, links no database.
//
// Approve and Review ask about req, offering choices (nil: the surface's
// defaults), closing the request at timeout (0: none). When here is not
// nil a person at this process's terminal is asked too: here reports
// their decision, or false when they made none, and whichever surface
// decides first decides; here's context is cancelled, with the cause,
// when another surface decided first.
type Surface interface {
	Approve(ctx context.Context, req *approval.Request, choices []approval.Decision, timeout time.Duration, here Here) (approval.Approval, error)
	Review(ctx context.Context, req *review.Request, choices []review.Decision, timeout time.Duration, here Here) (review.Review, error)
}

// Here asks a person at this process's console while a request waits on
// a Surface; it returns their decision, or false when they made none (the
// input ended, the prompt timed out or was cancelled).
type Here func(ctx context.Context) (decision string, ok bool)

type surfaceKey struct{}

// WithSurface returns a context under which the "human" approvers and
// reviewers of policies ask on s instead of at the console alone.
func WithSurface(ctx context.Context, s Surface) context.Context {
	return context.WithValue(ctx, surfaceKey{}, s)
}

// surfaceOf returns the Surface of ctx, if there is one.
func surfaceOf(ctx context.Context) (Surface, bool) {
	s, ok := ctx.Value(surfaceKey{}).(Surface)
	return s, ok && s != nil
}

// DecidedElsewhere is the cause a Surface cancels Here's context with when
// a request was closed on another surface first: the console tells the
// person so, in Outcome's words, and stops asking.
type DecidedElsewhere struct {
	// Outcome says how the request was closed ("decided by panel: approve").
	Outcome string
}

// Error returns the outcome.
func (e *DecidedElsewhere) Error() string { return e.Outcome }
