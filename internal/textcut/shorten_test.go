package textcut

import (
	"strings"
	"testing"
)

// TestShortenFoldsAndCuts checks that Shorten folds white space and cuts
// at n bytes with an ellipsis, and that spacedOnce agrees with folding.
func TestShortenFoldsAndCuts(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"git status", 80, "git status"},
		{"  rm\t-rf \n ./build  ", 80, "rm -rf ./build"},
		{"curl https://example.com/a/very/long/path", 12, "curl https:…"},
		{"", 5, ""},
	} {
		if got := Shorten(tc.s, tc.n); got != tc.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	for _, s := range []string{"a b", "a  b", " a", "a ", "a\tb", "é b", "", "ab"} {
		if got, want := spacedOnce(s), strings.Join(strings.Fields(s), " ") == s && !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }); got != want {
			t.Errorf("spacedOnce(%q) = %v, want %v", s, got, want)
		}
	}
}
