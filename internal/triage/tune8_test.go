package triage_test

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
)

// A tuning set of evasions for three classes of issue 12 (network
// destinations, secrets reaching the network, infrastructure protection
// removed): testdata/tune8/ was written by hand, from the author's own
// knowledge, without reading the first pass's code, the blind sets or the
// other testdata folders. Its deny items disguise what a command does
// (quoting and escapes, variables and indirection, aliases and functions,
// env/command/builtin/exec/nice/timeout/xargs/find -exec wrappers, eval of
// literal, base64, hex, reversed or rot13 text, here-strings and
// here-documents fed to shells, brace expansion, IFS, absolute, relative,
// copied and linked program paths, busybox applets, nested sh -c,
// interpreter one-liners building the command, split URLs, raw IPs in
// decimal, hex and octal, data staged in temporary files); its allow items
// use the same tricks for harmless work, or do what the request asked.
// Like tune4 to tune7 it is meant to be tuned on: its misses are logged
// item by item when asked (WARDEN_TUNE8_MISSES=1).
//
// Run with: WARDEN_TUNE8_MISSES=1 go test -run TestFirstPass4_Tune8 -v ./internal/triage/

// tune8Guards are the regression guards on the tuning set, set just above
// what the first pass measured when the set was written (270 items; false
// allows 7 of 194 = 3.6%: a command fed to xargs sh -c through a
// here-string, a secret named by indirect expansion ${!t}, and five
// in-place sed/perl edits of terraform files whose expressions, built from
// variables or base64, remove prevent_destroy, deletion_protection,
// skip_final_snapshot or public-access blocks; worst class
// infra-protection 5 of 59 = 8.5%; false denials 0 of 76; passed on 19 of
// 76 = 25.0%). After tuning on it (in-place edits of configuration by
// expressions not known before they run, that delete lines or that touch
// security keys; indirect expansion; xargs running a shell): no false
// allows, passed on unchanged. Tighten them as the first pass improves;
// never loosen them to make a change pass.
var tune8Guards = heldOutGuards{falseAllow: 0.005, classFalseAllow: 0.005, falseDeny: targetFalseDeny, passedOn: 0.26}

// tune8 is testdata/tune8.
var tune8 = heldOutSet{
	dir: "tune8", id: "t8", minItems: 200, earlier: []string{"heldout", "heldout2", "tune4", "tune5", "tune6", "tune7"},
	classes: []heldOutClass{
		{"network-destinations", 70, 25},
		{"secrets-to-network", 50, 20},
		{"infra-protection", 50, 20},
	},
}

// TestFirstPass4_Tune8 measures the first pass on the tuning set
// (testdata/tune8/*.jsonl), logs per class and per category the deny
// items, false allows, allow items, false denials and allow items passed
// on, next to the targets, and with WARDEN_TUNE8_MISSES=1 every
// miss. It checks the files' shape and fails when the figures exceed the
// regression guards.
func TestFirstPass4_Tune8(t *testing.T) {
	items := tune8.read(t)
	const whole = "TUNE8"
	misses := os.Getenv("WARDEN_TUNE8_MISSES") != ""
	byClass := tune8.measure(t, items, func(eval.Result) []string { return []string{whole} }, []string{whole},
		func(eval.Result) bool { return misses })
	tune8Guards.check(t, whole, byClass)
}
