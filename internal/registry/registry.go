// Package registry holds values registered by name at start-up (the
// built-in tools, the model providers), safe for concurrent use.
package registry

import (
	"sort"
	"sync"
)

// Of maps names to values of type V; a name is registered once.
type Of[V any] struct {
	twice string
	mu    sync.RWMutex
	m     map[string]V
}

// New returns an empty registry; registering a name twice panics with
// twice followed by the name.
func New[V any](twice string) *Of[V] {
	return &Of[V]{twice: twice, m: map[string]V{}}
}

// Register makes v available under name. It panics if name is registered
// twice.
func (r *Of[V]) Register(name string, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		panic(r.twice + name)
	}
	r.m[name] = v
}

// Get returns the value registered under name.
func (r *Of[V]) Get(name string) (V, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[name]
	return v, ok
}

// Names returns the registered names, sorted.
func (r *Of[V]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
