package protection

import (
	"regexp"
	"testing"

	"github.com/wardenhq/warden/internal/triage/pattern"
)

// TestPatternsCompile compiles the patterns of this package, which are
// compiled on first use, so that a bad one fails here, not in a judgment.
func TestPatternsCompile(t *testing.T) {
	for _, l := range []*pattern.Regexp{accessRule, assignment, blockOpen, exprAssign, protectionOff, resourceBlock,
		spacedSetting, ssnLike, tlsDirective} {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
		}
	}
}
