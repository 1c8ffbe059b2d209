package review

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// A Factory creates a reviewer from the parameters of a policy entry.
type Factory func(params map[string]any) (Reviewer, error)

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register makes a reviewer available to policies under name. It panics if
// name is registered twice.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic("review: reviewer registered twice: " + name)
	}
	factories[name] = f
}

// Registered reports whether name is a registered reviewer.
func Registered(name string) bool {
	mu.RLock()
	defer mu.RUnlock()
	_, ok := factories[name]
	return ok
}

// Names returns the registered reviewer names, sorted.
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

// Build creates the registered reviewer name with params.
func Build(name string, params map[string]any) (Reviewer, error) {
	mu.RLock()
	f, ok := factories[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown reviewer %q (registered: %s)", name, strings.Join(Names(), ", "))
	}
	a, err := f(params)
	if err != nil {
		return nil, fmt.Errorf("reviewer %s: %w", name, err)
	}
	return a, nil
}

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
	if !d.Valid() {
		return nil, fmt.Errorf("decision %q: want continue, terminate or escalate", d)
	}
	if explanation == "" {
		explanation = "auto " + string(d)
	}
	return Auto(d, explanation), nil
}
