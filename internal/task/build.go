package task

import (
	"fmt"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// ApprovalPolicy compiles an approval policy; nil stays nil (not set).
func (p *Policy) ApprovalPolicy() (*approval.Policy, error) {
	if p == nil {
		return nil, nil
	}
	return approval.Compile(p.Entries)
}

// ReviewPolicy compiles a review policy; nil stays nil (not set).
func (p *Policy) ReviewPolicy() (*review.Policy, error) {
	if p == nil {
		return nil, nil
	}
	return review.Compile(p.Entries)
}

// Agent builds the task's main agent, with its tools made for env and a
// hand-off to each sub-agent. The task-level policies are not set on the
// agent: they are the run's unless the run replaces them (SPEC P4).
func (t *Task) Agent(env toolbox.Env) (*agent.Agent, error) {
	main := &agent.Agent{Name: eventkind.MainAgent, System: t.System}
	var err error
	if main.Tools, err = buildTools(t.Tools, env); err != nil {
		return nil, err
	}
	for _, sa := range t.Agents {
		a := &agent.Agent{Name: sa.Name, Description: sa.Description, System: sa.System}
		if a.Tools, err = buildTools(sa.Tools, env); err != nil {
			return nil, fmt.Errorf("agent %s: %w", sa.Name, err)
		}
		if a.Approval, err = sa.Approval.ApprovalPolicy(); err != nil {
			return nil, fmt.Errorf("agent %s: %w", sa.Name, err)
		}
		if a.Review, err = sa.Review.ReviewPolicy(); err != nil {
			return nil, fmt.Errorf("agent %s: %w", sa.Name, err)
		}
		main.Handoffs = append(main.Handoffs, a)
	}
	return main, nil
}

func buildTools(names []string, env toolbox.Env) ([]tool.Tool, error) {
	var out []tool.Tool
	for _, n := range names {
		if len(n) > len(eventkind.HandoffPrefix) && n[:len(eventkind.HandoffPrefix)] == eventkind.HandoffPrefix {
			continue // hand-offs are added for every declared agent
		}
		t, err := toolbox.New(n, env)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
