package rules_test

import (
	"fmt"
	"testing"

	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// hundredRules builds 100 prefix rules: 90 on programs the script does not
// run and 10 on the programs it does.
func hundredRules(b testing.TB) *rules.Set {
	set := &rules.Set{}
	for i := 0; i < 90; i++ {
		err := set.Add(rules.Rule{
			Pattern:  [][]string{{fmt.Sprintf("tool%d", i)}, {"run", "exec"}},
			Decision: []vocab.Decision{rules.Allow, rules.Prompt, rules.Forbidden}[i%3],
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range [][][]string{
		{{"git"}, {"status"}}, {{"git"}, {"push"}}, {{"git"}, {"diff", "log"}},
		{{"go"}, {"test"}}, {{"go"}, {"build"}}, {{"cd"}}, {{"head"}},
		{{"echo"}}, {{"rm"}, {"-rf"}}, {{"curl"}},
	} {
		if err := set.Add(rules.Rule{Pattern: p, Decision: rules.Allow}); err != nil {
			b.Fatal(err)
		}
	}
	if set.Len() != 100 {
		b.Fatalf("%d rules", set.Len())
	}
	return set
}

// BenchmarkEvaluate5Commands100Rules decides a 5-command compound script
// against 100 prefix rules (target ≤ 20 µs).
func BenchmarkEvaluate5Commands100Rules(b *testing.B) {
	set := hundredRules(b)
	const script = "cd src && git status | head -5; go test ./... || echo fail"
	if r := rules.Evaluate(set, script); len(r.Commands) != 5 || r.Decision != rules.Allow {
		b.Fatalf("got %d commands, %s", len(r.Commands), r.Decision)
	}
	b.ReportAllocs()
	for b.Loop() {
		rules.Evaluate(set, script)
	}
}

// BenchmarkEvaluateSeeThrough decides a script with words passed on,
// command lines in words and xargs under a set with forbidden rules (the
// indirection checks of issue 18 all run).
func BenchmarkEvaluateSeeThrough(b *testing.B) {
	set := hundredRules(b)
	if err := set.Add(rules.Rule{Pattern: [][]string{{"git"}, {"push"}}, Decision: rules.Forbidden}); err != nil {
		b.Fatal(err)
	}
	const script = "git commit -m 'fix the parser' && ssh host 'uptime; df -h' | tee log; find . -name '*.go' | xargs -n1 gofmt -l"
	b.ReportAllocs()
	for b.Loop() {
		rules.Evaluate(set, script)
	}
}
