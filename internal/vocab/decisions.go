package vocab

// The words of the decisions of SPEC A2 (an approver's) and R2 (a
// reviewer's), written once. Package approval types them as
// approval.Decision and package review as review.Decision; the store,
// which sits below both, offers and records them as text on the queue a
// person answers (SPEC H2, H3), and the transcript records them as text.
// Escalate is the same word as the verdict Escalate: pass the call on to
// the next approver or reviewer without deciding.
const (
	// WordApprove: the call runs (A2).
	WordApprove = "approve"
	// WordModify: a modified call runs instead (A2).
	WordModify = "modify"
	// WordReject: the call does not run; the model is told why (A2).
	WordReject = "reject"
	// WordTerminate: the run ends (A2, R2).
	WordTerminate = "terminate"
	// WordEscalate: the next approver or reviewer decides (A2, R2).
	WordEscalate = "escalate"
	// WordContinue: the result reaches the model and the run goes on (R2).
	WordContinue = "continue"
)

// ApprovalDecisions returns the decisions of SPEC A2, in its order.
func ApprovalDecisions() []string {
	return []string{WordApprove, WordModify, WordReject, WordTerminate, WordEscalate}
}

// ReviewDecisions returns the decisions of SPEC R2, in its order: no
// reject and no modify, because the call already ran.
func ReviewDecisions() []string {
	return []string{WordContinue, WordTerminate, WordEscalate}
}
