package policyset

import (
	"context"
	"fmt"
	"github.com/wardenhq/warden/policy"
	"testing"

	"github.com/wardenhq/warden/tool"
)

// benchSet is a 50-entry policy of mixed bare names, text globs and
// structured argument patterns, with the matching entry near the end.
func benchSet(b *testing.B) *Set[int] {
	var rules []policy.Rule[int]
	add := func(m policy.Matcher) {
		rules = append(rules, policy.Rule[int]{Name: fmt.Sprint(len(rules)), Match: m, Handler: len(rules)})
	}
	for i := 0; len(rules) < 49; i++ {
		switch i % 4 {
		case 0:
			m, _ := policy.CompileList([]string{fmt.Sprintf("tool_%d", i)})
			add(m)
		case 1:
			m, _ := policy.CompileList([]string{fmt.Sprintf("bash(cmd='rm -rf /srv/%d", i)})
			add(m)
		case 2:
			m, _ := policy.CompileList([]string{fmt.Sprintf("web_*(url='https://*.example%d.com/*", i)})
			add(m)
		case 3:
			p, err := policy.CompileStructured("bash", map[string]string{"cmd": fmt.Sprintf("git push * --force-%d*", i)})
			if err != nil {
				b.Fatal(err)
			}
			add(policy.Matcher{p})
		}
	}
	m, _ := policy.CompileList([]string{"bash(cmd='go test*"})
	add(m)
	return NewSet(rules)
}

// BenchmarkDecide50 measures a compiled 50-entry policy deciding one call:
// rendering the call once, matching, and asking the one approver that
// matches (issue target: ≤ 1 µs and ≤ 2 allocations).
func BenchmarkDecide50(b *testing.B) {
	s := benchSet(b)
	c := tool.NewCall("call_1", "bash", `{"cmd":"go test ./... -run TestX","timeout":60}`)
	order := tool.Order{"cmd", "timeout"}
	ctx := context.Background()
	ask := func(_ context.Context, r *policy.Rule[int]) (int, bool, error) { return r.Handler, true, nil }
	worse := func(a, b int) bool { return a > b }
	final := func(int) bool { return false }
	b.ReportAllocs()
	for b.Loop() {
		v, err := Evaluate(ctx, s, &c, order, ask, worse, final)
		if err != nil || v.Result != 49 {
			b.Fatalf("verdict %+v, %v", v, err)
		}
	}
}
