package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/internal/cutreport"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// ExecuteTools runs the tool calls of the last message of msgs, an
// assistant message, under the approval and review policies in force, or p
// where it sets them (SPEC L1–L4). Calls to parallel tools run concurrently,
// at most Run.MaxConcurrentCalls at once; other calls are barriers; calls
// beyond Run.MaxCallsPerMessage get a parsing error and never run. It
// returns one tool message per call that produced a result, in the calls'
// order. A result that was not reviewed to continue is never returned: its
// message carries an error saying the run was stopped at the call (SPEC
// R2, R9). A *LimitError means the run was terminated (or a sub-agent hit a
// limit); any other error ends the run.
func (r *Run) ExecuteTools(ctx context.Context, msgs []chat.Message, tools []tool.Tool, p Policies) ([]chat.Message, error) {
	return r.execute(ctx, r.with(r.current(ctx), p, eventkind.FromCall), msgs, tools)
}

// runError marks an error raised inside a tool that must end the run rather
// than be returned to the model: an approver or reviewer failure in a
// sub-agent, a tool panic.
type runError struct{ Err error }

func (e *runError) Error() string { return e.Err.Error() }
func (e *runError) Unwrap() error { return e.Err }

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
	results := make([]*chat.Message, len(calls))
	var stop error // the first limit or run error
	var mu sync.Mutex
	finish := func(i int, msg *chat.Message, err error) {
		mu.Lock()
		defer mu.Unlock()
		results[i] = msg
		if err != nil && stop == nil {
			stop = err
			cancel(err) // cancels running siblings (SPEC L2)
		}
	}
	maxCalls := r.maxCalls()
	slots := make(chan struct{}, r.maxConcurrent()) // SPEC L1: calls running at once
run:
	for i := 0; i < len(calls); {
		if i >= maxCalls {
			// SPEC L1: what one message can start is capped. The calls
			// beyond never run: each gets a parsing error, as an
			// unparseable call does (SPEC A6, R4).
			for k := i; k < len(calls); k++ {
				te := tool.Errorf(tool.ErrParsing, "this call was not run: one message may make at most %d tool calls and this is call %d of %d; make fewer calls per message", maxCalls, k+1, len(calls))
				results[k] = r.recordTool(sc, calls[k], nil, tool.Result{Error: te}, nil)
			}
			break
		}
		// A group is one barrier call or a run of consecutive parallel calls.
		j := i + 1
		if parallel(byName, calls[i]) {
			for j < len(calls) && j < maxCalls && parallel(byName, calls[j]) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			slots <- struct{}{}
			if ctx.Err() != nil {
				// The run stopped while this call waited for a slot: it
				// and the later calls never start (SPEC L2).
				<-slots
				wg.Wait()
				mu.Lock()
				if stop == nil {
					stop = context.Cause(ctx)
				}
				mu.Unlock()
				break run
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
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
	for _, msg := range results {
		if msg != nil {
			out = append(out, *msg)
		}
	}
	return out, stop
}

func parallel(byName map[string]tool.Tool, c tool.Call) bool {
	t, ok := byName[c.Function]
	return ok && c.ParseError == "" && t.Info().Parallel
}

// checkCall returns the tool call names, or the parsing error the model
// receives when the call names no tool, does not parse, does not fit the
// tool's schema or fails the tool's own tool.Precheck (SPEC A6).
func checkCall(byName map[string]tool.Tool, call tool.Call) (tool.Tool, *tool.Error) {
	t, ok := byName[call.Function]
	switch {
	case !ok:
		return nil, tool.Errorf(tool.ErrParsing, "unknown tool %q", call.Function)
	case call.ParseError != "":
		return nil, tool.Errorf(tool.ErrParsing, "%s", call.ParseError)
	case !isObject(call.Arguments):
		return nil, tool.Errorf(tool.ErrParsing, "arguments of %s are not a JSON object", call.Function)
	}
	if err := argjson.CheckNames(call.Arguments); err != nil {
		// A call built by an approver, not parsed by NewCall, gets the
		// same strict reading (SPEC A8).
		return nil, tool.Errorf(tool.ErrParsing, "arguments of %s: %v", call.Function, err)
	}
	if err := checkSchema(t.Info(), call); err != nil {
		return nil, err
	}
	if pc, ok := t.(tool.Precheck); ok {
		// The tool's own check, before approval (SPEC A6).
		if err := pc.Precheck(call.Arguments); err != nil {
			var te *tool.Error
			if errors.As(err, &te) {
				return nil, te
			}
			return nil, tool.Errorf(tool.ErrParsing, "%s: %v", call.Function, err)
		}
	}
	return t, nil
}

// isObject reports whether raw is one valid UTF-8 JSON object.
func isObject(raw json.RawMessage) bool {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i < len(raw) && raw[i] == '{' && json.Valid(raw) && utf8.Valid(raw)
}

// executeOne takes one call through approval, execution and review. It
// returns the message for the model (nil when the call produced no result)
// and an error that stops the run. A result not reviewed to continue never
// reaches the model: the message then carries an error saying the run was
// stopped at the call, and a withheld event records it (SPEC R2, R9, L2).
func (r *Run) executeOne(ctx context.Context, sc scope, msgs []chat.Message, byName map[string]tool.Tool, call tool.Call) (*chat.Message, error) {
	last := msgs[len(msgs)-1]
	t, parseErr := checkCall(byName, call)
	if parseErr != nil { // SPEC A6, R4: no approval, no review
		return r.recordTool(sc, call, nil, tool.Result{Error: parseErr}, nil), nil
	}

	// Approval (SPEC §2).
	executed := call
	var modified *tool.Call
	if sc.approval.Len() > 0 {
		view := viewOf(t, call)
		req := &approval.Request{Message: last.Content, Call: call, Tool: t, View: view, Order: tool.OrderOf(t), History: msgs, Agent: sc.agent}
		out, err := sc.approval.Decide(ctx, req, func(rec approval.Record) {
			sc.rec.Emit(event.Approval{
				CallID: call.ID, Call: call, Approver: rec.Approver,
				Decision: string(rec.Approval.Decision), Modified: rec.Approval.Modified,
				Explanation: rec.Approval.Explanation, Chain: rec.Chain, DecidedBy: decidedBy(rec.Approval.Metadata),
			})
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx) // stopped for another reason
			}
			return nil, &runError{Err: err}
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
			executed, modified = m, &m
			// A modified call is checked like any other (SPEC A6): one
			// that does not fit its tool never runs.
			mt, perr := checkCall(byName, m)
			if perr != nil {
				perr = tool.Errorf(tool.ErrParsing, "the call as modified by %s is invalid: %s", out.Approver, perr.Message)
				return r.recordTool(sc, call, modified, tool.Result{Error: perr}, nil), nil
			}
			t = mt
		}
	}

	// Execution (SPEC L2–L4).
	bd := &boundaryDecider{run: r, sc: sc, msgs: msgs, call: executed, tool: t, order: tool.OrderOf(t)}
	tctx, captured := cutreport.With(boundary.WithDecider(ctx, bd))
	output, runErr := r.runTool(tctx, sc, msgs, t, executed)
	if why, err := bd.stop(); err != nil {
		res := tool.Result{Content: output}
		if runErr != nil {
			res = tool.Result{Error: tool.AsError(runErr)}
		}
		r.recordTool(sc, call, modified, res, nil)
		return r.withhold(sc, call, eventkind.WithheldBoundary, stoppedAt(why)), err
	}
	var fatal *runError
	var limit *LimitError
	if errors.As(runErr, &fatal) || errors.As(runErr, &limit) {
		te := tool.AsError(runErr)
		why := "the run ended with an error in this call"
		if limit != nil {
			te = &tool.Error{Type: tool.ErrLimit, Message: limit.Error()}
			why = fmt.Sprintf("the run hit a %s limit in this call", limit.Type)
		}
		r.recordTool(sc, call, modified, tool.Result{Error: te}, nil)
		return r.withhold(sc, call, eventkind.WithheldStopped, stoppedAt(why)), runErr
	}
	res := tool.Result{Content: output}
	if runErr != nil {
		res = tool.Result{Error: tool.AsError(runErr)}
		if ctx.Err() != nil && context.Cause(ctx) != nil {
			res.Error = &tool.Error{Type: tool.ErrCancelled, Message: "cancelled: " + context.Cause(ctx).Error()}
		}
	}
	full := res.Content
	// Cut at the tool's capture limit, the output says so: [bytes the
	// tool produced, bytes kept]; cut again to max_output, the limit.
	truncated := captured.Cut()
	errorCut := false
	if limit := r.maxOutput(); limit > 0 {
		if len(res.Content) > limit {
			res.Content = truncateText(res.Content, limit)
			truncated = &[2]int{max(len(full), produced(truncated)), limit}
		}
		if res.Error != nil && len(res.Error.Message) > limit {
			full, errorCut = res.Error.Message, true
			res.Error = &tool.Error{Type: res.Error.Type, Message: truncateText(full, limit)}
			truncated = &[2]int{max(len(full), produced(truncated)), limit}
		}
	}
	res.Truncated = truncated
	msg := r.recordTool(sc, call, modified, res, truncated)
	if sc.review.Len() == 0 {
		return msg, nil // no reviewer: the result continues (SPEC R3)
	}
	if ctx.Err() != nil {
		// The run stopped at another call: no review (SPEC R9), and so
		// the result does not reach the model.
		return r.withhold(sc, call, eventkind.WithheldNotReviewed, notReviewed()), nil
	}

	// Review (SPEC §3).
	if res.Error != nil && !errorCut {
		full = res.Error.Message
	}
	req := &review.Request{
		Message: last.Content, Call: executed, Result: res, Output: full,
		View: viewOf(t, executed), Order: tool.OrderOf(t), History: msgs, Agent: sc.agent,
	}
	out, err := sc.review.Decide(ctx, req, func(rec review.Record) {
		sc.rec.Emit(event.Review{
			CallID: call.ID, Function: executed.Function, Reviewer: rec.Reviewer,
			Decision: string(rec.Review.Decision), Explanation: rec.Review.Explanation, Chain: rec.Chain,
			DecidedBy: decidedBy(rec.Review.Metadata),
		})
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		// The run stopped for another reason: no decision (SPEC R9).
		return r.withhold(sc, call, eventkind.WithheldNotReviewed, notReviewed()), nil
	case errors.Is(err, context.Canceled):
		sc.rec.Emit(event.Info{Message: fmt.Sprintf("the review of call %s (%s) was cancelled before it decided", call.ID, executed.Function)})
		return r.withhold(sc, call, eventkind.WithheldReviewCancelled, stoppedAt("its review was cancelled before it decided")),
			&LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("the review of call %s was cancelled", call.ID)}
	default:
		return r.withhold(sc, call, eventkind.WithheldReviewFailed, stoppedAt("its reviewer failed")), &runError{Err: err}
	}
	if out.Decision == review.Terminate {
		// The finished result stays in the tool event; the model gets an
		// error without the reviewer's explanation, which may quote the
		// result (SPEC R2).
		return r.withhold(sc, call, eventkind.WithheldTerminated, stoppedAt("reviewer "+out.Reviewer+" terminated the run")),
			&LimitError{Type: event.LimitOperator, Message: fmt.Sprintf("reviewer %s terminated the run after call %s: %s", out.Reviewer, call.ID, out.Explanation)}
	}
	return msg, nil
}

// withhold records that the result of call does not reach the model and
// returns the message the model receives instead: te (SPEC R2, R9, L2).
func (r *Run) withhold(sc scope, call tool.Call, reason string, te *tool.Error) *chat.Message {
	sc.rec.Emit(event.Withheld{CallID: call.ID, Function: call.Function, Reason: reason, Result: te.Error(), Error: te})
	return &chat.Message{Role: chat.Tool, Content: te.Error(), ToolCallID: call.ID, Function: call.Function, Error: te}
}

// stoppedAt is the error a model receives for a call the run was stopped
// at, why saying by what; it never carries the result or an explanation
// that may quote it.
func stoppedAt(why string) *tool.Error {
	return tool.Errorf(tool.ErrLimit, "the run was stopped at this call (%s); its result was withheld", why)
}

// notReviewed is the error a model receives for a call whose result was
// not reviewed because the run stopped at another call.
func notReviewed() *tool.Error {
	return tool.Errorf(tool.ErrCancelled, "the run was stopped at another call before the result of this call was reviewed; its result was withheld")
}

// runTool runs t, recovering a panic into a run error. The tool's context
// carries the frame that hand-offs read.
func (r *Run) runTool(ctx context.Context, sc scope, msgs []chat.Message, t tool.Tool, call tool.Call) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &runError{Err: fmt.Errorf("tool %s panicked: %v\n%s", call.Function, p, debug.Stack())}
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

// checkSchema reports a parsing error when the call's arguments do not fit
// the tool's JSON Schema: an argument differs from a property only by case
// (SPEC A8), a required argument is missing, an argument is not among the
// properties when additionalProperties is false, or a value has a type or
// is outside an enum the schema declares. A schema that does not decode is
// not checked here; the tool checks its own arguments.
func checkSchema(info tool.Info, call tool.Call) *tool.Error {
	if len(info.Parameters) == 0 {
		return nil
	}
	if msg := argjson.CheckSchemaNames(info.Parameters, call.Arguments); msg != "" {
		return tool.Errorf(tool.ErrParsing, "arguments of %s: %s", call.Function, msg)
	}
	var schema struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	if json.Unmarshal(info.Parameters, &schema) != nil {
		return nil
	}
	for _, k := range schema.Required {
		if _, ok := call.Argument(k); !ok {
			return tool.Errorf(tool.ErrParsing, "%s: missing required argument %q", call.Function, k)
		}
	}
	closed := string(bytes.TrimSpace(schema.AdditionalProperties)) == "false"
	var bad *tool.Error
	_ = argjson.Each(call.Arguments, func(key string, value json.RawMessage) bool {
		prop, ok := schema.Properties[key]
		if !ok {
			if closed {
				bad = tool.Errorf(tool.ErrParsing, "%s: unknown argument %q", call.Function, key)
			}
			return bad == nil
		}
		if msg := checkValue(prop, value); msg != "" {
			bad = tool.Errorf(tool.ErrParsing, "%s: argument %q: %s", call.Function, strings.Clone(key), msg)
		}
		return bad == nil
	})
	return bad
}

// checkValue checks value against the type and enum of one property
// schema; it returns what is wrong, or "".
func checkValue(prop, value json.RawMessage) string {
	var ps struct {
		Type json.RawMessage   `json:"type"`
		Enum []json.RawMessage `json:"enum"`
	}
	if json.Unmarshal(prop, &ps) != nil {
		return ""
	}
	if len(ps.Type) > 0 {
		var types []string
		var one string
		if json.Unmarshal(ps.Type, &one) == nil {
			types = []string{one}
		} else if json.Unmarshal(ps.Type, &types) != nil {
			return ""
		}
		got := jsonType(value)
		ok := false
		for _, t := range types {
			if t == got || (t == "number" && got == "integer") {
				ok = true
			}
		}
		if !ok {
			return fmt.Sprintf("want %s, got %s", strings.Join(types, " or "), got)
		}
	}
	if len(ps.Enum) > 0 {
		var v any
		if json.Unmarshal(value, &v) != nil {
			return "not valid JSON"
		}
		for _, e := range ps.Enum {
			var ev any
			if json.Unmarshal(e, &ev) == nil && reflect.DeepEqual(v, ev) {
				return ""
			}
		}
		return "not one of the allowed values"
	}
	return ""
}

// jsonType returns the JSON Schema type of a JSON value: "integer" for a
// number with no fractional part.
func jsonType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
		return "integer"
	}
	return "number"
}

// viewOf returns the view of call: the tool's own when it is a
// tool.Viewer, otherwise the call's one-line text in the tool's order.
func viewOf(t tool.Tool, call tool.Call) tool.View {
	if v, ok := t.(tool.Viewer); ok {
		return v.View(call)
	}
	return tool.View{Title: call.Function, Format: "text", Content: call.TextIn(tool.OrderOf(t))}
}

// decidedBy returns who decided, as a person's surface records it in a
// decision's metadata ("decided_by"), for the transcript (SPEC S4).
func decidedBy(md map[string]any) string {
	by, _ := md["decided_by"].(string)
	return by
}

// produced is the bytes a tool produced of a truncation, 0 for none.
func produced(t *[2]int) int {
	if t == nil {
		return 0
	}
	return t[0]
}
