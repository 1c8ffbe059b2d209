package shell_test

import (
	"testing"

	"github.com/wardenhq/warden/internal/shell"
)

// BenchmarkParse5Commands splits the 5-command script of the rules
// benchmark.
func BenchmarkParse5Commands(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := shell.Parse("cd src && git status | head -5; go test ./... || echo fail"); err != nil {
			b.Fatal(err)
		}
	}
}
