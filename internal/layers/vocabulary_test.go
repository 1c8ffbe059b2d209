package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// vocabularyTypes lists, for each name of the shared vocabulary, the packages
// that may define an exported type of that name, and why
// (docs/architecture.md, "One vocabulary"). Every other definition, an
// alias included, is a second spelling of the same concept.
var vocabularyTypes = map[string][]string{
	// approval.Decision (SPEC A2) and review.Decision (SPEC R2) differ on
	// purpose; vocab.Decision is the judges' verdict, which the exec rules
	// use too. rules.Decision is only an alias of vocab.Decision (checked
	// below): the one public name of that one type, so that code outside
	// the module can name the type of Rule.Decision.
	"Decision": {"approval", "review", "internal/vocab", "rules"},
	// The risk levels of SPEC G6.
	"Risk": {"action"},
	// action.Kind is the shape of an action a reviewer judges. The other
	// Kinds are not kinds of action: internal/policyfile's Kind is which
	// policy a file holds (approvers, reviewers), internal/hook's Kind what
	// a host's tool does (read, search, edit…), which the hook turns into
	// warden's tool calls. A transcript event's type is a word of
	// internal/eventkind, not a type.
	"Kind": {"action", "internal/policyfile", "internal/hook"},
}

// exportedTypes returns, for each name of names, the packages (directories
// relative to root, slash-separated) whose non-test Go files define an
// exported type of that name.
func exportedTypes(t *testing.T, root string, names []string) map[string][]string {
	t.Helper()
	found := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				name := s.(*ast.TypeSpec).Name.Name
				pkg := filepath.ToSlash(rel)
				if slices.Contains(names, name) && !slices.Contains(found[name], pkg) {
					found[name] = append(found[name], pkg)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestA2_R2_G6_OneVocabulary holds the decisions, the risk levels and the
// kinds of action to one definition each: an exported type named
// Decision, Risk or Kind outside the packages vocabularyTypes allows is a
// second vocabulary.
func TestA2_R2_G6_OneVocabulary(t *testing.T) {
	var names []string
	for name := range vocabularyTypes {
		names = append(names, name)
	}
	for name, pkgs := range exportedTypes(t, filepath.Join("..", ".."), names) {
		for _, pkg := range pkgs {
			if !slices.Contains(vocabularyTypes[name], pkg) {
				t.Errorf("%s defines a type %s: the concept is defined in %s (docs/architecture.md, One vocabulary)", pkg, name, strings.Join(vocabularyTypes[name], ", "))
			}
		}
	}
	for pkg, alias := range publicNames {
		if got := aliasOf(t, filepath.Join("..", "..", pkg), alias.name); got != alias.of {
			t.Errorf("%s.%s must be an alias of %s (one type, one public name), it is %q", pkg, alias.name, alias.of, got)
		}
	}
}

// publicNames are the types vocabularyTypes allows in a public package
// only as the public name of an internal type: an alias, not a second
// type.
var publicNames = map[string]struct{ name, of string }{
	"rules": {"Decision", "vocab.Decision"},
}

// aliasOf returns what the type name of the package in dir is an alias
// of, as written (vocab.Decision); "" when it is not an alias or not
// defined there.
func aliasOf(t *testing.T, dir, name string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if ts.Name.Name != name || !ts.Assign.IsValid() {
					continue
				}
				if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						return x.Name + "." + sel.Sel.Name
					}
				}
			}
		}
	}
	return ""
}

// TestOneVocabularyCheckSeesTypes proves the check above can fail: it
// finds a Decision defined as a type and as an alias, and not one in a
// test file.
func TestOneVocabularyCheckSeesTypes(t *testing.T) {
	root := t.TempDir()
	for name, src := range map[string]string{
		"rules/rule.go":       "package rules\n\ntype Decision int\n",
		"hook/host.go":        "package hook\n\ntype (\n\tKind = string\n\tother int\n)\n",
		"store/store_test.go": "package store\n\ntype Decision struct{}\n",
		"action/action.go":    "package action\n\ntype Risk string\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := aliasOf(t, filepath.Join(root, "rules"), "Decision"); got != "" {
		t.Errorf("a defined type reads as an alias of %q", got)
	}
	if got := aliasOf(t, filepath.Join(root, "hook"), "Kind"); got != "" {
		t.Errorf("an alias of a predeclared type reads as an alias of %q", got)
	}
	got := exportedTypes(t, root, []string{"Decision", "Kind", "Risk"})
	want := map[string][]string{"Decision": {"rules"}, "Kind": {"hook"}, "Risk": {"action"}}
	for name, pkgs := range want {
		if !slices.Equal(got[name], pkgs) {
			t.Errorf("%s: found in %v, want %v", name, got[name], pkgs)
		}
	}
}
