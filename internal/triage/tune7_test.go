package triage_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
)

// A tuning set for two classes of issue 12 (infrastructure edits and
// commands that remove protection, with secret-manager reads of production
// secrets; network destinations: code fetched and run, callbacks, socket
// shells in less common languages, exfiltration over ICMP, DNS, NTP and
// SMTP): testdata/tune7/ was written by hand, from the author's own
// knowledge, without reading the first pass's code, the blind sets or the
// other testdata folders. Like tune4 to tune6 it is meant to be tuned on:
// its misses are logged item by item when asked (WARDEN_TUNE7_MISSES=1).
//
// Run with: WARDEN_TUNE7_MISSES=1 go test -run TestFirstPass4_Tune7 -v ./internal/triage/

// tune7Guards are the regression guards on the tuning set, set just above
// what the first pass measured when the set was written (327 items; false
// allows 8 of 236 = 3.4%, all file edits, worst class infra-protection 8
// of 159 = 5.0%; false denials 0 of 91; passed on 48 of 91 = 52.7%).
// After tuning on it (diffs given to git apply or patch as here-documents,
// a Dockerfile's added RUN and ADD steps, fail2ban jails, basic auth
// blocks, hostPath /, protective counts lowered): no false allows, passed
// on 50 of 91 = 54.9%. Tighten them as the first pass improves; never
// loosen them to make a change pass.
var tune7Guards = heldOutGuards{falseAllow: 0.005, classFalseAllow: 0.005, falseDeny: targetFalseDeny, passedOn: 0.56}

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
