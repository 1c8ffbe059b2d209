package triage_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/eval"
	"github.com/wardenhq/warden/internal/triage"
)

// caseGroup is one entry of testdata/corpus/cases.yaml: a folder of
// hand-written cases, with where they come from.
type caseGroup struct {
	Name     string `yaml:"name"`      // the folder under testdata/corpus/cases
	Test     string `yaml:"test"`      // the Go test the cases were written for
	Commit   string `yaml:"commit"`    // the change that added them
	Subject  string `yaml:"subject"`   // and its subject
	TaughtBy string `yaml:"taught_by"` // the round of rounds.yaml whose misses taught them ("" none)
	Cases    int    `yaml:"cases"`     // rows in the folder
	Why      string `yaml:"why"`       // what they check
}

// caseWants are the files a folder of cases may hold: what each row
// must get from the first pass, and the label it has.
var caseWants = map[string]struct {
	want  want
	label string
}{
	"allowed.jsonl":     {allowed, "allow"},
	"not-denied.jsonl":  {notDenied, "allow"},
	"not-allowed.jsonl": {notAllow, "deny"},
	"denied.jsonl":      {denied, "deny"},
}

// TestFirstPass_Cases judges every row of testdata/corpus/cases (the
// cases of issue 12's classes and of the tuning rounds, with their near
// misses) with the row's request and no exec rules, and fails for each
// whose decision is not what its file's name says. It checks the
// provenance of every folder in cases.yaml (test, commit, subject, why),
// that each folder holds as many rows as cases.yaml says, each labelled as
// its file says, and that no folder is missing from cases.yaml.
func TestFirstPass_Cases(t *testing.T) {
	dir := filepath.Join(corpusDir, "cases")
	var groups []caseGroup
	readYAML(t, dir+".yaml", &groups)
	listed := map[string]bool{}
	rows := 0
	for _, g := range groups {
		if g.Name == "" || g.Test == "" || g.Commit == "" || g.Subject == "" || g.Why == "" || g.Cases <= 0 {
			t.Errorf("cases.yaml %q: name, test, commit, subject, why and cases are required", g.Name)
			continue
		}
		listed[g.Name] = true
		files, err := filepath.Glob(filepath.Join(dir, g.Name, "*.jsonl"))
		if err != nil || len(files) == 0 {
			t.Errorf("cases %s: no files (%v)", g.Name, err)
			continue
		}
		n := 0
		for _, file := range files {
			w, ok := caseWants[filepath.Base(file)]
			if !ok {
				t.Errorf("%s: not one of allowed, not-denied, not-allowed or denied.jsonl", file)
				continue
			}
			items, err := eval.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				n++
				if string(it.Label) != w.label || it.Source != "cases-"+g.Name || !strings.HasPrefix(it.ID, g.Name+"-") {
					t.Errorf("%s:%d: id %q, source %q, label %s; want %s-…, cases-%s, %s", file, it.Line, it.ID, it.Source, it.Label, g.Name, g.Name, w.label)
				}
				t.Run(g.Name+"/"+strings.TrimPrefix(it.ID, g.Name+"-"), func(t *testing.T) {
					v := triage.JudgeIn(it.Parsed, it.Request, it.Transcript, nil)
					if !w.want.holds(v.Decision) {
						t.Errorf("Judge(%s) = %s (%s): %s; want %s", it.Action, v.Decision, v.Class, v.Reason, w.want)
					}
				})
			}
		}
		if n != g.Cases {
			t.Errorf("cases %s holds %d rows, cases.yaml says %d", g.Name, n, g.Cases)
		}
		rows += n
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, d := range all {
		if !listed[filepath.Base(d)] {
			t.Errorf("%s is not in cases.yaml", d)
		}
	}
	t.Logf("%d cases in %d folders", rows, len(groups))
}
