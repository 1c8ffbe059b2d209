package autoreview

import (
	"context"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/override"
)

// MetadataKey is the key of the Result in the metadata of the approvals
// Reviewer.Approve returns.
const MetadataKey = "auto_review"

// WithOverride returns a context that carries a person's override for the
// review made with it (override.With).
func WithOverride(ctx context.Context, o *Override) context.Context { return override.With(ctx, o) }

// OverrideFrom returns the override WithOverride put in ctx, or nil.
func OverrideFrom(ctx context.Context) *Override { return override.From(ctx) }

// Approve makes the Reviewer an approval.Approver, for boundary requests
// (SPEC G3): it reviews the action of req.Boundary (or, without one, of
// req.Call) against req.History, with the override of ctx if any. An
// approved review approves; anything else rejects with the Result's
// Message as the explanation — a denial, a timeout (whose message says it is
// not a denial) and a failure alike, since none of them lets the action run.
// The Result is in the metadata under MetadataKey, and the transcript's
// record of the review is the approval's AutoReview. Approve never returns an
// error: a reviewer failure is a rejection (fail closed), not the end of the
// run — or, with PassOnUndecided, a timeout or failure escalates to the
// policy's next approver (a policy in which nobody decides rejects).
func (r *Reviewer) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	actionJSON, err := action.JSON(req.Tool, req.Call, req.Boundary)
	var res Result
	if err != nil {
		res = Result{Status: action.StatusFailed, Message: failedMessage(err), Error: err.Error()}
	} else {
		res, _ = r.review(ctx, req.History, actionJSON, OverrideFrom(ctx), effectsOf(req))
	}
	ar := r.record(res, actionJSON)
	if obs := effectsOf(req); obs != nil {
		ar.Effects, ar.EffectsUnavailable = obs.JSON(), obs.Unavailable
	}
	a := approval.Approval{Decision: approval.Reject, Explanation: res.Message,
		Metadata: map[string]any{MetadataKey: res}, AutoReview: &ar}
	switch {
	case res.Status == action.StatusApproved:
		a.Decision = approval.Approve
	case r.PassOnUndecided && (res.Status == action.StatusTimedOut || res.Status == action.StatusFailed):
		a.Decision = approval.Escalate
		a.Explanation = "auto-review reached no decision; the next approver decides: " + res.Message
	}
	return a, nil
}

// effectsOf returns what a dry run of req's boundary request observed
// (the first pass attaches it, SPEC G17), or nil.
func effectsOf(req *approval.Request) *effect.Observed {
	if req.Boundary == nil {
		return nil
	}
	return req.Boundary.Effects
}

// record is the transcript's auto_review record of a review (SPEC G13).
func (r *Reviewer) record(res Result, actionJSON []byte) event.AutoReview {
	ar := event.AutoReview{
		Action: actionJSON, Status: res.Status, Rationale: res.Rationale,
		Source: event.SourceModel, Model: r.ModelName,
		InputTokens: res.InputTokens, OutputTokens: res.OutputTokens,
		LatencyMS: res.Latency.Milliseconds(), Conversation: res.Conversation,
		ReviewID: res.ReviewID, Tools: res.Tools,
	}
	if res.Override {
		ar.Source = event.SourceOverride
	}
	if res.Verdict != nil {
		ar.RiskLevel, ar.UserAuthorization = res.Verdict.RiskLevel, res.Verdict.UserAuthorization
		ar.UserAuthorizationQuote = res.Verdict.UserAuthorizationQuote
		ar.StatedUserAuthorization, ar.AuthorizationLowered = res.Verdict.StatedAuthorization, res.Verdict.AuthorizationLowered
	}
	if ar.Rationale == "" && res.Status != action.StatusApproved && res.Status != action.StatusDenied {
		ar.Rationale = res.Message
	}
	return ar
}

var _ approval.Approver = (*Reviewer)(nil)
