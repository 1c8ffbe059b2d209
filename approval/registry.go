package approval

import (
	"context"

	"github.com/wardenhq/warden/internal/policyset"
)

// A Factory creates an approver from the parameters of a policy entry.
type Factory = policyset.Factory[Approver]

// registry holds the named approvers policy files can use.
var registry = policyset.NewRegistry[Approver]("approver")

// Register makes an approver available to policies under name. It panics if
// name is registered twice.
func Register(name string, f Factory) { registry.Register(name, f) }

// Registered reports whether name is a registered approver.
func Registered(name string) bool { return registry.Registered(name) }

// Rename keeps old, the name an approver was registered under before, as a
// name of the approver registered as name: policies and approvals_reviewer
// lists that use it keep working, and Renamed lets their readers warn. It
// panics if old is taken or name is not registered.
func Rename(old, name string) { registry.Rename(old, name) }

// Renamed returns the name the approver once registered as old is
// registered under now, and whether old is such a name.
func Renamed(old string) (string, bool) { return registry.Renamed(old) }

// Names returns the registered approver names, sorted (old names of
// renamed approvers left out).
func Names() []string { return registry.Names() }

// Build creates the registered approver name with params.
func Build(name string, params map[string]any) (Approver, error) { return registry.Build(name, params) }

// The built-in "auto" approver answers one decision: parameter decision
// (approve, reject, terminate or escalate; default approve) and an
// optional explanation.
func init() {
	Register("auto", policyset.AutoFactory(Approve, []Decision{Approve, Reject, Terminate, Escalate}, Auto))
}

// Auto returns an approver that always answers d.
func Auto(d Decision, explanation string) Approver {
	return Func(func(context.Context, *Request) (Approval, error) {
		return Approval{Decision: d, Explanation: explanation}, nil
	})
}
