package editor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

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
