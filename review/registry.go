package review

import (
	"context"
	"fmt"

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

func init() {
	Register("auto", autoFactory)
}

// Auto returns a reviewer that always answers d.
func Auto(d Decision, explanation string) Reviewer {
	return Func(func(context.Context, *Request) (Review, error) {
		return Review{Decision: d, Explanation: explanation}, nil
	})
}

// autoFactory builds the built-in "auto" reviewer: parameter decision
// (continue, terminate or escalate; default continue) and an optional
// explanation.
func autoFactory(params map[string]any) (Reviewer, error) {
	d := Continue
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
	if !d.valid() {
		return nil, fmt.Errorf("decision %q: want continue, terminate or escalate", d)
	}
	if explanation == "" {
		explanation = "auto " + string(d)
	}
	return Auto(d, explanation), nil
}
