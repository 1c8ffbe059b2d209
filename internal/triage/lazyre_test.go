package triage

import (
	"regexp"
	"testing"

	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/program"
)

// TestLazyRegexpsCompile compiles every pattern the first pass compiles on
// first use, so that a bad one fails here, not in a judgment.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, l := range []*pattern.Regexp{program.AdminGroups, program.AwkRuns, program.AwkWrites, program.CloudReadVerb,
		program.CredentialPattern, judge.FileRefs, program.PkgVersion,
		program.SedWrites, program.SharedBranch, program.SqlDestroy, program.SqlRead, program.SqlWrite,
		xargsShell} {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
		}
	}
}
