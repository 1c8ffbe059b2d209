package human

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/review"
)

// The process-wide console. It is the one piece of process state in this
// package: a process has one terminal, so every "human" approver and
// reviewer built from a policy shares it, and their requests queue on it.
var (
	defaultOnce    sync.Once
	defaultConsole *Console
)

// Default returns the process-wide console, creating it on first use. The
// "human" approver and reviewer of the registries prompt on it, on
// os.Stderr. When the standard input is a terminal, answers are read from
// the controlling terminal (/dev/tty) with NewTerminal, which discards what
// was typed before each prompt; otherwise, as for pipes and tests, they are
// read from os.Stdin, from the first prompt on.
func Default() *Console {
	defaultOnce.Do(func() {
		if tty, ok := openTerminal(os.Stdin); ok {
			if c, err := NewTerminal(tty, os.Stderr); err == nil {
				defaultConsole = c
				return
			}
			_ = tty.Close()
		}
		defaultConsole = NewConsole(os.Stdin, os.Stderr)
	})
	return defaultConsole
}

func init() {
	approval.Register("human", approverFactory)
	review.Register("human", reviewerFactory)
}

// approverFactory builds the registered "human" approver: it asks on the
// Surface of the request's context (WithSurface; queue.WithQueue: the web
// panel and the API)
// when there is one, else on the default console. Parameters: choices (a
// list of approve, modify, reject, terminate, escalate; the console leaves
// modify out, as it cannot edit) and timeout (seconds; 0 or absent for
// none).
func approverFactory(params map[string]any) (approval.Approver, error) {
	names, timeout, err := parseParams(params)
	if err != nil {
		return nil, err
	}
	// Inspect's policies may offer modify; the console cannot edit
	// arguments, so it leaves that choice out and the file loads unchanged.
	var choices []approval.Decision
	for _, n := range names {
		if approval.Decision(n) != approval.Modify {
			choices = append(choices, approval.Decision(n))
		}
	}
	if len(names) > 0 && len(choices) == 0 {
		return nil, fmt.Errorf("choices: the console cannot offer modify alone (console choices: approve, reject, terminate, escalate)")
	}
	if _, err := approvalMenu(choices); err != nil {
		return nil, err
	}
	var all []approval.Decision // modify included: other surfaces can edit
	for _, n := range names {
		all = append(all, approval.Decision(n))
	}
	return surfaceApprover{con: Default(), console: Default().Approver(choices, timeout), choices: all, timeout: timeout}, nil
}

// surfaceApprover asks on the Surface of the context when there is one
// (WithSurface) — and at the console too when it is a person's terminal,
// whichever answers first deciding — else at the console alone.
type surfaceApprover struct {
	con     *Console
	console approval.Approver
	choices []approval.Decision
	timeout time.Duration
}

// Approve asks a person on the request's surfaces.
func (s surfaceApprover) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	return askOnSurface(ctx, s.con,
		func(ctx context.Context) (approval.Approval, error) { return s.console.Approve(ctx, req) },
		func(got approval.Approval) (string, map[string]any) { return string(got.Decision), got.Metadata },
		func(sf Surface, here Here) (approval.Approval, error) {
			return sf.Approve(ctx, req, s.choices, s.timeout, here)
		})
}

// surfaceReviewer asks on the Surface of the context when there is one
// (WithSurface) — and at the console too when it is a person's terminal —
// else at the console alone.
type surfaceReviewer struct {
	con     *Console
	console review.Reviewer
	choices []review.Decision
	timeout time.Duration
}

// Review asks a person on the request's surfaces.
func (s surfaceReviewer) Review(ctx context.Context, req *review.Request) (review.Review, error) {
	return askOnSurface(ctx, s.con,
		func(ctx context.Context) (review.Review, error) { return s.console.Review(ctx, req) },
		func(got review.Review) (string, map[string]any) { return string(got.Decision), got.Metadata },
		func(sf Surface, here Here) (review.Review, error) {
			return sf.Review(ctx, req, s.choices, s.timeout, here)
		})
}

// askOnSurface asks a person on the Surface of ctx when there is one, else
// at the console alone (atConsole). When con is a person's terminal, the
// surface also asks there (its Here), whichever answers first deciding;
// choice reads a console answer's decision and metadata.
func askOnSurface[T any](ctx context.Context, con *Console,
	atConsole func(context.Context) (T, error),
	choice func(T) (string, map[string]any),
	onSurface func(Surface, Here) (T, error),
) (T, error) {
	sf, ok := surfaceOf(ctx)
	if !ok {
		return atConsole(ctx)
	}
	var here Here
	if con != nil && con.terminal() {
		here = func(ctx context.Context) (string, bool) {
			got, err := atConsole(ctx)
			d, md := choice(got)
			return personsChoice(d, md, err)
		}
	}
	return onSurface(sf, here)
}

// personsChoice is the console's answer as a decision for another
// surface, when a person made one: not when the prompt failed, was
// dismissed (the input ended) or timed out — the other surface decides
// those.
func personsChoice(decision string, md map[string]any, err error) (string, bool) {
	if err != nil || md["dismissed"] == true || md["timed_out"] == true {
		return "", false
	}
	return decision, true
}

// reviewerFactory builds the registered "human" reviewer: on the Surface
// of the request's context when there is one, else on the default console. Parameters: choices (a list of continue, terminate, escalate) and
// timeout (seconds; 0 or absent for none).
func reviewerFactory(params map[string]any) (review.Reviewer, error) {
	names, timeout, err := parseParams(params)
	if err != nil {
		return nil, err
	}
	choices := make([]review.Decision, len(names))
	for i, n := range names {
		choices[i] = review.Decision(n)
	}
	if _, err := reviewMenu(choices); err != nil {
		return nil, err
	}
	return surfaceReviewer{con: Default(), console: Default().Reviewer(choices, timeout), choices: choices, timeout: timeout}, nil
}

// parseParams reads the parameters of a "human" policy entry.
func parseParams(params map[string]any) (choices []string, timeout time.Duration, err error) {
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := params[k]
		switch k {
		case "choices":
			choices, err = parseChoices(v)
		case "timeout":
			timeout, err = parseTimeout(v)
		default:
			err = fmt.Errorf("unknown parameter %q (parameters: choices, timeout)", k)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return choices, timeout, nil
}

// parseChoices reads the choices parameter: a non-empty list of strings.
func parseChoices(v any) ([]string, error) {
	var out []string
	switch list := v.(type) {
	case []string:
		out = append(out, list...)
	case []any:
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("parameter choices: item %d is %T, want a string", i+1, x)
			}
			out = append(out, s)
		}
	default:
		return nil, fmt.Errorf("parameter choices must be a list of strings, not %T", v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("parameter choices is empty")
	}
	for i, s := range out {
		out[i] = strings.ToLower(strings.TrimSpace(s))
	}
	return out, nil
}

// parseTimeout reads the timeout parameter: a number of seconds, 0 for none.
func parseTimeout(v any) (time.Duration, error) {
	var secs float64
	switch n := v.(type) {
	case int:
		secs = float64(n)
	case int64:
		secs = float64(n)
	case uint64:
		secs = float64(n)
	case float64:
		secs = n
	default:
		return 0, fmt.Errorf("parameter timeout must be a number of seconds, not %T", v)
	}
	if math.IsNaN(secs) || secs < 0 || secs > math.MaxInt64/float64(time.Second) {
		return 0, fmt.Errorf("parameter timeout must be a number of seconds from 0 (no timeout) up, not %v", v)
	}
	return time.Duration(secs * float64(time.Second)), nil
}
