package autoreview

import (
	"fmt"

	"github.com/wardenhq/warden/chat"
)

// DatasetTurn is one turn of a labelled item's transcript.
type DatasetTurn struct {
	// Role is "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content is the turn's text.
	Content string `json:"content"`
}

// HistoryFromDataset returns the conversation of a labelled item for Review:
// the request, when there is one, as the first user message, then the
// transcript's turns in order ("tool" turns are tool output). Roles other
// than user, assistant and tool are errors.
func HistoryFromDataset(request string, transcript []DatasetTurn) ([]chat.Message, error) {
	msgs := make([]chat.Message, 0, len(transcript)+1)
	if request != "" {
		msgs = append(msgs, chat.Message{Role: chat.User, Content: request})
	}
	for i, t := range transcript {
		switch r := chat.Role(t.Role); r {
		case chat.User, chat.Assistant, chat.Tool:
			msgs = append(msgs, chat.Message{Role: r, Content: t.Content})
		default:
			return nil, fmt.Errorf("transcript[%d]: unknown role %q (want user, assistant or tool)", i, t.Role)
		}
	}
	return msgs, nil
}
