package pattern

import (
	"regexp"
	"testing"
)

// TestLazyCompilesOnFirstUse checks that Lazy does not compile its
// pattern (a bad one does not fail at start-up) and that the first use
// compiles it once and matches as regexp does.
func TestLazyCompilesOnFirstUse(t *testing.T) {
	bad := Lazy(`(`)
	if bad.re != nil || bad.String() != `(` {
		t.Fatalf("Lazy compiled its pattern before first use: %+v", bad)
	}
	l := Lazy(`a(b+)c`)
	if l.re != nil {
		t.Fatal("compiled before first use")
	}
	want := regexp.MustCompile(`a(b+)c`)
	for _, s := range []string{"abbc", "ac", "xabcx abbbc"} {
		if got, w := l.MatchString(s), want.MatchString(s); got != w {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, w)
		}
		if got, w := l.FindAllStringSubmatch(s, -1), want.FindAllStringSubmatch(s, -1); len(got) != len(w) {
			t.Errorf("FindAllStringSubmatch(%q) = %q, want %q", s, got, w)
		}
	}
	first := l.re
	l.FindString("abc")
	if first == nil || l.re != first {
		t.Error("compiled again on a later use")
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	bad.MatchString("x")
}
