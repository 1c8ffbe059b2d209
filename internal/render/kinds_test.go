package render

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/policy"
)

// TestL7_EveryEventKindRenders reads the event kinds declared in package
// internal/eventkind (every string constant) and checks that each decodes to its
// own type and renders as itself, never as an unknown "?" line: a kind
// added to the transcript without a rendering fails here.
func TestL7_EveryEventKindRenders(t *testing.T) {
	kinds := declaredKinds(t)
	if len(kinds) < 16 {
		t.Fatalf("found only %d event kinds in package eventkind: %v", len(kinds), kinds)
	}
	for _, k := range kinds {
		var e event.Event
		line := `{"event":` + strconv.Quote(k) + `,"run_id":"r1","time":"2026-01-01T00:00:00Z"}`
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if _, unknown := e.Data.(event.Unknown); unknown {
			t.Errorf("%s: decodes as an unknown event", k)
			continue
		}
		if out := Format(e); strings.HasPrefix(out, "?") || strings.Contains(out, "? ") && strings.Contains(out, " event") {
			t.Errorf("%s renders as %q", k, out)
		}
	}
}

// declaredKinds returns the values of the string constants declared in
// package eventkind's source under "The kinds of event.": the kinds of
// event (the package's other words are values of fields).
func declaredKinds(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("../eventkind")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, en := range entries {
		name := en.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("../eventkind", name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST || g.Doc == nil || !strings.HasPrefix(g.Doc.Text(), "The kinds of event.") {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for _, val := range v.Values {
					if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							kinds = append(kinds, s)
						}
					}
				}
			}
		}
	}
	return kinds
}

// TestP8_RunHeaderShowsShellAwarePatterns: the run header shows a
// shell-aware entry's commands, not only its tool.
func TestP8_RunHeaderShowsShellAwarePatterns(t *testing.T) {
	e := event.Event{RunID: "r1", Data: event.RunStart{Task: "t", Approval: []policy.Entry{
		{Name: "auto", Tool: "bash", Commands: map[string][]string{"cmd": {"ls", "git status"}}},
	}}}
	if out := Format(e); !strings.Contains(out, "auto(bash cmd runs only [ls, git status])") {
		t.Errorf("run header:\n%s", out)
	}
}
