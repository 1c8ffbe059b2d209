package triage

import (
	"testing"

	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/pattern"
)

// xargsShell is the regular expression xargsRunsShell reads as; the
// tests compare them.
var xargsShell = pattern.Lazy(`\bxargs\b[^|;&\n]*\b(sh|bash|zsh|dash|ksh)\s+-c\b`)

// TestG16_XargsRunsShellAsRegexp checks xargsRunsShell against the
// regular expression it replaces.
func TestG16_XargsRunsShellAsRegexp(t *testing.T) {
	for _, s := range xargsSeeds {
		if got, want := judge.XargsRunsShell(s), xargsShell.MatchString(s); got != want {
			t.Errorf("xargsRunsShell(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}

var xargsSeeds = []string{
	"find . | xargs sh -c 'rm $0'", "ls | xargs -I{} bash -c 'echo {}'", "xargs /bin/zsh  -c x",
	"xargs -n1 gofmt -l", "xargs sh", "xargs sh -cx", "xargs sh -c", "gxargs sh -c x", "xargs_ sh -c",
	"xargs; sh -c x", "xargs | sh -c x", "xargs echo && bash -c x", "xargs bash\n-c x", "xargs fish -c x",
	"xargs dash -c", "xargs ksh\t-c'x'", "xargs -0 sh -c", "xargs xargs sh -c", "echo xargs sh -c",
	"find . -name '*.go' -not -path './vendor/*' | xargs grep -n 'TODO' | head -50", "", "xargs",
	"xargs ssh -c", "xargs bashsh -c", "xargs -sh -c", "xargs sh  -c -c", "xargs  sh\r-c",
}

// FuzzXargsRunsShell checks xargsRunsShell against the regular
// expression on any script.
func FuzzXargsRunsShell(f *testing.F) {
	for _, s := range xargsSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := judge.XargsRunsShell(s), xargsShell.MatchString(s); got != want {
			t.Fatalf("xargsRunsShell(%q) = %v, the regexp says %v", s, got, want)
		}
	})
}
