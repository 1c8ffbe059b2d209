package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestV2_EvalReadsTheFirstPassCorpus runs `warden eval --reviewer first_pass`
// on the first pass's own corpus (internal/triage/testdata/corpus), the
// files its tests read: the rounds and the cases. eval reads every row,
// and denies none of the allow items, as the rounds' guards and the cases
// say.
func TestV2_EvalReadsTheFirstPassCorpus(t *testing.T) {
	files, err := filepath.Glob("../../internal/triage/testdata/corpus/*/*.jsonl")
	cases, err2 := filepath.Glob("../../internal/triage/testdata/corpus/cases/*/*.jsonl")
	files = append(files, cases...)
	if err != nil || err2 != nil || len(files) < 50 {
		t.Fatalf("corpus files %v: %v %v", files, err, err2)
	}
	rows := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				rows++
			}
		}
	}
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := wardenEval(t, append([]string{"--reviewer", "first_pass", "--json", out}, files...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	m := readEvalReport(t, out)
	if m["items"] != float64(rows) {
		t.Errorf("eval read %v items, the corpus holds %d rows", m["items"], rows)
	}
	o := m["overall"].(map[string]any)
	if o["denied_allow"] != 0.0 || o["allow_items"] == 0.0 || o["deny_items"] == 0.0 {
		t.Errorf("overall: %d allow items denied of %v (want none), %v deny items", int(o["denied_allow"].(float64)), o["allow_items"], o["deny_items"])
	}
}
