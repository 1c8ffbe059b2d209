package shell

import (
	"strings"
	"testing"
)

// naiveTreeMatters is treeMatters' definition, one search at a time.
func naiveTreeMatters(src string) bool {
	if strings.ContainsAny(src, "#([{=") {
		return true
	}
	for _, w := range []string{"let", "local", "read", "printf", "mapfile", "getopts", "for", "select", "declare", "typeset", "export", "nameref"} {
		if strings.Contains(src, w) {
			return true
		}
	}
	return false
}

// FuzzTreeMatters checks that the one-pass filter of scanTree agrees with
// its definition: a tree character or one of the words anywhere in src.
func FuzzTreeMatters(f *testing.F) {
	for _, s := range []string{"cd src && git status | head -5; go test ./... || echo fail", "a=1", "ls # x", "le", "l",
		"typeset", "xexport", "EXPORT", "ex", "for", "fo", "nameref", "readarray x", "pr", "printf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := treeMatters(s), naiveTreeMatters(s); got != want {
			t.Fatalf("treeMatters(%q) = %v, want %v", s, got, want)
		}
	})
}
