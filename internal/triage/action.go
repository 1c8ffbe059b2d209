package triage

import (
	"fmt"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
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
	request, turns := vocab.Turns(req.History)
	return a, request, turns, nil
}
