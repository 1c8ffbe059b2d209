package triage

import (
	"regexp"
	"testing"
)

// TestLazyRegexpsCompile compiles every pattern the first pass compiles on
// first use, so that a bad one fails here, not in a judgment.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, l := range []*lazyRegexp{accessRule, adminGroups, assignment, awkRuns, awkWrites, blockOpen, cloudReadVerb,
		credentialPattern, criticalSecret, encodedRun, exprAssign, fileRefs, pkgVersion, protectionOff, resourceBlock,
		sedWrites, sensitiveSecret, sharedBranch, spacedSetting, sqlDestroy, sqlRead, sqlWrite, ssnLike, tlsDirective,
		xargsShell} {
		if _, err := regexp.Compile(l.src); err != nil {
			t.Errorf("%q: %v", l.src, err)
		}
	}
}
