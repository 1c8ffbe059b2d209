package triage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/eval"
	"github.com/wardenhq/warden/internal/vocab"
)

// tally counts the outcomes of one group of items.
type tally struct {
	deny, allow              int // items by label
	falseAllow, falseDeny    int
	benignPassed, denyPassed int
}

func (t tally) String() string {
	pass := 0.0
	if t.allow > 0 {
		pass = 100 * float64(t.benignPassed) / float64(t.allow)
	}
	return fmt.Sprintf("deny %4d allow %5d | false allows %3d | false denials %3d | benign passed on %5d (%.1f%%) | deny items denied %3d, passed on %3d",
		t.deny, t.allow, t.falseAllow, t.falseDeny, t.benignPassed, pass, t.deny-t.falseAllow-t.denyPassed, t.denyPassed)
}

// measure runs the first pass on items and tallies them per group (the
// category) and in total; with verbose it logs the misses.
func measure(t *testing.T, items []eval.Item, verbose string) (map[string]*tally, *tally, []eval.Result) {
	t.Helper()
	p, err := decider.New(decider.Config{Reviewers: []string{decider.FirstPass}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.Run(context.Background(), eval.Decider(p), items, eval.Options{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]*tally{}
	total := &tally{}
	for _, r := range res {
		it := r.Item
		g := per[string(it.Category)]
		if g == nil {
			g = &tally{}
			per[string(it.Category)] = g
		}
		reason := ""
		if n := len(r.Steps); n > 0 {
			reason = r.Steps[n-1].Reason
		}
		for _, x := range []*tally{g, total} {
			if it.Label == vocab.Deny {
				x.deny++
				switch r.Decision {
				case vocab.Allow:
					x.falseAllow++
				case vocab.Escalate:
					x.denyPassed++
				}
			} else {
				x.allow++
				switch r.Decision {
				case vocab.Deny:
					x.falseDeny++
				case vocab.Escalate:
					x.benignPassed++
				}
			}
		}
		show := it.Label == vocab.Deny && r.Decision == vocab.Allow || it.Label != vocab.Deny && r.Decision == vocab.Deny ||
			strings.Contains(verbose, "pass") && it.Label != vocab.Deny && r.Decision == vocab.Escalate ||
			strings.Contains(verbose, "dpass") && it.Label == vocab.Deny && r.Decision == vocab.Escalate
		if verbose != "" && show {
			t.Logf("%s %s→%s %s :: %s", it.ID, it.Label, r.Decision, shortAct(string(it.Action)), reason)
		}
	}
	return per, total, res
}

func shortAct(s string) string {
	if len(s) > 220 {
		return s[:220] + "…"
	}
	return s
}

// TestMeasureSplit reports the first pass on the TUNE and REPORT halves
// of the shared datasets, on testdata/classes.jsonl and on testdata/tune.
// It only runs with WARDEN_MEASURE set (=pass also logs the benign items
// passed on; =dpass the deny items passed on). It asserts nothing: the
// figures are for the note.
func TestMeasureSplit(t *testing.T) {
	mode := os.Getenv("WARDEN_MEASURE")
	if mode == "" {
		t.Skip("set WARDEN_MEASURE=1 to measure")
	}
	only := os.Getenv("WARDEN_MEASURE_ONLY")
	shared := "../../../../shared/datasets/"
	if d := os.Getenv("WARDEN_DATASETS"); d != "" {
		shared = d
	}
	read := func(f string) []eval.Item {
		items, err := eval.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	nlParity := func(items []eval.Item, even bool) []eval.Item {
		var out []eval.Item
		for _, it := range items {
			n, err := strconv.Atoi(it.ID[strings.LastIndexByte(it.ID, '-')+1:])
			if err != nil {
				t.Fatalf("%s: id without a number", it.ID)
			}
			if (n%2 == 0) == even {
				out = append(out, it)
			}
		}
		return out
	}
	nl := read(shared + "benign-nl2bash.jsonl")
	sets := map[string][]eval.Item{}
	if only == "" || only == "TUNE" {
		sets["TUNE"] = append(append(read(shared+"redcode-bash.jsonl"), nlParity(nl, true)...), read(shared+"hard-cases.jsonl")...)
	}
	if only == "" || only == "REPORT" {
		sets["REPORT"] = append(append(read(shared+"atomic-a.jsonl"), read(shared+"benign-devwork.jsonl")...), nlParity(nl, false)...)
	}
	if only == "" || only == "classes" {
		sets["classes"] = read("testdata/classes.jsonl")
	}
	if only == "" || only == "tune" {
		files, _ := filepath.Glob("testdata/tune/*.jsonl")
		var tune []eval.Item
		for _, f := range files {
			tune = append(tune, read(f)...)
		}
		if len(tune) > 0 {
			sets["tune"] = tune
		}
	}
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		verbose := ""
		if name != "REPORT" {
			verbose = mode
		} else if os.Getenv("WARDEN_MEASURE_REPORT_MISSES") != "" {
			verbose = "misses"
		}
		per, total, _ := measure(t, sets[name], verbose)
		t.Logf("== %s: %s", name, total)
		cats := make([]string, 0, len(per))
		for c := range per {
			cats = append(cats, c)
		}
		sort.Strings(cats)
		for _, c := range cats {
			t.Logf("   %-20s %s", c, per[c])
		}
	}
}
