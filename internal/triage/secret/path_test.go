package secret

import (
	"regexp"
	"slices"
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

// TestG15_VarRefs checks the variables a word's source text references,
// and those of them named like secrets.
func TestG15_VarRefs(t *testing.T) {
	for _, tc := range []struct {
		text       string
		refs, vars []string
	}{
		{`curl -H "Authorization: $GITHUB_TOKEN" $URL`, []string{"GITHUB_TOKEN", "URL"}, []string{"GITHUB_TOKEN"}},
		{`${AWS_SECRET_ACCESS_KEY}x$HOME/$1$$`, []string{"AWS_SECRET_ACCESS_KEY", "HOME"}, []string{"AWS_SECRET_ACCESS_KEY"}},
		{`$ $9A ${} $_a1 $SSH_AUTH_SOCK`, []string{"_a1", "SSH_AUTH_SOCK"}, nil},
		{`no variables`, nil, nil},
	} {
		var refs []string
		for n := range VarRefs(tc.text) {
			refs = append(refs, n)
		}
		if !slices.Equal(refs, tc.refs) {
			t.Errorf("VarRefs(%q) = %q, want %q", tc.text, refs, tc.refs)
		}
		if got := Vars(tc.text); !slices.Equal(got, tc.vars) {
			t.Errorf("Vars(%q) = %q, want %q", tc.text, got, tc.vars)
		}
	}
}

// FuzzVarRefs checks that every name VarRefs yields is a variable name
// that follows a $ or ${ in the text, and that Vars keeps those named
// like secrets, in order.
func FuzzVarRefs(f *testing.F) {
	for _, s := range []string{`$A ${B}`, `$GITHUB_TOKEN`, `${`, `$`, `x$1y`, "$\xff$ü$_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var secret []string
		for n := range VarRefs(text) {
			if n == "" || !IsNameByte(n[0], false) || !strings.Contains(text, "$"+n) && !strings.Contains(text, "${"+n) {
				t.Fatalf("VarRefs(%q) yields %q", text, n)
			}
			if IsVarName(n) {
				secret = append(secret, n)
			}
		}
		if got := Vars(text); !slices.Equal(got, secret) {
			t.Fatalf("Vars(%q) = %q, want %q", text, got, secret)
		}
	})
}
