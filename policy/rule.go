package policy

// Rule is one compiled policy entry: a handler (an approver or a reviewer),
// the calls it applies to and the chain it belongs to.
type Rule[H any] struct {
	// Name is the name events record for the handler.
	Name string
	// Chain is the independent chain of the rule; "" is the default chain.
	Chain   string
	Match   Matcher
	Handler H
	// Entry is the policy entry the rule was built from, for transcripts.
	Entry Entry
}
