package effects_test

import (
	"strconv"
	"testing"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/triage/effects"
)

// BenchmarkG17_Review measures what the first pass adds to a dry run:
// judging a report of a build (200 files created and changed in the
// workspace, 20 programs, 5 names looked up) and summarising it.
func BenchmarkG17_Review(b *testing.B) {
	var r effect.Report
	for i := range 200 {
		r.Creates = append(r.Creates, "/home/ann/proj/build/obj"+strconv.Itoa(i)+".o")
		r.Writes = append(r.Writes, "/home/ann/proj/src/f"+strconv.Itoa(i)+".go")
	}
	for i := range 20 {
		r.Execs = append(r.Execs, effect.Exec{Path: "/usr/bin/cc", Argv: []string{"cc", "-c", "f" + strconv.Itoa(i) + ".c"}})
	}
	for i := range 5 {
		r.Network = append(r.Network, effect.Dest{Op: "lookup", Name: "mirror" + strconv.Itoa(i) + ".example"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if out := effects.Review(r, env, 0); out.Deny {
			b.Fatal(out.Harm)
		}
	}
}
