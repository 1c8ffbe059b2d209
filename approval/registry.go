package approval

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// A Factory creates an approver from the parameters of a policy entry.
type Factory func(params map[string]any) (Approver, error)

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register makes an approver available to policies under name. It panics if
// name is registered twice.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic("approval: approver registered twice: " + name)
	}
	factories[name] = f
}

// Registered reports whether name is a registered approver.
func Registered(name string) bool {
	mu.RLock()
	defer mu.RUnlock()
	_, ok := factories[name]
	return ok
}

// Names returns the registered approver names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Build creates the registered approver name with params.
func Build(name string, params map[string]any) (Approver, error) {
	mu.RLock()
	f, ok := factories[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown approver %q (registered: %s)", name, strings.Join(Names(), ", "))
	}
	a, err := f(params)
	if err != nil {
		return nil, fmt.Errorf("approver %s: %w", name, err)
	}
	return a, nil
}

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
