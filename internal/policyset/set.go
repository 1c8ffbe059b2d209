package policyset

import (
	"context"
	"github.com/wardenhq/warden/policy"
	"sync"

	"github.com/wardenhq/warden/tool"
)

// Set is a compiled policy: rules grouped into chains, in order. Its zero
// value is the empty policy.
type Set[H any] struct {
	rules  []policy.Rule[H]
	chains [][]int // indexes into rules, per chain, in order of first appearance
	names  []string
}

// NewSet compiles rules into a set.
func NewSet[H any](rules []policy.Rule[H]) *Set[H] {
	s := &Set[H]{rules: rules}
	index := map[string]int{}
	for i, r := range rules {
		c, ok := index[r.Chain]
		if !ok {
			c = len(s.chains)
			index[r.Chain] = c
			s.chains = append(s.chains, nil)
			s.names = append(s.names, r.Chain)
		}
		s.chains[c] = append(s.chains[c], i)
	}
	return s
}

// Len returns the number of rules.
func (s *Set[H]) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Rules returns the rules in order.
func (s *Set[H]) Rules() []policy.Rule[H] {
	if s == nil {
		return nil
	}
	return s.rules
}

// Entries returns the entries the rules were built from.
func (s *Set[H]) Entries() []policy.Entry {
	if s == nil {
		return nil
	}
	out := make([]policy.Entry, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.Entry
		if out[i].Name == "" {
			out[i].Name = r.Name
		}
	}
	return out
}

// Verdict is the outcome of one chain.
type Verdict[R any] struct {
	Result  R
	Decided bool
	Rule    string
	Chain   string
}

// Ask asks one rule's handler about a call. It returns the handler's answer
// and whether it decided (false means it escalated).
type Ask[H, R any] func(ctx context.Context, r *policy.Rule[H]) (R, bool, error)

// Evaluate runs every chain over call, its arguments rendered in order for
// the patterns (SPEC A3, R3, P2, P7). Within a chain the
// rules whose patterns match are asked in order and the first that decides
// wins. Chains run side by side; the verdict that worse ranks highest wins,
// and a verdict for which final is true cancels the other chains. The
// returned verdict is undecided when no chain decided. An error from any
// chain is returned.
func Evaluate[H, R any](ctx context.Context, s *Set[H], call *tool.Call, order tool.Order, ask Ask[H, R], worse func(a, b R) bool, final func(R) bool) (Verdict[R], error) {
	if s.Len() == 0 {
		return Verdict[R]{}, nil
	}
	if len(s.chains) == 1 {
		return runChain(ctx, s, 0, call, order, ask)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type out struct {
		v   Verdict[R]
		err error
	}
	outs := make([]out, len(s.chains))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error // the first chain error, which cancels the others
	)
	for c := range s.chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := runChain(ctx, s, c, call, order, ask)
			outs[c] = out{v, err}
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
			if err != nil || (v.Decided && final(v.Result)) {
				cancel()
			}
		}()
	}
	wg.Wait()
	var best Verdict[R]
	// A final verdict beats the cancellation errors it caused in other chains.
	for _, o := range outs {
		if o.err == nil && o.v.Decided && final(o.v.Result) {
			return o.v, nil
		}
	}
	// An error beats the cancellation errors it caused in other chains.
	if firstErr != nil {
		return Verdict[R]{}, firstErr
	}
	for _, o := range outs {
		if o.v.Decided && (!best.Decided || worse(o.v.Result, best.Result)) {
			best = o.v
		}
	}
	return best, nil
}

func runChain[H, R any](ctx context.Context, s *Set[H], c int, call *tool.Call, order tool.Order, ask Ask[H, R]) (Verdict[R], error) {
	t := acquireTarget(call, order)
	defer releaseTarget(t)
	for _, i := range s.chains[c] {
		r := &s.rules[i]
		if !r.Match.Match(t) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Verdict[R]{}, err
		}
		res, decided, err := ask(ctx, r)
		if err != nil {
			return Verdict[R]{}, err
		}
		if decided {
			return Verdict[R]{Result: res, Decided: true, Rule: r.Name, Chain: r.Chain}, nil
		}
	}
	return Verdict[R]{Chain: s.names[c]}, nil
}

// First returns the index of the first rule whose patterns match call, its
// arguments rendered in order, or -1. It is the matching step of Evaluate, exposed for measurement and for
// tools that explain a policy.
func (s *Set[H]) First(call *tool.Call, order tool.Order) int {
	if s.Len() == 0 {
		return -1
	}
	t := acquireTarget(call, order)
	defer releaseTarget(t)
	for i := range s.rules {
		if s.rules[i].Match.Match(t) {
			return i
		}
	}
	return -1
}

var targetPool = sync.Pool{New: func() any { return new(policy.Target) }}

// acquireTarget returns a pooled target for call, its arguments rendered in
// order; release it with releaseTarget when done.
func acquireTarget(call *tool.Call, order tool.Order) *policy.Target {
	t := targetPool.Get().(*policy.Target)
	t.Reset(call, order)
	return t
}

// releaseTarget returns t to the pool.
func releaseTarget(t *policy.Target) {
	t.Call, t.Order = nil, nil
	targetPool.Put(t)
}

// Policy is what approval.Policy and review.Policy share: the compiled
// rules of a policy of handlers H, grouped into chains. A nil *Policy has
// no rules.
type Policy[H any] struct{ set *Set[H] }

// NewPolicy returns a policy of rules in order.
func NewPolicy[H any](rules []policy.Rule[H]) *Policy[H] { return &Policy[H]{NewSet(rules)} }

// CompilePolicy builds a policy from entries, creating each handler from
// r. An unknown name is an error at the entry's position that lists the
// registered names.
func CompilePolicy[H any](r *Registry[H], entries []policy.Entry) (*Policy[H], error) {
	rules, err := r.Compile(entries)
	if err != nil {
		return nil, err
	}
	return NewPolicy(rules), nil
}

// Set returns the policy's rules; nil for a nil policy.
func (p *Policy[H]) Set() *Set[H] {
	if p == nil {
		return nil
	}
	return p.set
}

// Len returns the number of entries; 0 means no handlers.
func (p *Policy[H]) Len() int { return p.Set().Len() }

// Entries returns the entries the policy was built from.
func (p *Policy[H]) Entries() []policy.Entry { return p.Set().Entries() }
