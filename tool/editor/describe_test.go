package editor_test

import (
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// TestDescribeAction: the text editor describes a call from the arguments
// it runs with, and declines what it would not run.
func TestDescribeAction(t *testing.T) {
	tl, err := editor.New(editor.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ed := tl.(action.Describer)
	a, ok := ed.DescribeAction(tool.NewCall("c1", "text_editor", `{"command":"create","path":"a/b.txt","file_text":"hi"}`),
		&boundary.Request{Kind: boundary.Write, Paths: []string{"/w/a/b.txt", "/w/a"}})
	if !ok || a.Kind != action.FileEdit || a.Operation != "create" || a.NewText != "hi" || a.Path != "a/b.txt" || len(a.Paths) != 2 {
		t.Errorf("create: %v %+v", ok, a)
	}
	a, ok = ed.DescribeAction(tool.NewCall("c1", "text_editor", `{"command":"str_replace","path":"x","old_str":"a","new_str":"b"}`), nil)
	if !ok || a.OldText != "a" || a.NewText != "b" || a.Path != "x" {
		t.Errorf("str_replace: %v %+v", ok, a)
	}
	for _, args := range []string{`{"command":"create","path":"x"}`, `{"command":"delete","path":"x"}`, `{"command":"view","path":"x","content":"y"}`} {
		if a, ok := ed.DescribeAction(tool.NewCall("c1", "text_editor", args), nil); ok {
			t.Errorf("%s described: %+v", args, a)
		}
	}
	if _, ok := ed.DescribeAction(tool.NewCall("c1", "text_editor", `{"command":"view","path":"x"}`), &boundary.Request{Kind: boundary.Exec}); ok {
		t.Error("an exec request described as an edit")
	}
}
