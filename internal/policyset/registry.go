package policyset

import (
	"fmt"
	"strings"
	"sync"

	"github.com/wardenhq/warden/internal/registry"
	"github.com/wardenhq/warden/policy"
)

// Factory creates a handler (an approver or a reviewer) from the parameters
// of a policy entry.
type Factory[H any] func(params map[string]any) (H, error)

// Registry maps names to factories, so that policy files can name handlers
// (SPEC P3). It is safe for concurrent use.
type Registry[H any] struct {
	what      string // "approver" or "reviewer", for messages
	factories *registry.Of[Factory[H]]
	renamed   *registry.Of[string] // an old name → the name it is registered under now
	// mu makes the checks and the change of a registration or a renaming
	// one step.
	mu sync.Mutex
}

// NewRegistry returns an empty registry of handlers called what.
func NewRegistry[H any](what string) *Registry[H] {
	return &Registry[H]{what: what, factories: registry.New[Factory[H]](what + " registered twice: "), renamed: registry.New[string](what + " registered twice: ")}
}

// Register makes a handler available under name. It panics if name is
// registered twice.
func (r *Registry[H]) Register(name string, f Factory[H]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.renamed.Get(name); dup {
		panic(fmt.Sprintf("%s registered twice: %s", r.what, name))
	}
	r.factories.Register(name, f)
}

// Rename keeps old, the name a handler was registered under before, as a
// name of the handler registered as name: Registered and Build accept it,
// Names leaves it out and Renamed reports it, so that callers can warn.
// It panics if old is taken or name is not registered.
func (r *Registry[H]) Rename(old, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, renamed := r.renamed.Get(old)
	if _, dup := r.factories.Get(old); dup || renamed {
		panic(fmt.Sprintf("%s registered twice: %s", r.what, old))
	}
	if _, ok := r.factories.Get(name); !ok {
		panic(fmt.Sprintf("%s %s renamed to %s, which is not registered", r.what, old, name))
	}
	r.renamed.Register(old, name)
}

// Renamed returns the name the handler once registered as old is
// registered under now, and whether old is such a name.
func (r *Registry[H]) Renamed(old string) (string, bool) { return r.renamed.Get(old) }

// factory returns the factory of name, or of the name it was renamed to.
func (r *Registry[H]) factory(name string) (Factory[H], bool) {
	if now, ok := r.renamed.Get(name); ok {
		name = now
	}
	return r.factories.Get(name)
}

// Registered reports whether name is registered, or was before it was
// renamed.
func (r *Registry[H]) Registered(name string) bool {
	_, ok := r.factory(name)
	return ok
}

// Names returns the registered names, sorted; old names of renamed
// handlers are left out.
func (r *Registry[H]) Names() []string { return r.factories.Names() }

// Build creates the handler registered as name (or renamed from it) with
// params. An unknown name is an error that lists the registered ones.
func (r *Registry[H]) Build(name string, params map[string]any) (H, error) {
	f, ok := r.factory(name)
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
