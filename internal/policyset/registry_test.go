package policyset

import (
	"slices"
	"strings"
	"testing"
)

// TestP3_RenamedHandlerKeepsItsOldName: a handler renamed keeps its old
// name for policies that use it — Registered and Build accept it and build
// the same handler — while Names lists the new name only and Renamed
// reports the old one, for warnings. Taking a name twice panics.
func TestP3_RenamedHandlerKeepsItsOldName(t *testing.T) {
	r := NewRegistry[string]("approver")
	r.Register("first_pass", func(params map[string]any) (string, error) { return "the first pass", nil })
	r.Rename("rules", "first_pass")
	for _, name := range []string{"first_pass", "rules"} {
		h, err := r.Build(name, nil)
		if !r.Registered(name) || err != nil || h != "the first pass" {
			t.Errorf("%s: registered %v, built %q, %v", name, r.Registered(name), h, err)
		}
	}
	if got := r.Names(); !slices.Equal(got, []string{"first_pass"}) {
		t.Errorf("Names() = %v, want [first_pass]", got)
	}
	if now, ok := r.Renamed("rules"); !ok || now != "first_pass" {
		t.Errorf(`Renamed("rules") = %q, %v`, now, ok)
	}
	if _, ok := r.Renamed("first_pass"); ok {
		t.Error(`Renamed("first_pass") reports a current name as old`)
	}
	if _, err := r.Build("rule", nil); err == nil || !strings.Contains(err.Error(), "registered: first_pass)") {
		t.Errorf("unknown name: %v", err)
	}
	for name, f := range map[string]func(){
		"register an old name": func() { r.Register("rules", nil) },
		"rename onto a name":   func() { r.Rename("first_pass", "first_pass") },
		"rename to nothing":    func() { r.Rename("old", "missing") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
