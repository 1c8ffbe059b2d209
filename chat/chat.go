// Package chat defines the messages of a conversation between a person, a
// model and its tools.
package chat

import "github.com/wardenhq/warden/tool"

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role Role `json:"role"`
	// Content is the message text. For tool messages it is what the model
	// receives for the call (the result, or the rendered error).
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []tool.Call `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Function names the tool a tool message answers for.
	Function string `json:"function,omitempty"`
	// Error is set on a tool message whose call failed.
	Error *tool.Error `json:"error,omitempty"`
}

// Text returns the content of the last message with role r, or "".
func Text(msgs []Message, r Role) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == r {
			return msgs[i].Content
		}
	}
	return ""
}
