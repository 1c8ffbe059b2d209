package triage

import (
	"regexp"
	"testing"

	"github.com/wardenhq/warden/internal/triage/pattern"
)

// TestLazyRegexpsCompile compiles every pattern the first pass compiles on
// first use, so that a bad one fails here, not in a judgment.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, l := range []*pattern.Regexp{adminGroups, awkRuns, awkWrites, cloudReadVerb,
		credentialPattern, fileRefs, pkgVersion,
		sedWrites, sharedBranch, sqlDestroy, sqlRead, sqlWrite,
		xargsShell} {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
		}
	}
}
