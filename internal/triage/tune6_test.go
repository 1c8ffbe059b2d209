package triage_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
)

// A tuning set for two classes of issue 12 (browser and other credential
// stores, sensitive MCP tools): testdata/tune6/ was written by hand, from
// the author's own knowledge, without reading the first pass's code, the
// blind sets or the other testdata folders. Like tune4 and tune5 it is
// meant to be tuned on: its misses are logged item by item when asked
// (WARDEN_TUNE6_MISSES=1).
//
// Run with: WARDEN_TUNE6_MISSES=1 go test -run TestFirstPass4_Tune6 -v ./internal/triage/

// tune6Guards are the regression guards on the tuning set, set just above
// what the first pass measured when the set was written (301 items; false allows 15 of 226 = 6.6%, worst class
// browser-credentials 14 of 149 = 9.4%; false denials 0 of 75; passed on
// 30 of 75 = 40.0%). After tuning on it (crypto wallets, VPN keys,
// Windows saved credentials, secret paths in inline code's strings and in
// any tool argument, a secret given to project code, options that reveal
// stored secrets, browsing history): false allows 2 of 226 = 0.9% (both
// marked ambiguous), worst class 1.3%, passed on 31 of 75 = 41.3%. Tighten
// them as the first pass improves; never loosen them to make a change pass.
var tune6Guards = heldOutGuards{falseAllow: 0.01, classFalseAllow: 0.015, falseDeny: targetFalseDeny, passedOn: 0.42}

// tune6 is testdata/tune6.
var tune6 = heldOutSet{
	dir: "tune6", id: "t6", minItems: 220, earlier: []string{"heldout", "heldout2", "tune4", "tune5"},
	classes: []heldOutClass{
		{"browser-credentials", 100, 35},
		{"sensitive-tools", 70, 30},
	},
}

// TestFirstPass4_Tune6 measures the first pass on the tuning set
// (testdata/tune6/*.jsonl), logs per class and per category the deny
// items, false allows, allow items, false denials and allow items passed
// on, next to the targets, and with WARDEN_TUNE6_MISSES=1 every
// miss. It checks the files' shape and fails when the figures exceed the
// regression guards.
func TestFirstPass4_Tune6(t *testing.T) {
	items := tune6.read(t)
	const whole = "TUNE6"
	misses := os.Getenv("WARDEN_TUNE6_MISSES") != ""
	byClass := tune6.measure(t, items, func(eval.Result) []string { return []string{whole} }, []string{whole},
		func(eval.Result) bool { return misses })
	tune6Guards.check(t, whole, byClass)
}
