// Package boundary turns attempts to cross the sandbox boundary into
// approval requests (SPEC G1, G2). A tool that needs more than the sandbox
// allows — a command that asks for escalated permissions or that an exec
// rule sends for approval, a write outside the writable roots or into a
// protected path, a network request the sandbox blocked, an MCP call whose
// annotations need approval — builds a Request and calls Ask. Whoever runs
// the tool installs a Decider in the context (the agent loop sends requests
// to the run's approvals reviewer). With no Decider, Ask denies: governance
// fails closed.
package boundary

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/effect"
)

// Permission is what a request to cross the boundary asks for: to run a
// command, write, reach the network or call an MCP tool. It is the "kind"
// of a boundary request in the queue and the transcript; the action a
// reviewer judges has an action.Kind (action.Describe makes one of the other).
type Permission string

// The permissions.
const (
	// Exec runs a command the rules send for approval, or with the
	// escalated permissions it asked for.
	Exec Permission = "exec"
	// Write writes outside the writable roots or into a protected path.
	Write Permission = "write"
	// Network reaches the network the sandbox keeps closed.
	Network Permission = "network"
	// MCP calls an MCP tool whose annotations or mode need approval.
	MCP Permission = "mcp"
)

// Request asks to cross the boundary once, for exactly the action it
// describes.
type Request struct {
	Permission Permission `json:"kind"`
	// Command is the command line for Exec, Write and Network requests
	// made by a shell command.
	Command string `json:"command,omitempty"`
	// Paths are the paths a Write request writes.
	Paths []string `json:"paths,omitempty"`
	// Server and Tool name the MCP tool of an MCP request.
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Escalated reports that the model asked for escalated permissions
	// (sandbox_permissions: require_escalated).
	Escalated bool `json:"escalated,omitempty"`
	// Justification is the model's reason, when it gave one.
	Justification string `json:"justification,omitempty"`
	// Reason says why the request needs approval (which rule, which
	// blocked action).
	Reason string `json:"reason"`
	// Sandbox is the sandbox mode in force.
	Sandbox string `json:"sandbox,omitempty"`
	// Effects, when set, is what a dry run of Command observed (SPEC
	// G17), or why none ran: the first pass sets it on a request it passes
	// on, for the approvers after it (the reviewer, a person) and the
	// record. It is not part of the request's JSON.
	Effects *effect.Observed `json:"-"`
}

// String renders the request for people and logs.
func (r *Request) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s request", r.Permission)
	if r.Sandbox != "" {
		fmt.Fprintf(&b, " (sandbox %s)", r.Sandbox)
	}
	b.WriteString(": ")
	b.WriteString(r.Reason)
	switch {
	case r.Command != "":
		fmt.Fprintf(&b, "\ncommand: %s", r.Command)
	case r.Tool != "":
		fmt.Fprintf(&b, "\ntool: %s/%s", r.Server, r.Tool)
	}
	if len(r.Paths) > 0 {
		fmt.Fprintf(&b, "\npaths: %s", strings.Join(r.Paths, ", "))
	}
	if r.Escalated {
		b.WriteString("\nasks for escalated permissions")
	}
	if r.Justification != "" {
		fmt.Fprintf(&b, "\njustification (from the model): %s", r.Justification)
	}
	if note := r.Effects.Note(); note != "" {
		b.WriteString("\n" + note)
	}
	return b.String()
}

// Answer is the answer to a request: approved or not, after every approver
// asked (the first pass, the reviewer agent, a person) has reached its
// verdict. It is what a tool receives; the run's boundary approver turns
// an approval.Outcome into it.
type Answer struct {
	Approved bool
	// Explanation says why; a denial's explanation reaches the model.
	Explanation string
	// By names who decided.
	By string
}

// A Decider decides boundary requests. An error is a failure of the
// decider, which Ask turns into a denial the caller must not run past.
type Decider interface {
	Decide(ctx context.Context, req *Request) (Answer, error)
}

// DeciderFunc adapts a function to the Decider interface.
type DeciderFunc func(ctx context.Context, req *Request) (Answer, error)

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, req *Request) (Answer, error) { return f(ctx, req) }

type deciderKey struct{}

// WithDecider returns a context whose boundary requests go to d.
func WithDecider(ctx context.Context, d Decider) context.Context {
	return context.WithValue(ctx, deciderKey{}, d)
}

// ErrNoDecider is the error of a request made where nobody decides them.
var ErrNoDecider = errors.New("no approver for boundary requests is configured")

// Ask asks the Decider of ctx about req. Without one it returns a denial
// and ErrNoDecider; a Decider's error is returned with a denial. Callers
// run the action only when the decision is approved and err is nil.
func Ask(ctx context.Context, req *Request) (Answer, error) {
	d, ok := ctx.Value(deciderKey{}).(Decider)
	if !ok || d == nil {
		return Answer{Explanation: ErrNoDecider.Error()}, ErrNoDecider
	}
	dec, err := d.Decide(ctx, req)
	if err != nil {
		return Answer{Explanation: err.Error(), By: dec.By}, err
	}
	return dec, nil
}
