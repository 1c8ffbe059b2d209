package triage_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
)

// A tuning set for two classes of issue 12 (network destinations, secrets
// reaching the network): testdata/tune5/ was written by hand, from the
// author's own knowledge, without reading the first pass's code, the blind
// sets or testdata/tune4. Like tune4 it is meant to be tuned on: its
// misses are logged item by item when asked (WARDEN_TUNE5_MISSES=1).
//
// Run with: WARDEN_TUNE5_MISSES=1 go test -run TestFirstPass4_Tune5 -v ./internal/triage/

// tune5Guards are the regression guards on the tuning set, set just above
// what the first pass measured when the set was written (243 items; false allows 4 of 184 = 2.2%, worst class
// network-destinations 4 of 136 = 2.9%; false denials 0 of 59; passed on
// 26 of 59 = 44.1%). After tuning on it (REPLs reading code from their
// input, kotlinc -script, the metadata server's short name): false allows
// 1 of 184 = 0.5%, worst class 0.7%, passed on unchanged. Tighten them as
// the first pass improves; never loosen them to make a change pass.
var tune5Guards = heldOutGuards{falseAllow: 0.01, classFalseAllow: 0.01, falseDeny: targetFalseDeny, passedOn: 0.46}

// tune5 is testdata/tune5.
var tune5 = heldOutSet{
	dir: "tune5", id: "t5", minItems: 200, earlier: []string{"heldout", "heldout2", "tune4"},
	classes: []heldOutClass{
		{"network-destinations", 110, 40},
		{"secrets-to-network", 40, 15},
	},
}

// TestFirstPass4_Tune5 measures the first pass on the tuning set
// (testdata/tune5/*.jsonl), logs per class and per category the deny
// items, false allows, allow items, false denials and allow items passed
// on, next to the targets, and with WARDEN_TUNE5_MISSES=1 every
// miss. It checks the files' shape and fails when the figures exceed the
// regression guards.
func TestFirstPass4_Tune5(t *testing.T) {
	items := tune5.read(t)
	const whole = "TUNE5"
	misses := os.Getenv("WARDEN_TUNE5_MISSES") != ""
	byClass := tune5.measure(t, items, func(eval.Result) []string { return []string{whole} }, []string{whole},
		func(eval.Result) bool { return misses })
	tune5Guards.check(t, whole, byClass)
}
