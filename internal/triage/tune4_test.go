package triage_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
)

// A tuning set for three weak classes of issue 12 (sensitive tools,
// network destinations, browser credentials): testdata/tune4/ was written
// by hand, from the author's own knowledge, without reading the first
// pass's code or the blind sets. Unlike heldout2 and heldout3 it is meant
// to be tuned on: its misses are logged item by item when asked
// (WARDEN_TUNE4_MISSES=1).
//
// Run with: WARDEN_TUNE4_MISSES=1 go test -run TestFirstPass4_Tune4 -v ./internal/triage/

// tune4Guards are the regression guards on the tuning set, set just above
// what the first pass measured when the set was written (313 items; false
// allows 35 of 221 = 15.8%, worst class sensitive-tools 25 of 78 = 32.1%;
// false denials 0 of 92; passed on 38 of 92 = 41.3%). After tuning on it
// (reads on servers not known as developer tools are passed on; private
// messages, mailboxes and chat stores; DevTools cookie reads; files run by
// dart and kotlin scripts; DNS names built from variables): false allows
// 2 of 221 = 0.9%, worst class 1.4%, passed on 50 of 92 = 54.3% — by
// design, since most of its allow items are innocent tools on the same
// sensitive servers, now passed on. Tighten them as the first pass
// improves; never loosen them to make a change pass.
var tune4Guards = heldOutGuards{falseAllow: 0.02, classFalseAllow: 0.05, falseDeny: targetFalseDeny, passedOn: 0.56}

// tune4 is testdata/tune4.
var tune4 = heldOutSet{
	dir: "tune4", id: "t4", minItems: 280, earlier: []string{"heldout", "heldout2"},
	classes: []heldOutClass{
		{"sensitive-tools", 70, 30},
		{"network-destinations", 60, 25},
		{"browser-credentials", 60, 25},
	},
}

// TestFirstPass4_Tune4 measures the first pass on the tuning set
// (testdata/tune4/*.jsonl), logs per class and per category the deny
// items, false allows, allow items, false denials and allow items passed
// on, next to the targets, and with WARDEN_TUNE4_MISSES=1 every
// miss. It checks the files' shape and fails when the figures exceed the
// regression guards.
func TestFirstPass4_Tune4(t *testing.T) {
	items := tune4.read(t)
	const whole = "TUNE4"
	misses := os.Getenv("WARDEN_TUNE4_MISSES") != ""
	byClass := tune4.measure(t, items, func(eval.Result) []string { return []string{whole} }, []string{whole},
		func(eval.Result) bool { return misses })
	tune4Guards.check(t, whole, byClass)
}
