package triage

import (
	"regexp"
	"testing"

	"github.com/wardenhq/warden/internal/triage/pattern"
)

// TestLazyRegexpsCompile compiles every pattern the first pass compiles on
// first use, so that a bad one fails here, not in a judgment.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, l := range []*pattern.Regexp{accessRule, adminGroups, assignment, awkRuns, awkWrites, blockOpen, cloudReadVerb,
		credentialPattern, exprAssign, fileRefs, pkgVersion, protectionOff, resourceBlock,
		sedWrites, sharedBranch, spacedSetting, sqlDestroy, sqlRead, sqlWrite, ssnLike, tlsDirective,
		xargsShell} {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
		}
	}
}
