package action

import (
	"fmt"

	"github.com/wardenhq/warden/chat"
)

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
	}
	return request, turns
}
