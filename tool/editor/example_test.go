package editor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

func Example() {
	dir, err := os.MkdirTemp("", "editor-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ed, err := editor.New(editor.Options{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, args := range []string{
		`{"command": "create", "path": "notes/todo.txt", "file_text": "buy milk\nwalk dog\n"}`,
		`{"command": "str_replace", "path": "notes/todo.txt", "old_str": "milk", "new_str": "bread"}`,
		`{"command": "insert", "path": "notes/todo.txt", "insert_line": 0, "new_str": "TODO"}`,
		`{"command": "view", "path": "notes/todo.txt"}`,
		`{"command": "view", "path": "../elsewhere.txt"}`,
	} {
		out, err := ed.Run(ctx, json.RawMessage(args))
		if err != nil {
			fmt.Println(tool.AsError(err).Type, "error")
			continue
		}
		fmt.Println(out)
	}
	// Output:
	// File created successfully at: notes/todo.txt
	// The file notes/todo.txt has been edited. Lines 1-2 of it now read (cat -n):
	//      1	buy bread
	//      2	walk dog
	//
	// The file notes/todo.txt has been edited. Lines 1-3 of it now read (cat -n):
	//      1	TODO
	//      2	buy bread
	//      3	walk dog
	//
	//      1	TODO
	//      2	buy bread
	//      3	walk dog
	//
	// permission error
}

// TestDescribeAction: the text editor describes a call from the arguments
// it runs with, and declines what it would not run.
func TestDescribeAction(t *testing.T) {
	tl, err := editor.New(editor.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ed := tl.(action.Describer)
	a, ok := ed.DescribeAction(tool.NewCall("c1", "text_editor", `{"command":"create","path":"a/b.txt","file_text":"hi"}`),
		&boundary.Request{Permission: boundary.Write, Paths: []string{"/w/a/b.txt", "/w/a"}})
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
	if _, ok := ed.DescribeAction(tool.NewCall("c1", "text_editor", `{"command":"view","path":"x"}`), &boundary.Request{Permission: boundary.Exec}); ok {
		t.Error("an exec request described as an edit")
	}
}
