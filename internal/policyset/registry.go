package policyset

import (
	"fmt"
	"github.com/wardenhq/warden/policy"
	"sort"
	"strings"
	"sync"
)

// Factory creates a handler (an approver or a reviewer) from the parameters
// of a policy entry.
type Factory[H any] func(params map[string]any) (H, error)

// Registry maps names to factories, so that policy files can name handlers
// (SPEC P3). It is safe for concurrent use.
type Registry[H any] struct {
	what      string // "approver" or "reviewer", for messages
	mu        sync.RWMutex
	factories map[string]Factory[H]
}

// NewRegistry returns an empty registry of handlers called what.
func NewRegistry[H any](what string) *Registry[H] {
	return &Registry[H]{what: what, factories: map[string]Factory[H]{}}
}

// Register makes a handler available under name. It panics if name is
// registered twice.
func (r *Registry[H]) Register(name string, f Factory[H]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[name]; dup {
		panic(fmt.Sprintf("%s registered twice: %s", r.what, name))
	}
	r.factories[name] = f
}

// Registered reports whether name is registered.
func (r *Registry[H]) Registered(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.factories[name]
	return ok
}

// Names returns the registered names, sorted.
func (r *Registry[H]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Build creates the handler registered as name with params. An unknown name
// is an error that lists the registered ones.
func (r *Registry[H]) Build(name string, params map[string]any) (H, error) {
	r.mu.RLock()
	f, ok := r.factories[name]
	r.mu.RUnlock()
	if !ok {
		var zero H
		return zero, fmt.Errorf("unknown %s %q (registered: %s)", r.what, name, strings.Join(r.Names(), ", "))
	}
	h, err := f(params)
	if err != nil {
		return h, fmt.Errorf("%s %s: %w", r.what, name, err)
	}
	return h, nil
}

// Compile builds the rules of entries, creating each handler from the
// registry. Errors are reported at the entry's position.
func (r *Registry[H]) Compile(entries []policy.Entry) ([]policy.Rule[H], error) {
	rules := make([]policy.Rule[H], 0, len(entries))
	for _, e := range entries {
		m, err := e.Matcher()
		if err != nil {
			return nil, &policy.Error{Pos: e.Pos, Err: err}
		}
		h, err := r.Build(e.Name, e.Params)
		if err != nil {
			return nil, &policy.Error{Pos: e.Pos, Err: err}
		}
		rules = append(rules, policy.Rule[H]{Name: e.Name, Chain: e.Chain, Match: m, Handler: h, Entry: e})
	}
	return rules, nil
}
