package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
)

// Step is one action of an item, as a reviewer sees it.
type Step struct {
	// Item is the item the action belongs to.
	Item *Item
	// Index is the action's position in a trajectory (0 otherwise).
	Index int
	// Action is the action to judge.
	Action action.Action
	// Request is the user's request, when there is one.
	Request string
	// Transcript holds the turns before the action: the item's transcript
	// and, in a trajectory, the earlier actions as assistant turns.
	Transcript []vocab.Turn
	// Line, when set, is the command line of a shell action as the agent's
	// bash call gave it: the boundary request carries it, as the bash
	// tool's does in a run (boundary.Request.Command), and so the first
	// pass dry-runs it when it passes it on (SPEC G17). The datasets'
	// items have none: their requests stay as they were.
	Line string
}

// Outcome is a reviewer's answer about one step.
type Outcome struct {
	// Decision is vocab.Allow, vocab.Deny or vocab.Escalate (passed
	// on without deciding: to a person, or to a reviewer not measured).
	Decision vocab.Decision
	// By names the stage that decided: "rules" for the first pass (the
	// source value of its auto_review events), "model" for the model
	// reviewer, or an approver's name.
	By string
	// Reason says why.
	Reason string
	// Failed reports that the reviewer could not decide (a model failure
	// counted as Deny, as warden fails closed).
	Failed bool
	// Latency is the time the decision took; Run measures it when zero.
	Latency time.Duration
	// InputTokens and OutputTokens count the model tokens used.
	InputTokens, OutputTokens int
}

// A Reviewer decides steps. An error aborts the run; a reviewer that
// fails closed should rather return Deny with Failed set.
type Reviewer interface {
	Review(ctx context.Context, s Step) (Outcome, error)
}

// ReviewerFunc adapts a function to the Reviewer interface.
type ReviewerFunc func(ctx context.Context, s Step) (Outcome, error)

// Review calls f.
func (f ReviewerFunc) Review(ctx context.Context, s Step) (Outcome, error) { return f(ctx, s) }

// Result is the outcome of one item.
type Result struct {
	// Item is the item judged.
	Item *Item
	// Decision is Deny when any action was denied, else Escalate when any
	// was escalated, else Allow.
	Decision vocab.Decision
	// Steps are the outcomes of the item's actions, in order, up to the
	// first denial (text steps of trajectories are not reviewed and have
	// none).
	Steps []Outcome
}

// Steps returns the steps of an item: the action itself, or each action of
// a trajectory with the transcript so far. Text steps of a trajectory are
// not actions: they join the transcript as assistant turns.
func Steps(it *Item) []Step {
	if it.Parsed.Kind != action.Sequence {
		return []Step{{Item: it, Action: it.Parsed, Request: it.Request, Transcript: it.Transcript}}
	}
	var out []Step
	turns := append([]vocab.Turn(nil), it.Transcript...)
	for i, a := range it.Parsed.Actions {
		if a.Kind == action.Text {
			turns = append(turns, vocab.Turn{Role: "assistant", Content: a.Text})
			continue
		}
		out = append(out, Step{Item: it, Index: i, Action: a, Request: it.Request,
			Transcript: append([]vocab.Turn(nil), turns...)})
		turns = append(turns, vocab.Turn{Role: "assistant", Content: Describe(a)})
	}
	return out
}

// Describe renders an action as an assistant turn of a transcript.
func Describe(a action.Action) string {
	switch a.Kind {
	case action.Shell:
		if len(a.Command) >= 3 && strings.HasSuffix(a.Command[0], "sh") && strings.HasPrefix(a.Command[1], "-") {
			return "Running: " + a.Command[len(a.Command)-1]
		}
		return "Running: " + strings.Join(a.Command, " ")
	case action.MCP:
		name := a.ToolName
		if a.Server != "" {
			name = a.Server + "/" + name
		}
		args := string(a.Arguments)
		if args == "" {
			args = "{}"
		}
		return "Calling " + name + " " + args
	case action.Text:
		return a.Text
	}
	b, _ := json.Marshal(a)
	return "Action: " + string(b)
}

// Options configure Run.
type Options struct {
	// Concurrency is how many items are reviewed at once (default 1).
	Concurrency int
	// Progress, when set, is called after each item (from any goroutine,
	// never concurrently).
	Progress func(done, total int)
}

// Run reviews every item and returns the results in the items' order. An
// error of the reviewer (or the context's end) stops the run.
func Run(ctx context.Context, r Reviewer, items []Item, opts Options) ([]Result, error) {
	results := make([]Result, len(items))
	n := max(opts.Concurrency, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res, err := reviewItem(ctx, r, &items[i])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				results[i] = res
				done++
				if opts.Progress != nil && err == nil {
					opts.Progress(done, len(items))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range items {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return results, nil
}

// reviewItem reviews the steps of one item.
func reviewItem(ctx context.Context, r Reviewer, it *Item) (Result, error) {
	res := Result{Item: it, Decision: vocab.Allow}
	for _, s := range Steps(it) {
		start := time.Now()
		out, err := r.Review(ctx, s)
		if err != nil {
			return res, fmt.Errorf("%s:%d: %s: %w", it.File, it.Line, it.ID, err)
		}
		if out.Latency == 0 {
			out.Latency = time.Since(start)
		}
		res.Steps = append(res.Steps, out)
		switch out.Decision {
		case vocab.Deny:
			// The action would not have run: the item is denied, and
			// the later actions are not reviewed.
			res.Decision = vocab.Deny
			return res, nil
		case vocab.Escalate:
			if res.Decision != vocab.Deny {
				res.Decision = vocab.Escalate
			}
		case vocab.Allow:
		default:
			return res, fmt.Errorf("%s:%d: %s: invalid decision %q", it.File, it.Line, it.ID, out.Decision)
		}
	}
	return res, nil
}
