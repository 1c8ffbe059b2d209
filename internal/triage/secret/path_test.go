package secret

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/triage/pattern"
)

// Every browser profile folder the first pass knows passes its quick
// pre-check: a folder the pre-check forgot would never be seen (G15).
func TestG15_EveryBrowserProfileIsLookedAt(t *testing.T) {
	for _, d := range browserProfiles {
		p := "/home/u/" + strings.TrimPrefix(d, "/") + "/default/cookies"
		if !browserProfile(p) {
			t.Errorf("%s: not seen as a browser profile", p)
		}
	}
}

// TestPatternsCompile compiles the patterns of secrets in text, which are
// compiled on first use, so that a bad one fails here, not in a judgment.
func TestPatternsCompile(t *testing.T) {
	for _, l := range []*pattern.Regexp{criticalSecret, sensitiveSecret} {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
		}
	}
}
