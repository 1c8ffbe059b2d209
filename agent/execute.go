package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// ExecuteTools runs the tool calls of the last message of msgs, an
// assistant message, under the approval and review policies in force, or p
// where it sets them (SPEC L1–L4). Calls to parallel tools run concurrently;
// other calls are barriers. It returns one tool message per call that
// produced a result, in the calls' order. A *LimitError means the run was
// terminated (or a sub-agent hit a limit); any other error ends the run.
func (r *Run) ExecuteTools(ctx context.Context, msgs []chat.Message, tools []tool.Tool, p Policies) ([]chat.Message, error) {
	return r.execute(ctx, r.current(ctx).with(p), msgs, tools)
}

// RunError marks an error raised inside a tool that must end the run rather
// than be returned to the model: an approver or reviewer failure in a
// sub-agent, a tool panic.
type RunError struct{ Err error }

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

type callResult struct {
	msg  *chat.Message
	err  error
	done bool
}

func (r *Run) execute(ctx context.Context, sc scope, msgs []chat.Message, tools []tool.Tool) ([]chat.Message, error) {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != chat.Assistant {
		return nil, errors.New("ExecuteTools: the last message is not an assistant message")
	}
	last := msgs[len(msgs)-1]
	byName := make(map[string]tool.Tool, len(tools))
	for _, t := range tools {
		byName[t.Info().Name] = t
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	calls := last.ToolCalls
	results := make([]callResult, len(calls))
	var stop error // the first limit or run error
	var mu sync.Mutex
	finish := func(i int, msg *chat.Message, err error) {
		mu.Lock()
		defer mu.Unlock()
		results[i] = callResult{msg: msg, err: err, done: true}
		if err != nil && stop == nil {
			stop = err
			cancel(err) // cancels running siblings (SPEC L2)
		}
	}
	for i := 0; i < len(calls); {
		// A group is one barrier call or a run of consecutive parallel calls.
		j := i + 1
		if parallel(byName, calls[i]) {
			for j < len(calls) && parallel(byName, calls[j]) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				msg, err := r.executeOne(ctx, sc, msgs, byName, calls[k])
				finish(k, msg, err)
			}()
		}
		wg.Wait()
		if stop != nil {
			break // later calls never run
		}
		i = j
	}
	out := make([]chat.Message, 0, len(calls))
	for _, res := range results {
		if res.msg != nil {
			out = append(out, *res.msg)
		}
	}
	return out, stop
}

func parallel(byName map[string]tool.Tool, c tool.Call) bool {
	t, ok := byName[c.Function]
	return ok && c.ParseError == "" && t.Info().Parallel
}

// executeOne takes one call through approval, execution and review. It
// returns the message for the model (nil when the call produced no result)
// and an error that stops the run.
func (r *Run) executeOne(ctx context.Context, sc scope, msgs []chat.Message, byName map[string]tool.Tool, call tool.Call) (*chat.Message, error) {
	last := msgs[len(msgs)-1]
	t, ok := byName[call.Function]
	var parseErr *tool.Error
	switch {
	case !ok:
		parseErr = tool.Errorf(tool.ErrParsing, "unknown tool %q", call.Function)
	case call.ParseError != "":
		parseErr = tool.Errorf(tool.ErrParsing, "%s", call.ParseError)
	default:
		parseErr = checkSchema(t.Info(), call)
	}
	if parseErr != nil { // SPEC A6, R4: no approval, no review
		return r.recordTool(sc, call, nil, tool.Result{Error: parseErr}, nil), nil
	}

	// Approval (SPEC §2).
	executed := call
	var modified *tool.Call
	if sc.approval.Len() > 0 {
		view := tool.ViewOf(t, call)
		req := &approval.Request{Message: last.Content, Call: call, View: view, History: msgs}
		out, err := sc.approval.Decide(ctx, req, func(rec approval.Record) {
			sc.rec.Emit(event.Approval{
				CallID: call.ID, Call: call, Approver: rec.Approver,
				Decision: string(rec.Approval.Decision), Modified: rec.Approval.Modified,
				Explanation: rec.Approval.Explanation, Chain: rec.Chain,
			})
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx) // stopped for another reason
			}
			return nil, &RunError{Err: err}
		}
		switch out.Decision {
		case approval.Reject:
			res := tool.Result{Error: &tool.Error{Type: tool.ErrApproval, Message: explain(out.Explanation, "rejected by "+out.Approver)}}
			return r.recordTool(sc, call, nil, res, nil), nil
		case approval.Terminate:
			return nil, &LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("approver %s terminated the run at call %s: %s", out.Approver, call.ID, out.Explanation)}
		case approval.Modify:
			m := *out.Modified
			m.ID = call.ID
			if m.Function == "" {
				m.Function = call.Function
			}
			if _, ok := byName[m.Function]; !ok || m.ParseError != "" || m.Arguments == nil || tool.CheckNames(m.Arguments) != nil {
				return nil, &RunError{Err: fmt.Errorf("approver %s modified call %s into an invalid call %s", out.Approver, call.ID, m.Text())}
			}
			executed, modified = m, &m
			t = byName[m.Function]
		}
	}

	// Execution (SPEC L2–L4).
	bd := &boundaryDecider{run: r, sc: sc, msgs: msgs, call: executed}
	output, runErr := r.runTool(boundary.WithDecider(ctx, bd), sc, msgs, t, executed)
	if err := bd.stop(); err != nil {
		res := tool.Result{Content: output}
		if runErr != nil {
			res = tool.Result{Error: tool.AsError(runErr)}
		}
		return r.recordTool(sc, call, modified, res, nil), err
	}
	var fatal *RunError
	var limit *LimitError
	if errors.As(runErr, &fatal) || errors.As(runErr, &limit) {
		te := tool.AsError(runErr)
		if limit != nil {
			te = &tool.Error{Type: tool.ErrLimit, Message: limit.Error()}
		}
		return r.recordTool(sc, call, modified, tool.Result{Error: te}, nil), runErr
	}
	res := tool.Result{Content: output}
	if runErr != nil {
		res = tool.Result{Error: tool.AsError(runErr)}
		if ctx.Err() != nil && context.Cause(ctx) != nil {
			res.Error = &tool.Error{Type: tool.ErrCancelled, Message: "cancelled: " + context.Cause(ctx).Error()}
		}
	}
	full := res.Content
	var truncated *[2]int
	if limit := r.maxOutput(); limit > 0 {
		if len(res.Content) > limit {
			res.Content = Truncate(res.Content, limit)
			truncated = &[2]int{len(full), limit}
		}
		if res.Error != nil && len(res.Error.Message) > limit {
			full = res.Error.Message
			res.Error = &tool.Error{Type: res.Error.Type, Message: Truncate(full, limit)}
			truncated = &[2]int{len(full), limit}
		}
	}
	msg := r.recordTool(sc, call, modified, res, truncated)
	if ctx.Err() != nil {
		return msg, nil // a sibling stopped the run: no review (SPEC R9)
	}

	// Review (SPEC §3).
	if sc.review.Len() == 0 {
		return msg, nil
	}
	if res.Error != nil && truncated == nil {
		full = res.Error.Message
	}
	req := &review.Request{
		Message: last.Content, Call: executed, Result: res, Output: full,
		View: tool.ViewOf(t, executed), History: msgs,
	}
	out, err := sc.review.Decide(ctx, req, func(rec review.Record) {
		sc.rec.Emit(event.Review{
			CallID: call.ID, Function: executed.Function, Reviewer: rec.Reviewer,
			Decision: string(rec.Review.Decision), Explanation: rec.Review.Explanation, Chain: rec.Chain,
		})
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return msg, nil // the run stopped for another reason: no decision
	case errors.Is(err, context.Canceled):
		sc.rec.Emit(event.Info{Message: fmt.Sprintf("the review of call %s (%s) was cancelled before it decided", call.ID, executed.Function)})
		return msg, &LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("the review of call %s was cancelled", call.ID)}
	default:
		return msg, &RunError{Err: err}
	}
	if out.Decision == review.Terminate {
		return msg, &LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("reviewer %s terminated the run after call %s: %s", out.Reviewer, call.ID, out.Explanation)}
	}
	return msg, nil
}

// runTool runs t, recovering a panic into a run error. The tool's context
// carries the frame that hand-offs read.
func (r *Run) runTool(ctx context.Context, sc scope, msgs []chat.Message, t tool.Tool, call tool.Call) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &RunError{Err: fmt.Errorf("tool %s panicked: %v\n%s", call.Function, p, debug.Stack())}
		}
	}()
	ctx = context.WithValue(ctx, frameKey{}, &frame{run: r, scope: sc, history: msgs, call: call})
	return t.Run(ctx, call.Arguments)
}

// recordTool writes the ToolEvent of a call and returns the tool message.
func (r *Run) recordTool(sc scope, call tool.Call, executed *tool.Call, res tool.Result, truncated *[2]int) *chat.Message {
	args := call.Arguments
	if call.ParseError != "" {
		args, _ = json.Marshal(call.ArgumentsRaw)
	}
	sc.rec.Emit(event.Tool{
		CallID: call.ID, Function: call.Function, Arguments: args, Executed: executed,
		Result: res.Text(), Truncated: truncated, Error: res.Error, Failed: res.Error != nil,
	})
	return &chat.Message{Role: chat.Tool, Content: res.Text(), ToolCallID: call.ID, Function: call.Function, Error: res.Error}
}

func explain(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// checkSchema reports a parsing error when the call lacks an argument the
// tool's schema requires, or names one only by another case (SPEC A8).
func checkSchema(info tool.Info, call tool.Call) *tool.Error {
	if len(info.Parameters) == 0 {
		return nil
	}
	if e := tool.CheckSchemaNames(call.Function, info.Parameters, call.Arguments); e != nil {
		return e
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if json.Unmarshal(info.Parameters, &schema) != nil {
		return nil
	}
	for _, k := range schema.Required {
		if _, ok := call.Argument(k); !ok {
			return tool.Errorf(tool.ErrParsing, "%s: missing required argument %q", call.Function, k)
		}
	}
	return nil
}
