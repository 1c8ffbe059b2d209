package approval

import (
	"context"
	"fmt"

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

func init() {
	Register("auto", autoFactory)
}

// Auto returns an approver that always answers d.
func Auto(d Decision, explanation string) Approver {
	return Func(func(context.Context, *Request) (Approval, error) {
		return Approval{Decision: d, Explanation: explanation}, nil
	})
}

// autoFactory builds the built-in "auto" approver: parameter decision
// (approve, reject, terminate or escalate; default approve) and an optional
// explanation.
func autoFactory(params map[string]any) (Approver, error) {
	d := Approve
	explanation := ""
	for k, v := range params {
		s, ok := v.(string)
		switch {
		case k == "decision" && ok:
			d = Decision(s)
		case k == "explanation" && ok:
			explanation = s
		case k == "decision" || k == "explanation":
			return nil, fmt.Errorf("parameter %s must be a string", k)
		default:
			return nil, fmt.Errorf("unknown parameter %q (parameters: decision, explanation)", k)
		}
	}
	switch d {
	case Approve, Reject, Terminate, Escalate:
	default:
		return nil, fmt.Errorf("decision %q: want approve, reject, terminate or escalate", d)
	}
	if explanation == "" {
		explanation = "auto " + string(d)
	}
	return Auto(d, explanation), nil
}
