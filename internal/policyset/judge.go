package policyset

import (
	"context"
	"fmt"

	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Judge is what deciding with a policy of handlers H needs to know of one
// kind of handler: how to ask one about a request Q, how to read its answer
// R, and how to record it as a Rec. Approval and review each declare theirs
// once; their decision sets, their order of severity and their fallback
// when no handler decides stay theirs (SPEC A2, A4, R2, R3).
type Judge[H, Q, R, Rec any] struct {
	// What names the handlers in errors: "approver" or "reviewer".
	What string
	// Ask asks h about req.
	Ask func(ctx context.Context, h H, req Q) (R, error)
	// Check returns an error for an answer that is not valid; it is
	// wrapped with the handler's name.
	Check func(R) error
	// Escalates reports whether an answer leaves the decision to the next
	// handler of its chain.
	Escalates func(R) bool
	// Worse reports whether chain verdict a ranks above b (SPEC P7).
	Worse func(a, b R) bool
	// Final reports whether an answer ends every other chain.
	Final func(R) bool
	// Record makes the record of an answer given by the rule named name
	// in chain.
	Record func(name, chain string, res R) Rec
	// Cancellable, when true, makes an answer given after the context was
	// cancelled the context's error instead (SPEC R9).
	Cancellable bool
}

// Decide asks p's handlers about req, whose call (rendered in order) their
// patterns match, through Evaluate: each handler's panic or error becomes
// an error wrapped with its name (Guard), as does an answer Check refuses;
// every valid answer, escalations included, is passed to record, which may
// be nil. The verdict is undecided when every handler asked escalated or
// none matched; what follows is the caller's.
func (j *Judge[H, Q, R, Rec]) Decide(ctx context.Context, p *Policy[H], call *tool.Call, order tool.Order, req Q, record func(Rec)) (Verdict[R], error) {
	ask := func(ctx context.Context, r *policy.Rule[H]) (R, bool, error) {
		res, err := j.askOne(ctx, r, req)
		if err != nil {
			return res, false, err
		}
		if err := j.Check(res); err != nil {
			return res, false, fmt.Errorf("%s %s: %w", j.What, r.Name, err)
		}
		if j.Cancellable && ctx.Err() != nil {
			return res, false, ctx.Err()
		}
		if record != nil {
			record(j.Record(r.Name, r.Chain, res))
		}
		return res, !j.Escalates(res), nil
	}
	return Evaluate(ctx, p.Set(), call, order, ask, j.Worse, j.Final)
}

// askOne asks one rule's handler, its error wrapped with its name and a
// panic turned into an error (Guard).
func (j *Judge[H, Q, R, Rec]) askOne(ctx context.Context, r *policy.Rule[H], req Q) (res R, err error) {
	defer Guard(j.What, r.Name, &err)
	return j.Ask(ctx, r.Handler, req)
}
