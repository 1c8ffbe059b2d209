package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/tool"
)

// handoff returns the tool transfer_to_<name> that hands the conversation to
// sub-agent a (SPEC L5, R6). The sub-agent sees the conversation so far
// (without the parent's system prompt and the hand-off message itself) and
// inherits the policies in force unless it sets its own (SPEC P5). Its own
// calls are approved and reviewed as they run; the hand-off call itself is
// reviewed when the sub-agent returns, with the sub-agent's answer as its
// result.
func handoff(a *Agent) tool.Tool {
	desc := a.Description
	if desc == "" {
		desc = "Hand the task to the " + a.name() + " agent."
	}
	return tool.Func{
		Spec: tool.Info{
			Name:        eventkind.HandoffPrefix + a.name(),
			Description: desc,
			Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
		},
		Fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
			f, ok := ctx.Value(frameKey{}).(*frame)
			if !ok {
				return "", errors.New("hand-off outside a run")
			}
			var msgs []chat.Message
			for _, m := range f.history[:max(len(f.history)-1, 0)] {
				if m.Role != chat.System {
					msgs = append(msgs, m)
				}
			}
			out, err := f.run.React(ctx, a, msgs)
			if err != nil {
				var lim *LimitError
				if errors.As(err, &lim) || errors.Is(err, context.Canceled) {
					return "", err
				}
				return "", &runError{Err: fmt.Errorf("agent %s: %w", a.name(), err)}
			}
			answer := chat.Text(out[len(msgs):], chat.Assistant)
			if answer == "" {
				answer = fmt.Sprintf("agent %s finished without an answer", a.name())
			}
			return answer, nil
		},
	}
}
