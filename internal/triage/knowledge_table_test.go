package triage

import (
	"os"
	"reflect"
	"testing"
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
	parsed, err := parseKnowledge(EmbeddedProgramsFile, embeddedPrograms, roleEmbedded, judges())
	if err != nil {
		t.Fatal(err)
	}
	built, err := embeddedKnowledge(judges())
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.programs) != len(built.programs) {
		t.Errorf("programs.yaml names %d programs, the tables %d: run go generate ./internal/triage", len(parsed.programs), len(built.programs))
	}
	for name, p := range parsed.programs {
		b := built.programs[name]
		if b == nil {
			t.Errorf("%s: in programs.yaml, not in the tables: run go generate ./internal/triage", name)
			continue
		}
		pc, bc := *p, *b
		pc.judge, bc.judge = nil, nil
		if (p.judge == nil) != (b.judge == nil) || !reflect.DeepEqual(pc, bc) {
			t.Errorf("%s: programs.yaml says %+v, the tables %+v: run go generate ./internal/triage", name, pc, bc)
		}
	}
	if !reflect.DeepEqual(parsed.lists, built.lists) {
		for n, l := range parsed.lists {
			if !reflect.DeepEqual(l, built.lists[n]) {
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
	reg := judges()
	for b.Loop() {
		if _, err := embeddedKnowledge(reg); err != nil {
			b.Fatal(err)
		}
	}
}
