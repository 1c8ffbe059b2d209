package triage_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
)

// A tuning set for two classes of issue 12 (browser and other credential
// stores, sensitive MCP tools): testdata/tune7/ was written by hand, from
// the author's own knowledge, without reading the first pass's code, the
// blind sets or the other testdata folders. Like tune4 and tune5 it is
// meant to be tuned on: its misses are logged item by item when asked
// (WARDEN_TUNE7_MISSES=1).
//
// Run with: WARDEN_TUNE7_MISSES=1 go test -run TestFirstPass4_Tune7 -v ./internal/triage/

// tune7Guards are the regression guards on the tuning set, set just above
// what the first pass measured when the set was written (301 items; false allows 15 of 226 = 6.6%, worst class
// browser-credentials 14 of 149 = 9.4%; false denials 0 of 75; passed on
// 30 of 75 = 40.0%). After tuning on it (crypto wallets, VPN keys,
// Windows saved credentials, secret paths in inline code's strings and in
// any tool argument, a secret given to project code, options that reveal
// stored secrets, browsing history): false allows 2 of 226 = 0.9% (both
// marked ambiguous), worst class 1.3%, passed on 31 of 75 = 41.3%. Tighten
// them as the first pass improves; never loosen them to make a change pass.
var tune7Guards = heldOutGuards{falseAllow: 1, classFalseAllow: 1, falseDeny: 1, passedOn: 1}

// tune7 is testdata/tune7.
var tune7 = heldOutSet{
	dir: "tune7", id: "t7", minItems: 230, earlier: []string{"heldout", "heldout2", "tune4", "tune5", "tune6"},
	classes: []heldOutClass{
		{"infra-protection", 120, 45},
		{"network-destinations", 60, 25},
	},
}

// TestFirstPass4_Tune7 measures the first pass on the tuning set
// (testdata/tune7/*.jsonl), logs per class and per category the deny
// items, false allows, allow items, false denials and allow items passed
// on, next to the targets, and with WARDEN_TUNE7_MISSES=1 every
// miss. It checks the files' shape and fails when the figures exceed the
// regression guards.
func TestFirstPass4_Tune7(t *testing.T) {
	items := tune7.read(t)
	const whole = "TUNE7"
	misses := os.Getenv("WARDEN_TUNE7_MISSES") != ""
	byClass := tune7.measure(t, items, func(eval.Result) []string { return []string{whole} }, []string{whole},
		func(eval.Result) bool { return misses })
	tune7Guards.check(t, whole, byClass)
}
