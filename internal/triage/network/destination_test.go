package network

import (
	"regexp"
	"testing"

	"github.com/wardenhq/warden/internal/triage/pattern"
)

// TestPatternsCompile compiles the patterns of this package, which are
// compiled on first use, so that a bad one fails here, not in a judgment.
func TestPatternsCompile(t *testing.T) {
	for _, l := range []*pattern.Regexp{encodedRun} {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
		}
	}
}

// TestG15_Destinations checks what the first pass reads as a network
// destination: local hosts, hosts of URLs, raw addresses, metadata
// endpoints and the data a URL carries.
func TestG15_Destinations(t *testing.T) {
	for _, tc := range []struct {
		h     string
		local bool
		raw   bool
		meta  bool
	}{
		{"localhost", true, false, false},
		{"127.0.0.1", true, false, false},
		{"10.0.0.5", false, false, false},
		{"::1", true, false, false},
		{"169.254.169.254", false, true, true},
		{"metadata.google.internal", false, false, true},
		{"example.com", false, false, false},
		{"203.0.113.9", false, true, false},
	} {
		if got := Local(tc.h); got != tc.local {
			t.Errorf("Local(%q) = %v, want %v", tc.h, got, tc.local)
		}
		if got := RawIP(tc.h); got != tc.raw {
			t.Errorf("RawIP(%q) = %v, want %v", tc.h, got, tc.raw)
		}
		if got := MetadataHost(tc.h); got != tc.meta {
			t.Errorf("MetadataHost(%q) = %v, want %v", tc.h, got, tc.meta)
		}
	}
	if h, ok := URLHost("https://api.example.com/v1?q=1"); !ok || h != "api.example.com" {
		t.Errorf("URLHost = %q, %v; want api.example.com", h, ok)
	}
	if h, port, _, ok := Dest("deploy@203.0.113.5:2222", true); !ok || h != "203.0.113.5" {
		t.Errorf("Dest = %q %q %v; want 203.0.113.5", h, port, ok)
	}
}
