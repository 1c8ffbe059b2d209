package triage_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
	"github.com/wardenhq/warden/internal/vocab"
)

// heldOutClass is one file of a held-out set: a class of issue 12, with
// the deny and allow items it must hold at least.
type heldOutClass struct {
	name        string
	deny, allow int
}

// heldOutSet is a folder of held-out cases under testdata: one file per
// class, ids <id>-<class>-<n> and sources <dir>-<class>.
type heldOutSet struct {
	dir         string // the folder under testdata/corpus, and the sources' prefix
	id          string // the ids' prefix
	classes     []heldOutClass
	minItems    int
	minPrograms int      // different programs in everyday-benign (0: unchecked)
	earlier     []string // folders under testdata/corpus whose actions it must not repeat
}

// read reads the set and checks its shape: ids and sources, enough items
// per class and in all, enough programs, and no action repeating one of
// the shared datasets, classes.jsonl or the earlier folders.
func (h heldOutSet) read(t *testing.T) []eval.Item {
	t.Helper()
	var items []eval.Item
	for _, cl := range h.classes {
		its, err := eval.ReadFile(filepath.Join(corpusDir, h.dir, cl.name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		deny, allow := 0, 0
		for _, it := range its {
			if !strings.HasPrefix(it.ID, h.id+"-"+cl.name+"-") || it.Source != h.dir+"-"+cl.name {
				t.Errorf("%s:%d: id %q, source %q: want %s-%s-<n> and %s-%s", it.File, it.Line, it.ID, it.Source, h.id, cl.name, h.dir, cl.name)
			}
			if it.Label == vocab.Deny {
				deny++
			} else {
				allow++
			}
		}
		if deny < cl.deny || allow < cl.allow {
			t.Errorf("%s holds %d deny and %d allow items, want at least %d and %d", cl.name, deny, allow, cl.deny, cl.allow)
		}
		if cl.name == "everyday-benign" && h.minPrograms > 0 {
			if n := len(programsOf(its)); n < h.minPrograms {
				t.Errorf("everyday-benign runs %d different programs, want at least %d", n, h.minPrograms)
			}
		}
		items = append(items, its...)
	}
	if len(items) < h.minItems {
		t.Errorf("%d items in testdata/corpus/%s, want at least %d", len(items), h.dir, h.minItems)
	}
	checkNoCopies(t, items)
	for _, d := range h.earlier {
		checkNoCopiesOf(t, items, filepath.Join(corpusDir, d, "*.jsonl"))
	}
	return items
}

// measure runs the first pass on items and tallies the results by class
// and by category under every part that parts names for them; logMiss is
// called for the results miss selects (nil: none). It logs each part of
// order with the targets and returns the tallies by class.
func (h heldOutSet) measure(t *testing.T, items []eval.Item, parts func(eval.Result) []string, order []string, miss func(eval.Result) bool) breakdown {
	t.Helper()
	byClass, byCategory := breakdown{}, breakdown{}
	for _, r := range runFirstPass(t, items) {
		class := strings.TrimPrefix(r.Item.Source, h.dir+"-")
		for _, p := range parts(r) {
			byClass.add(p, class, r)
			byClass.add(p, "all", r)
			if !r.Item.Ambiguous {
				byClass.add(p, "all but ambiguous", r)
			}
			byCategory.add(p, string(r.Item.Category), r)
			byCategory.add(p, "all", r)
		}
		if miss != nil && miss(r) {
			logMiss(t, r)
		}
	}
	for _, p := range order {
		byClass.log(t, p, "by class")
		byCategory.log(t, p, "by category")
		logTargets(t, p, byClass[p])
	}
	return byClass
}

// heldOutGuards are regression guards on a held-out set's figures: what
// the first pass reached, with a margin. Tighten them as it improves;
// never loosen them to make a change pass.
type heldOutGuards struct {
	falseAllow      float64 // deny items allowed, over all deny items
	classFalseAllow float64 // the same in any one class
	falseDeny       float64 // allow items denied, over all allow items
	passedOn        float64 // allow items passed on, over all allow items
}

// check fails for every figure of part, tallied by class, above g.
func (g heldOutGuards) check(t *testing.T, part string, byClass breakdown) {
	t.Helper()
	all := byClass[part]["all"]
	if all == nil {
		t.Fatalf("%s: nothing measured", part)
	}
	if all.falseAllowRate() > g.falseAllow {
		t.Errorf("%s: false allows %.1f%% above the guard %.1f%%", part, 100*all.falseAllowRate(), 100*g.falseAllow)
	}
	if all.falseDenyRate() > g.falseDeny {
		t.Errorf("%s: false denials %.2f%% above the guard %.1f%%", part, 100*all.falseDenyRate(), 100*g.falseDeny)
	}
	if all.passedOnRate() > g.passedOn {
		t.Errorf("%s: passed on %.1f%% above the guard %.1f%%", part, 100*all.passedOnRate(), 100*g.passedOn)
	}
	for cl, c := range byClass[part] {
		if !strings.HasPrefix(cl, "all") && c.falseAllowRate() > g.classFalseAllow {
			t.Errorf("%s %s: false allows %.1f%% above the guard %.1f%%", part, cl, 100*c.falseAllowRate(), 100*g.classFalseAllow)
		}
	}
}

// checkNoCopiesOf fails for any item whose action is that of an item in
// the files matching glob.
func checkNoCopiesOf(t *testing.T, own []eval.Item, glob string) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files match %s", glob)
	}
	checkNoCopiesIn(t, own, files)
}

// checkNoCopiesIn fails for any item whose action is that of an item of
// files.
func checkNoCopiesIn(t *testing.T, own []eval.Item, files []string) {
	t.Helper()
	seen := map[string]string{}
	for _, f := range files {
		its, err := eval.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range its {
			seen[canonical(t, it.Action)] = it.ID
		}
	}
	for _, it := range own {
		if id, dup := seen[canonical(t, it.Action)]; dup {
			t.Errorf("%s repeats the action of %s", it.ID, id)
		}
	}
}

// programsOf returns the set of programs that items' shell commands start
// with: the first word of the command text that is not a variable
// assignment.
func programsOf(items []eval.Item) map[string]bool {
	progs := map[string]bool{}
	for _, it := range items {
		var a struct {
			Command []string `json:"command"`
		}
		if err := json.Unmarshal(it.Action, &a); err != nil || len(a.Command) == 0 {
			continue
		}
		for _, w := range strings.Fields(a.Command[len(a.Command)-1]) {
			if !strings.Contains(w, "=") {
				progs[w] = true
				break
			}
		}
	}
	return progs
}
