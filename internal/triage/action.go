package triage

import (
	"fmt"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/vocab"
)

// fromApproval describes what an approval request asks (its boundary
// request, or the call), as the called tool describes it (action.Describe),
// with its conversation as context: the user's request and the turns
// after it.
func fromApproval(req *approval.Request) (action.Action, string, []vocab.Turn, error) {
	a, err := action.Describe(req.Tool, req.Call, req.Boundary)
	if err != nil {
		return action.Action{}, "", nil, fmt.Errorf("triage: %w", err)
	}
	if w, ok := req.Tool.(workDirer); ok && a.Cwd == "" {
		// The first pass judges paths where the tool really works: with
		// a stand-in workspace, a link an earlier call made (ln -s OUTSIDE
		// L, then an escalated echo x > L/f) looked like a workspace
		// write, and a real workspace under /tmp or the home directory
		// looked like somewhere else. What the reviewer sees is unchanged.
		if dir := w.WorkDir(); dir != "" {
			a.Cwd = dir
		}
	}
	request, turns := judge.TurnsWithCalls(req.History, req.Call.ID)
	return a, request, turns, nil
}

// workDirer is a tool that says the directory it works in.
type workDirer interface{ WorkDir() string }
