package autoreview

import (
	"strings"
	"testing"
)

// FuzzG6_VerdictNonce: a verdict read with a required nonce carries it
// (SPEC G6).
func FuzzG6_VerdictNonce(f *testing.F) {
	const nonce = "K7QW2M4XZR5TB3NV6YHJ8CPLDE"
	for _, s := range []string{
		`{"outcome":"allow","nonce":"` + nonce + `"}`,
		`{"outcome":"allow","nonce":"OTHER"}`,
		`{"outcome":"allow"}`,
		`{"outcome":"allow","nonce":"` + nonce + `","nonce":"x"}`,
		`{"outcome":"allow","Nonce":"` + nonce + `"}`,
		`{"outcome":"allow","nonce":["` + nonce + `"]}`,
		`{"outcome":"allow","x":{"nonce":"` + nonce + `"}}`,
	} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, required bool) {
		if _, err := parseVerdict(text, nonce, required); err != nil {
			return
		}
		if required && !strings.Contains(text, nonce) && !strings.Contains(text, `\u`) {
			t.Fatalf("%q read without the nonce", text)
		}
	})
}

// TestG6_OptionalNonce: a JSON answer may leave the nonce out, but one with
// another nonce at its top level is no answer.
func TestG6_OptionalNonce(t *testing.T) {
	const nonce = "K7QW2M4XZR5TB3NV6YHJ8CPLDE"
	for text, ok := range map[string]bool{
		`{"outcome":"deny"}`:                          true,
		`{"outcome":"deny","nonce":"` + nonce + `"}`:  true,
		`{"outcome":"allow","nonce":"OTHER"}`:         false,
		`{"outcome":"allow","nonce":null}`:            false,
		`{"outcome":"allow","NONCE":"` + nonce + `"}`: false,
	} {
		if _, err := parseVerdict(text, nonce, false); (err == nil) != ok {
			t.Errorf("%s: err %v, want read %v", text, err, ok)
		}
	}
}
