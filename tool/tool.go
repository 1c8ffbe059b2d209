// Package tool defines what a model can call: tools, the calls a model makes
// to them, the results it gets back, and the errors a tool can report.
package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// A Tool is something a model can call. Run receives the call's arguments as
// the JSON object the model sent (or an approver modified) and returns the
// tool's raw output. An error of type *Error is returned to the model with its
// type; any other error is returned to the model as type "unknown".
type Tool interface {
	Info() Info
	Run(ctx context.Context, args json.RawMessage) (string, error)
}

// Info describes a tool to a model.
type Info struct {
	// Name is the name the model calls the tool by.
	Name string `json:"name"`
	// Description tells the model what the tool does.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// Parallel reports whether calls to this tool may run concurrently with
	// other parallel calls of the same assistant message (SPEC L1).
	Parallel bool `json:"-"`
}

// Func adapts a function to the Tool interface.
type Func struct {
	Spec Info
	Fn   func(ctx context.Context, args json.RawMessage) (string, error)
}

// Info returns f.Spec.
func (f Func) Info() Info { return f.Spec }

// Run calls f.Fn.
func (f Func) Run(ctx context.Context, args json.RawMessage) (string, error) {
	return f.Fn(ctx, args)
}

// A Precheck is implemented by tools that can tell, from a call's arguments
// alone and before anyone is asked to approve it, that the call cannot
// succeed — an edit of a file that does not exist, say. The agent calls
// Precheck after the call has passed its schema check (SPEC A6): an error
// is returned to the model as the call's result, as a *Error when it is one
// and otherwise as a parsing error, and the call is neither approved nor
// run. Precheck must not change anything, ask anyone or block for long; a
// call it lets through is still checked by Run.
type Precheck interface {
	Precheck(args json.RawMessage) error
}

// A Viewer is implemented by tools that render their calls for people in a
// form better than the one-line call text.
type Viewer interface {
	View(call Call) View
}

// View is a human-readable rendering of a call (SPEC A1).
type View struct {
	Title   string `json:"title,omitempty"`
	Format  string `json:"format,omitempty"` // "text", "markdown" or a language name
	Content string `json:"content"`
}

// ErrorType classifies the errors a model can receive (SPEC L4).
type ErrorType string

// The error types of SPEC L4.
const (
	ErrParsing    ErrorType = "parsing"
	ErrApproval   ErrorType = "approval"
	ErrTimeout    ErrorType = "timeout"
	ErrCancelled  ErrorType = "cancelled"
	ErrLimit      ErrorType = "limit"
	ErrPermission ErrorType = "permission"
	ErrUnknown    ErrorType = "unknown"
)

// Error is an error returned to the model instead of a result.
type Error struct {
	Type    ErrorType `json:"type"`
	Message string    `json:"message"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Type, e.Message) }

// Errorf returns an *Error of type t with a formatted message.
func Errorf(t ErrorType, format string, args ...any) *Error {
	return &Error{Type: t, Message: fmt.Sprintf(format, args...)}
}

// AsError converts err to the *Error the model receives. Context deadlines
// become timeouts and cancellations become cancelled; errors that carry no
// type become unknown.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Type: ErrTimeout, Message: err.Error()}
	case errors.Is(err, context.Canceled):
		return &Error{Type: ErrCancelled, Message: err.Error()}
	}
	return &Error{Type: ErrUnknown, Message: err.Error()}
}

// Result is what the model receives for a call: content or an error.
type Result struct {
	Content string `json:"content"`
	Error   *Error `json:"error,omitempty"`
	// Truncated is [bytes the tool produced, bytes kept] when the output
	// was cut, at the tool's capture limit or the run's max_output; nil
	// when it is whole.
	Truncated *[2]int `json:"truncated,omitempty"`
}

// Text returns what the model reads: the content, or the error rendered as
// "type: message".
func (r Result) Text() string {
	if r.Error != nil {
		return r.Error.Error()
	}
	return r.Content
}
