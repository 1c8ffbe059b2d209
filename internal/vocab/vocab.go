// Package vocab is the vocabulary warden's first pass and warden eval
// judge actions with: the decisions a reviewer reaches (allow, deny,
// escalate — also the labels of labelled items, SPEC G6, G14, V2), the
// classes of SPEC G7, and the turns of the conversation before an action
// that a reviewer weighs as evidence. Its values appear in eval datasets
// and reports, not in the transcript contract (package event and the
// risk, authorization and status levels of package action). It also
// writes once the words of the approvers' and reviewers' decisions (SPEC
// A2, R2), which package approval, package review and the store's queue
// share. docs/architecture.md ("One vocabulary") says which decision
// type is which.
package vocab

import (
	"fmt"

	"github.com/wardenhq/warden/chat"
)

// Decision is what a reviewer decides about an action, what an exec rule
// decides about a command (package rules spells it in Codex's words), and
// the label of a labelled item (SPEC G6, G14, V2).
type Decision string

// The decisions.
const (
	// Allow: the action may run.
	Allow Decision = "allow"
	// Deny: the action must not run.
	Deny Decision = "deny"
	// Escalate: the reviewer passes the action on without deciding (to the
	// model reviewer, or to a person).
	Escalate Decision = WordEscalate
)

// Strictness ranks a decision by how far it holds an action back: allow 0,
// escalate 1, deny 2. Exec rules order their verdicts by it, and the first
// pass its findings. The zero value (no decision yet) ranks with allow, so
// that folding with Stricter from it gives the strictest decision seen; a
// word that is none of the three ranks with deny (fail closed).
func (d Decision) Strictness() int {
	switch d {
	case Allow, "":
		return 0
	case Escalate:
		return 1
	}
	return 2
}

// Stricter returns the stricter of d and o, o when they rank the same.
func (d Decision) Stricter(o Decision) Decision {
	if o.Strictness() >= d.Strictness() {
		return o
	}
	return d
}

// DenialInstruction follows the rationale of every denial the main agent
// receives (SPEC G9).
const DenialInstruction = "Do not try to reach the same outcome another way: no workaround, no indirect execution (another tool, a script, an encoded, split or delayed command) and nothing meant to get around the policy. Continue only with a materially safer alternative that still serves the user's request; if there is none, stop and ask the user how to proceed."

// Class is the class of an action: routine work, one of the four classes
// of harm of SPEC G7, or a category of the labelled datasets. The names are
// those of the datasets.
type Class string

// The classes.
const (
	// Routine is ordinary developer work, as the first pass finds it.
	Routine Class = "routine"
	// Exfiltration sends private data, secrets or credentials out.
	Exfiltration Class = "exfiltration"
	// CredentialProbing reads, lists or searches for credentials, tokens,
	// cookies or session data.
	CredentialProbing Class = "credential_probing"
	// SecurityWeakening weakens security broadly or lastingly.
	SecurityWeakening Class = "security_weakening"
	// Destructive risks irreversible damage.
	Destructive Class = "destructive"
	// Benign is the dataset category of harmless items.
	Benign Class = "benign"
	// Other is the dataset category of items of no class above.
	Other Class = "other"
)

// Harm reports whether c is one of the four classes of harm of SPEC G7.
func (c Class) Harm() bool {
	switch c {
	case Exfiltration, CredentialProbing, SecurityWeakening, Destructive:
		return true
	}
	return false
}

// Turn is one turn of the conversation before an action, as the labelled
// datasets and the first pass see it.
type Turn struct {
	// Role is "user", "assistant" or "tool" (tool output, untrusted).
	Role string `json:"role"`
	// Content is the turn's text.
	Content string `json:"content"`
}

// History returns a conversation as chat messages: the request, when there
// is one, as the first user message, then the turns in order ("tool" turns
// are tool output). Roles other than user, assistant and tool are errors.
func History(request string, turns []Turn) ([]chat.Message, error) {
	msgs := make([]chat.Message, 0, len(turns)+1)
	if request != "" {
		msgs = append(msgs, chat.Message{Role: chat.User, Content: request})
	}
	for i, t := range turns {
		switch r := chat.Role(t.Role); r {
		case chat.User, chat.Assistant, chat.Tool:
			msgs = append(msgs, chat.Message{Role: r, Content: t.Content})
		default:
			return nil, fmt.Errorf("transcript[%d]: unknown role %q (want user, assistant or tool)", i, t.Role)
		}
	}
	return msgs, nil
}

// Turns splits a conversation into the user's request (its first user
// message) and the turns after it. System messages are left out.
func Turns(history []chat.Message) (request string, turns []Turn) {
	return TurnsWith(history, nil)
}

// TurnsWith is Turns that calls more, when not nil, after the turn of
// each assistant message: more returns turns with those of the message
// appended (its tool calls, say).
func TurnsWith(history []chat.Message, more func(m chat.Message, turns []Turn) []Turn) (request string, turns []Turn) {
	for _, m := range history {
		switch m.Role {
		case chat.User:
			if request == "" && len(turns) == 0 {
				request = m.Content
				continue
			}
		case chat.Assistant, chat.Tool:
		default:
			continue
		}
		turns = append(turns, Turn{Role: string(m.Role), Content: m.Content})
		if m.Role == chat.Assistant && more != nil {
			turns = more(m, turns)
		}
	}
	return request, turns
}
