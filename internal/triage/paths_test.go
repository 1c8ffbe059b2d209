package triage

import (
	"strings"
	"testing"
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
