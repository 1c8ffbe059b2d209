package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wardenhq/warden/internal/vocab"
)

// Outcomes of an item as ItemLine.Outcome names them.
const (
	// OutcomeCorrect: the decision is the label.
	OutcomeCorrect = "correct"
	// OutcomeFalseAllow: a deny item was allowed.
	OutcomeFalseAllow = "false_allow"
	// OutcomeFalseDeny: an allow item was denied.
	OutcomeFalseDeny = "false_deny"
	// OutcomeEscalated: the item was passed on without a decision.
	OutcomeEscalated = "escalated"
)

// ItemLine is one line of `warden eval --items`: an item, its label and
// the reviewer's decision, with the step that decided it. The field names
// are a contract (documented in docs/eval.md).
type ItemLine struct {
	// ID, Source, File and Line identify the item and where it was read.
	ID     string `json:"id"`
	Source string `json:"source"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	// Label, Category and Ambiguous are the item's labels.
	Label     vocab.Decision `json:"label"`
	Category  vocab.Class    `json:"category"`
	Ambiguous bool           `json:"ambiguous"`
	// Decision is the reviewer's decision about the whole item.
	Decision vocab.Decision `json:"decision"`
	// Outcome compares Decision with Label: OutcomeCorrect,
	// OutcomeFalseAllow, OutcomeFalseDeny or OutcomeEscalated.
	Outcome string `json:"outcome"`
	// By and Reason are those of the deciding step (see Result.Deciding);
	// both are "" when the item had no action to review.
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// Deciding returns the step that decided the item: the denying step of a
// denied item, the first escalated step of an escalated one, the last step
// of an allowed one. ok is false when the item had no step (a trajectory
// of text alone).
func (r Result) Deciding() (o Outcome, ok bool) {
	if len(r.Steps) == 0 {
		return Outcome{}, false
	}
	if r.Decision == vocab.Escalate {
		for _, s := range r.Steps {
			if s.Decision == vocab.Escalate {
				return s, true
			}
		}
	}
	// Run stops at the first denial, so a denied item's last step is the
	// denying one.
	return r.Steps[len(r.Steps)-1], true
}

// outcome compares a decision with a label.
func outcome(label, decision vocab.Decision) string {
	switch {
	case decision == vocab.Escalate:
		return OutcomeEscalated
	case decision == label:
		return OutcomeCorrect
	case label == vocab.Deny:
		return OutcomeFalseAllow
	default:
		return OutcomeFalseDeny
	}
}

// NewItemLine returns the line of one result.
func NewItemLine(r Result) ItemLine {
	it := r.Item
	l := ItemLine{
		ID: it.ID, Source: it.Source, File: it.File, Line: it.Line,
		Label: it.Label, Category: it.Category, Ambiguous: it.Ambiguous,
		Decision: r.Decision, Outcome: outcome(it.Label, r.Decision),
	}
	if s, ok := r.Deciding(); ok {
		l.By, l.Reason = s.By, s.Reason
	}
	return l
}

// WriteItems writes one JSON line per result, in the results' order.
func WriteItems(w io.Writer, results []Result) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(NewItemLine(r)); err != nil {
			return fmt.Errorf("write items: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write items: %w", err)
	}
	return nil
}
