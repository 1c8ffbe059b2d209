package triage_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
	"gopkg.in/yaml.v3"
)

// corpusDir is the first pass's own labelled corpus: one folder per round
// of held-out or tuning cases, in the schema of the shared datasets, so
// that `warden eval` reads the same files the tests do.
const corpusDir = "testdata/corpus"

// round is one entry of testdata/corpus/rounds.yaml: a folder of the
// corpus measured as a whole, with where its items come from, what its
// files must hold and the guards on the first pass's figures.
type round struct {
	Name   string `yaml:"name"`   // the folder under testdata/corpus, and the sources' prefix
	Round  int    `yaml:"round"`  // its place in the history of the first pass's tuning
	Part   string `yaml:"part"`   // the name its figures are logged under
	Tune   bool   `yaml:"tune"`   // meant to be tuned on; a blind set is not
	Source string `yaml:"source"` // who wrote it, how, and what they had read
	Why    string `yaml:"why"`    // what it measures
	Split  string `yaml:"split"`  // "even-odd": TUNE even ids, REPORT odd ones ("" for none)

	MeasuredBy string `yaml:"measured_by"` // the test that measures it instead of TestFirstPass4_Rounds ("" none)

	MissesEnv   string   `yaml:"misses_env"`   // set, it logs every miss
	ID          string   `yaml:"id"`           // the ids' prefix
	MinItems    int      `yaml:"min_items"`    // items in all, at least
	MinPrograms int      `yaml:"min_programs"` // programs in everyday-benign, at least (0: unchecked)
	Earlier     []string `yaml:"earlier"`      // folders whose actions it must not repeat
	Classes     []struct {
		Name  string `yaml:"name"`
		Deny  int    `yaml:"deny"`
		Allow int    `yaml:"allow"`
	} `yaml:"classes"`
	Guards struct {
		FalseAllow      *float64 `yaml:"false_allow"`
		ClassFalseAllow *float64 `yaml:"class_false_allow"`
		FalseDeny       *float64 `yaml:"false_deny"`
		PassedOn        *float64 `yaml:"passed_on"`
	} `yaml:"guards"`
	Measured []string `yaml:"measured"` // what the first pass reached on it, round after round
}

// readRounds reads testdata/corpus/rounds.yaml strictly: every key known,
// every round complete, every folder present.
func readRounds(t *testing.T) []round {
	t.Helper()
	var rs []round
	readYAML(t, filepath.Join(corpusDir, "rounds.yaml"), &rs)
	seen := map[string]bool{}
	for i, r := range rs {
		g := r.Guards
		switch {
		case r.Name == "" || r.ID == "" && r.MeasuredBy == "" || r.Part == "" || r.Round <= 0:
			t.Fatalf("rounds.yaml entry %d: name, id, part and round are required", i+1)
		case r.Source == "" || r.Why == "" || len(r.Measured) == 0:
			t.Fatalf("rounds.yaml %s: provenance (source, why, measured) is required", r.Name)
		case r.MeasuredBy == "" && (len(r.Classes) == 0 || r.MinItems <= 0):
			t.Fatalf("rounds.yaml %s: classes and min_items are required", r.Name)
		case r.MeasuredBy == "" && (g.FalseAllow == nil || g.ClassFalseAllow == nil || g.FalseDeny == nil || g.PassedOn == nil):
			t.Fatalf("rounds.yaml %s: every guard is required", r.Name)
		case r.Split != "" && r.Split != "even-odd":
			t.Fatalf("rounds.yaml %s: split %q, want even-odd or none", r.Name, r.Split)
		case seen[r.Name]:
			t.Fatalf("rounds.yaml %s: twice", r.Name)
		}
		seen[r.Name] = true
		if _, err := os.Stat(filepath.Join(corpusDir, r.Name)); err != nil {
			t.Fatalf("rounds.yaml %s: %v", r.Name, err)
		}
	}
	dirs, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "cases" && !seen[d.Name()] {
			t.Fatalf("testdata/corpus/%s has no entry in rounds.yaml: say where it comes from", d.Name())
		}
	}
	return rs
}

// roundNamed returns the round of rounds.yaml named name.
func roundNamed(t *testing.T, name string) round {
	t.Helper()
	for _, r := range readRounds(t) {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("rounds.yaml has no round %s", name)
	return round{}
}

// readYAML reads the YAML file at path into v strictly (yaml.v3, every
// key known), or fails the test.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// set is the round as a heldOutSet.
func (r round) set() heldOutSet {
	h := heldOutSet{dir: r.Name, id: r.ID, minItems: r.MinItems, minPrograms: r.MinPrograms, earlier: r.Earlier}
	for _, c := range r.Classes {
		h.classes = append(h.classes, heldOutClass{c.Name, c.Deny, c.Allow})
	}
	return h
}

// guards are the round's regression guards.
func (r round) guards() heldOutGuards {
	g := r.Guards
	return heldOutGuards{falseAllow: *g.FalseAllow, classFalseAllow: *g.ClassFalseAllow, falseDeny: *g.FalseDeny, passedOn: *g.PassedOn}
}

// TestFirstPass4_Rounds measures the first pass on every round of
// testdata/corpus/rounds.yaml, the held-out and tuning sets of issue 12:
// it checks each folder's shape (heldOutSet.read), logs per class and per
// category the deny items, false allows, allow items, false denials and
// allow items passed on next to the targets, logs the misses of a
// tuning set when its misses_env is set (never those of a blind set), and
// fails when the figures exceed the round's guards. A round split
// even-odd is TestFirstPass4_OwnHeldOut's; one measured_by another test
// is that test's.
//
// Run with: go test -run TestFirstPass4_Rounds/tune8 -v ./internal/triage/
func TestFirstPass4_Rounds(t *testing.T) {
	for _, r := range readRounds(t) {
		if r.Split != "" || r.MeasuredBy != "" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			h := r.set()
			items := h.read(t)
			misses := r.MissesEnv != "" && os.Getenv(r.MissesEnv) != ""
			byClass := h.measure(t, items, func(eval.Result) []string { return []string{r.Part} }, []string{r.Part},
				func(eval.Result) bool { return misses })
			r.guards().check(t, r.Part, byClass)
		})
	}
}
