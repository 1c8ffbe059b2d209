package editor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

func TestUndoEdit(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		edits   []map[string]any // made in order, then undone once
		want    string           // content after the undo; "" with gone for no file
		gone    bool
		outPart string
	}{
		{"create new", nil,
			[]map[string]any{{"command": "create", "path": "f.txt", "file_text": "new\n"}},
			"", true, "removed"},
		{"create over", map[string]string{"f.txt": "old\n"},
			[]map[string]any{{"command": "create", "path": "f.txt", "file_text": "new\n"}},
			"old\n", false, "undone"},
		{"str_replace", map[string]string{"f.txt": "one\ntwo\n"},
			[]map[string]any{{"command": "str_replace", "path": "f.txt", "old_str": "two", "new_str": "2"}},
			"one\ntwo\n", false, "     2\ttwo"},
		{"insert", map[string]string{"f.txt": "one\ntwo\n"},
			[]map[string]any{{"command": "insert", "path": "f.txt", "insert_line": 1, "new_str": "mid"}},
			"one\ntwo\n", false, "undone"},
		{"last of two", map[string]string{"f.txt": "a\n"},
			[]map[string]any{
				{"command": "str_replace", "path": "f.txt", "old_str": "a", "new_str": "b"},
				{"command": "str_replace", "path": "f.txt", "old_str": "b", "new_str": "c"},
			},
			"b\n", false, "undone"},
		{"to empty", map[string]string{"f.txt": ""},
			[]map[string]any{{"command": "insert", "path": "f.txt", "insert_line": 0, "new_str": "x"}},
			"", false, "now empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, dir := newTool(t)
			writeFiles(t, dir, tt.files)
			for _, e := range tt.edits {
				if _, err := run(t, tl, e); err != nil {
					t.Fatal(err)
				}
			}
			undo := map[string]any{"command": "undo_edit", "path": "f.txt"}
			raw, _ := json.Marshal(undo)
			if err := tl.Precheck(raw); err != nil {
				t.Errorf("Precheck: %v", err)
			}
			out, err := run(t, tl, undo)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tt.outPart) {
				t.Errorf("output %q lacks %q", out, tt.outPart)
			}
			p := filepath.Join(dir, "f.txt")
			if tt.gone {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("file still there: %v", err)
				}
			} else if got := readFile(t, p); got != tt.want {
				t.Errorf("content %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUndoEditWithoutHistory(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{"f.txt": "a\n", "g.txt": "g\n"})
	undo := map[string]any{"command": "undo_edit", "path": "f.txt"}
	_, err := run(t, tl, undo)
	wantError(t, err, tool.ErrUnknown, "no edit of f.txt to undo")
	raw, _ := json.Marshal(undo)
	wantError(t, tl.Precheck(raw), tool.ErrParsing, "no edit of f.txt to undo")

	// A view is not an edit; an edit of another path is not this one's;
	// an edit undone is gone from the history.
	run(t, tl, map[string]any{"command": "view", "path": "f.txt"})
	if _, err := run(t, tl, map[string]any{"command": "str_replace", "path": "g.txt", "old_str": "g", "new_str": "G"}); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, tl, undo)
	wantError(t, err, tool.ErrUnknown, "no edit of f.txt to undo")
	if _, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "g.txt"}); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, tl, map[string]any{"command": "undo_edit", "path": "g.txt"})
	wantError(t, err, tool.ErrUnknown, "no edit of g.txt to undo")
	if got := readFile(t, filepath.Join(dir, "g.txt")); got != "g\n" {
		t.Errorf("g.txt = %q", got)
	}
	// Another tool instance has its own history.
	other, err := newEditor(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	run(t, tl, map[string]any{"command": "create", "path": "f.txt", "file_text": "x"})
	if _, err := other.Run(t.Context(), raw); err == nil {
		t.Error("another instance undid this one's edit")
	}
}

func TestUndoEditHistoryIsBounded(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		tl, dir := newTool(t)
		writeFiles(t, dir, map[string]string{"f.txt": "0"})
		for i := 1; i <= maxUndoEdits+3; i++ {
			if _, err := run(t, tl, map[string]any{"command": "create", "path": "f.txt", "file_text": strings.Repeat("x", i)}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < maxUndoEdits; i++ {
			if _, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "f.txt"}); err != nil {
				t.Fatalf("undo %d: %v", i+1, err)
			}
		}
		_, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "f.txt"})
		wantError(t, err, tool.ErrUnknown, "no edit of f.txt to undo")
		if got := readFile(t, filepath.Join(dir, "f.txt")); got != "xxx" {
			t.Errorf("content %q after %d undos, want the oldest kept state", got, maxUndoEdits)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		tl, dir := newTool(t)
		big := strings.Repeat("b", maxUndoBytes/2+1)
		writeFiles(t, dir, map[string]string{"f.txt": big})
		for _, text := range []string{big, "small"} {
			if _, err := run(t, tl, map[string]any{"command": "create", "path": "f.txt", "file_text": text}); err != nil {
				t.Fatal(err)
			}
		}
		// Two snapshots of big exceed the budget: only the last edit
		// can be undone.
		if _, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "f.txt"}); err != nil {
			t.Fatal(err)
		}
		_, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "f.txt"})
		wantError(t, err, tool.ErrUnknown, "no edit")
	})
	t.Run("too large", func(t *testing.T) {
		tl, dir := newTool(t)
		writeFiles(t, dir, map[string]string{"f.txt": strings.Repeat("b", maxUndoBytes+1)})
		if _, err := run(t, tl, map[string]any{"command": "create", "path": "f.txt", "file_text": "small"}); err != nil {
			t.Fatal(err)
		}
		_, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "f.txt"})
		wantError(t, err, tool.ErrUnknown, "cannot be undone", "too large")
	})
	t.Run("paths", func(t *testing.T) {
		tl, _ := newTool(t)
		for i := 0; i <= maxUndoPaths; i++ {
			if _, err := run(t, tl, map[string]any{"command": "create", "path": filepath.Join("d", strings.Repeat("p", i+1)), "file_text": "x"}); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(tl.hist.paths); n != maxUndoPaths {
			t.Errorf("%d paths kept, want %d", n, maxUndoPaths)
		}
		_, err := run(t, tl, map[string]any{"command": "undo_edit", "path": "d/p"})
		wantError(t, err, tool.ErrUnknown, "no edit of d/p to undo")
	})
}

// An undo is a write: outside the writable roots, or into a protected
// path, it asks to cross the sandbox boundary and happens only if approved
// (SPEC G2).
func TestG2_UndoEditOutsideTheBoundaryNeedsApproval(t *testing.T) {
	work := t.TempDir()
	outside := sandboxtest.OutsideDir(t, work)
	target := filepath.Join(outside, "u.txt")
	if err := os.WriteFile(target, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, err := newEditor(Options{Dir: work, Sandbox: &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []*boundary.Request
	approve := true
	ctx := boundary.WithDecider(context.Background(), boundary.DeciderFunc(func(_ context.Context, r *boundary.Request) (boundary.Decision, error) {
		asked = append(asked, r)
		return boundary.Decision{Approved: approve, Explanation: "test"}, nil
	}))
	call := func(args map[string]any) (string, error) {
		raw, _ := json.Marshal(args)
		return tl.Run(ctx, raw)
	}
	if _, err := call(map[string]any{"command": "str_replace", "path": target, "old_str": "before", "new_str": "after"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		approve bool
		want    string
	}{
		{false, "after\n"}, // denied: nothing restored, history kept
		{true, "before\n"},
	}
	for _, tt := range tests {
		asked, approve = nil, tt.approve
		_, err := call(map[string]any{"command": "undo_edit", "path": target})
		if len(asked) != 1 || asked[0].Kind != boundary.Write || asked[0].Paths[0] != target || !strings.Contains(asked[0].Reason, "undo_edit") {
			t.Errorf("approve=%v: asked %+v", tt.approve, asked)
		}
		if tt.approve != (err == nil) {
			t.Errorf("approve=%v: err = %v", tt.approve, err)
		}
		if got := readFile(t, target); got != tt.want {
			t.Errorf("approve=%v: content %q, want %q", tt.approve, got, tt.want)
		}
	}
}

func TestPrecheck(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{"f.txt": "a\n"})
	tests := []struct {
		raw  string
		part string // "" for no error
	}{
		{`{"command":"str_replace","path":"nope.txt","old_str":"a"}`, "nope.txt does not exist; use the create command"},
		{`{"command":"insert","path":"nope.txt","insert_line":0,"new_str":"a"}`, "nope.txt does not exist"},
		{`{"command":"str_replace","path":".","old_str":"a"}`, "is a directory"},
		{`{"command":"undo_edit","path":"f.txt"}`, "no edit of f.txt to undo"},
		{`{"command":"str_replace","path":"f.txt"}`, "missing required argument old_str"},
		{`{"command":"str_replace","path":"f.txt","old_str":"a"}`, ""},
		{`{"command":"insert","path":"f.txt","insert_line":9,"new_str":"a"}`, ""}, // Run reports the range
		{`{"command":"create","path":"nope.txt","file_text":"a"}`, ""},
		{`{"command":"view","path":"nope.txt"}`, ""},
		{`{"command":"str_replace","path":"../outside","old_str":"a"}`, ""}, // Run reports the path
	}
	for _, tt := range tests {
		err := tl.Precheck(json.RawMessage(tt.raw))
		if tt.part == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.raw, err)
			}
			continue
		}
		wantError(t, err, tool.ErrParsing, tt.part)
	}
}

// An approver of an undo_edit sees what it would change, not a view.
func TestUndoEditView(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{"f.txt": "old\n"})
	undo := tool.NewCall("u", Name, `{"command":"undo_edit","path":"f.txt"}`)
	if v := tl.View(undo); !strings.Contains(v.Content, "no edit of f.txt to undo") {
		t.Errorf("view without history = %+v", v)
	}
	run(t, tl, map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "old", "new_str": "new"})
	v := tl.View(undo)
	want := "--- f.txt\n+++ f.txt\n-new\n+old\n"
	if v.Format != "diff" || v.Content != want || v.Title != "undo_edit f.txt" {
		t.Errorf("view = %+v, want content %q", v, want)
	}
	run(t, tl, map[string]any{"command": "create", "path": "g.txt", "file_text": "g\n"})
	if v := tl.View(tool.NewCall("u", Name, `{"command":"undo_edit","path":"g.txt"}`)); v.Content != "--- g.txt\n+++ /dev/null\n-g\n" {
		t.Errorf("view of undoing a create = %q", v.Content)
	}
}
