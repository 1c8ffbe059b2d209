package main

import (
	"bytes"
	"os"
	"testing"
)

// TestFirstPass1_GeneratedFileCurrent fails when programs_gen.go is not
// what gen writes for programs.yaml: run `go generate ./internal/triage`.
func TestFirstPass1_GeneratedFileCurrent(t *testing.T) {
	data, err := os.ReadFile("../programs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../judge/programs_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/triage/judge/programs_gen.go is not current: run go generate ./internal/triage")
	}
}

// TestFirstPass1_GenRejectsBadInput checks that gen reports a file it
// cannot turn into tables instead of writing a wrong one.
func TestFirstPass1_GenRejectsBadInput(t *testing.T) {
	for _, bad := range []string{
		"version: 1\nprograms: {a: b}\n",
		"version: 1\nprograms:\n  - names: [x]\n    network: maybe\n",
		"version: 1\nextra: 1\n",
		"programs: [\n",
	} {
		if _, err := generate([]byte(bad)); err == nil {
			t.Errorf("generate(%q) = nil error", bad)
		}
	}
}
