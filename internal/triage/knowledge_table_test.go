package triage

import (
	"os"
	"reflect"
	"testing"

	"github.com/wardenhq/warden/internal/triage/judge"
)

// embeddedPrograms is the text of the embedded programs file, which the
// tests parse as users' files are parsed (nil when the test binary runs
// outside the package's directory: those tests then fail).
var embeddedPrograms, _ = os.ReadFile("programs.yaml")

// TestFirstPass1_GeneratedTablesCurrent checks that the Go tables
// programs_gen.go build the knowledge programs.yaml says: the file read
// with the parser of users' files (every schema check included) and the
// tables give the same programs, facts, effects and lists. It fails when
// programs.yaml changed and `go generate ./internal/triage` was not run.
func TestFirstPass1_GeneratedTablesCurrent(t *testing.T) {
	parsed, err := judge.ParseKnowledge(judge.EmbeddedProgramsFile, embeddedPrograms, judge.RoleEmbedded, judge.Judges())
	if err != nil {
		t.Fatal(err)
	}
	built, err := judge.EmbeddedKnowledge(judge.Judges())
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Programs) != len(built.Programs) {
		t.Errorf("programs.yaml names %d programs, the tables %d: run go generate ./internal/triage", len(parsed.Programs), len(built.Programs))
	}
	for name, p := range parsed.Programs {
		b := built.Programs[name]
		if b == nil {
			t.Errorf("%s: in programs.yaml, not in the tables: run go generate ./internal/triage", name)
			continue
		}
		pc, bc := *p, *b
		pc.Judge, bc.Judge = nil, nil
		if (p.Judge == nil) != (b.Judge == nil) || !reflect.DeepEqual(pc, bc) {
			t.Errorf("%s: programs.yaml says %+v, the tables %+v: run go generate ./internal/triage", name, pc, bc)
		}
	}
	if !reflect.DeepEqual(parsed.Lists, built.Lists) {
		for n, l := range parsed.Lists {
			if !reflect.DeepEqual(l, built.Lists[n]) {
				t.Errorf("list %s differs between programs.yaml and the tables: run go generate ./internal/triage", n)
			}
		}
	}
	if !reflect.DeepEqual(parsed.Files(), built.Files()) {
		t.Errorf("files %v, tables %v", parsed.Files(), built.Files())
	}
}

// BenchmarkKnowledgeTables measures building the embedded knowledge from
// the generated tables: what a process pays on its first judgement.
func BenchmarkKnowledgeTables(b *testing.B) {
	b.ReportAllocs()
	reg := judge.Judges()
	for b.Loop() {
		if _, err := judge.EmbeddedKnowledge(reg); err != nil {
			b.Fatal(err)
		}
	}
}
