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

// longScript is an agent's script of the usual kinds: variables, a loop
// with arithmetic, a here-document, substitutions, a pipeline.
const longScript = `set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
count=0
for f in $(find . -name '*.go' -not -path './vendor/*'); do
  if grep -q 'TODO' "$f"; then
    count=$((count + 1))
    echo "$f: $(grep -c TODO "$f") TODOs"
  fi
done
echo "files with TODOs: $count"
cat > report.md <<EOF
# Report
Generated at $(date -u +%FT%TZ)
EOF
go test ./... 2>&1 | tee test.log | tail -20
[[ -s test.log ]] && wc -l test.log
`

// BenchmarkParseLongScript splits longScript (G16's checks included).
func BenchmarkParseLongScript(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := shell.Parse(longScript); err != nil {
			b.Fatal(err)
		}
	}
}
