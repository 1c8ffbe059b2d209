package review

import (
	"context"

	"github.com/wardenhq/warden/internal/policyset"
)

// A Factory creates a reviewer from the parameters of a policy entry.
type Factory = policyset.Factory[Reviewer]

// registry holds the named reviewers policy files can use.
var registry = policyset.NewRegistry[Reviewer]("reviewer")

// Register makes a reviewer available to policies under name. It panics if
// name is registered twice.
func Register(name string, f Factory) { registry.Register(name, f) }

// Registered reports whether name is a registered reviewer.
func Registered(name string) bool { return registry.Registered(name) }

// Names returns the registered reviewer names, sorted.
func Names() []string { return registry.Names() }

// Build creates the registered reviewer name with params.
func Build(name string, params map[string]any) (Reviewer, error) { return registry.Build(name, params) }

// The built-in "auto" reviewer answers one decision: parameter decision
// (continue, terminate or escalate; default continue) and an optional
// explanation.
func init() {
	Register("auto", policyset.AutoFactory(Continue, []Decision{Continue, Terminate, Escalate}, Auto))
}

// Auto returns a reviewer that always answers d.
func Auto(d Decision, explanation string) Reviewer {
	return Func(func(context.Context, *Request) (Review, error) {
		return Review{Decision: d, Explanation: explanation}, nil
	})
}
