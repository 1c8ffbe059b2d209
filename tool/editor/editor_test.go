package editor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/filetest"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// newTool returns a tool confined to a new temporary directory, and the
// directory.
func newTool(t *testing.T) (*editorTool, string) {
	t.Helper()
	dir := t.TempDir()
	tl, err := newEditor(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return tl, dir
}

// run calls tl with args encoded as JSON.
func run(t *testing.T, tl *editorTool, args map[string]any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(t.Context(), raw)
}

// writeFiles creates files under dir from a map of relative path to content.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	filetest.WriteAll(t, dir, files)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantError checks that err is a *tool.Error of type typ whose message
// contains each of parts.
func wantError(t *testing.T, err error, typ tool.ErrorType, parts ...string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) {
		t.Fatalf("error = %v (%T), want a *tool.Error of type %s", err, err, typ)
	}
	if te.Type != typ {
		t.Errorf("error type = %s, want %s (%s)", te.Type, typ, te.Message)
	}
	for _, p := range parts {
		if !strings.Contains(te.Message, p) {
			t.Errorf("error message %q lacks %q", te.Message, p)
		}
	}
}

func TestViewFile(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{
		"three.txt":    "one\ntwo\nthree\n",
		"no-eol.txt":   "one\ntwo",
		"empty.txt":    "",
		"blank.txt":    "\n\n",
		"sub/deep.txt": "deep\n",
	})
	tests := []struct {
		path      string
		viewRange []int
		want      string
	}{
		{"three.txt", nil, "     1\tone\n     2\ttwo\n     3\tthree\n"},
		{"no-eol.txt", nil, "     1\tone\n     2\ttwo\n"},
		{"empty.txt", nil, "(empty file)"},
		{"empty.txt", []int{1, -1}, "(empty file)"},
		{"blank.txt", nil, "     1\t\n     2\t\n"},
		{"sub/deep.txt", nil, "     1\tdeep\n"},
		{"./sub/../sub/deep.txt", nil, "     1\tdeep\n"},
		{filepath.Join(dir, "three.txt"), nil, "     1\tone\n     2\ttwo\n     3\tthree\n"},
		{"three.txt", []int{2, 3}, "     2\ttwo\n     3\tthree\n"},
		{"three.txt", []int{2, -1}, "     2\ttwo\n     3\tthree\n"},
		{"three.txt", []int{1, 1}, "     1\tone\n"},
	}
	for _, tt := range tests {
		args := map[string]any{"command": "view", "path": tt.path}
		if tt.viewRange != nil {
			args["view_range"] = tt.viewRange
		}
		got, err := run(t, tl, args)
		if err != nil {
			t.Errorf("view %s %v: %v", tt.path, tt.viewRange, err)
			continue
		}
		if got != tt.want {
			t.Errorf("view %s %v = %q, want %q", tt.path, tt.viewRange, got, tt.want)
		}
	}
}

func TestViewErrors(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{"three.txt": "1\n2\n3\n", "binary.bin": "\xff\xfe\x00"})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		typ  tool.ErrorType
		part string
	}{
		{"missing file", map[string]any{"path": "nope.txt"}, tool.ErrUnknown, "nope.txt does not exist"},
		{"not UTF-8", map[string]any{"path": "binary.bin"}, tool.ErrUnknown, "not UTF-8"},
		{"fifo", map[string]any{"path": "fifo"}, tool.ErrUnknown, "not a regular file"},
		{"range start 0", map[string]any{"path": "three.txt", "view_range": []int{0, 2}}, tool.ErrParsing, "out of range"},
		{"range past end", map[string]any{"path": "three.txt", "view_range": []int{2, 4}}, tool.ErrParsing, "has 3 lines"},
		{"range reversed", map[string]any{"path": "three.txt", "view_range": []int{3, 2}}, tool.ErrParsing, "out of range"},
		{"range of one", map[string]any{"path": "three.txt", "view_range": []int{3}}, tool.ErrParsing, "two line numbers"},
		{"range on a directory", map[string]any{"path": ".", "view_range": []int{1, 2}}, tool.ErrParsing, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["command"] = "view"
			_, err := run(t, tl, tt.args)
			wantError(t, err, tt.typ, tt.part)
		})
	}
}

func TestViewLargeFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat("x", 101), "small.txt": strings.Repeat("x", 100)})
	tl, err := newEditor(Options{Dir: dir, MaxFileBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(t, tl, map[string]any{"command": "view", "path": "big.txt"})
	wantError(t, err, tool.ErrUnknown, "101 bytes", "up to 100 bytes")
	if _, err := run(t, tl, map[string]any{"command": "view", "path": "small.txt"}); err != nil {
		t.Error(err)
	}
}

func TestViewDirectory(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{
		"b.txt":                    "",
		"a.txt":                    "",
		".hidden":                  "",
		".git/config":              "",
		"src/main.go":              "",
		"src/.cache/x":             "",
		"src/pkg/deep/too-deep.go": "",
		"src/pkg/lib.go":           "",
	})
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := run(t, tl, map[string]any{"command": "view", "path": "."})
	if err != nil {
		t.Fatal(err)
	}
	want := "Files and directories up to 2 levels deep in ., excluding hidden items:\n" +
		"a.txt\nb.txt\nempty/\nsrc/\nsrc/main.go\nsrc/pkg/\n"
	if got != want {
		t.Errorf("view . =\n%s\nwant\n%s", got, want)
	}

	got, err = run(t, tl, map[string]any{"command": "view", "path": "src"})
	if err != nil {
		t.Fatal(err)
	}
	want = "Files and directories up to 2 levels deep in src, excluding hidden items:\n" +
		"src/main.go\nsrc/pkg/\nsrc/pkg/deep/\nsrc/pkg/lib.go\n"
	if got != want {
		t.Errorf("view src =\n%s\nwant\n%s", got, want)
	}

	got, err = run(t, tl, map[string]any{"command": "view", "path": "empty"})
	if err != nil || !strings.Contains(got, "empty directory") {
		t.Errorf("view empty = %q, %v", got, err)
	}

	got, err = run(t, tl, map[string]any{"command": "view", "path": dir})
	if err != nil || !strings.Contains(got, filepath.Join(dir, "src", "main.go")+"\n") {
		t.Errorf("view of the absolute directory = %q, %v", got, err)
	}
}

func TestCreate(t *testing.T) {
	tl, dir := newTool(t)
	got, err := run(t, tl, map[string]any{"command": "create", "path": "new/nested/file.txt", "file_text": "hello\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got != "File created successfully at: new/nested/file.txt" {
		t.Errorf("create = %q", got)
	}
	if c := readFile(t, filepath.Join(dir, "new/nested/file.txt")); c != "hello\n" {
		t.Errorf("content = %q", c)
	}

	// Overwriting keeps the file's mode.
	p := filepath.Join(dir, "script.sh")
	if err := os.WriteFile(p, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err = run(t, tl, map[string]any{"command": "create", "path": p, "file_text": "#!/bin/sh\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "File overwritten") {
		t.Errorf("overwrite = %q", got)
	}
	if c := readFile(t, p); c != "#!/bin/sh\n" {
		t.Errorf("content = %q", c)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode after overwrite = %v, %v", fi.Mode(), err)
	}

	// An empty file_text makes an empty file.
	if _, err := run(t, tl, map[string]any{"command": "create", "path": "empty.txt", "file_text": ""}); err != nil {
		t.Fatal(err)
	}
	if c := readFile(t, filepath.Join(dir, "empty.txt")); c != "" {
		t.Errorf("content = %q", c)
	}

	// A directory is not replaced.
	_, err = run(t, tl, map[string]any{"command": "create", "path": "new", "file_text": "x"})
	wantError(t, err, tool.ErrUnknown, "new is a directory")
	_, err = run(t, tl, map[string]any{"command": "create", "path": ".", "file_text": "x"})
	wantError(t, err, tool.ErrUnknown, "is a directory")

	// A file is not a directory.
	_, err = run(t, tl, map[string]any{"command": "create", "path": "empty.txt/child", "file_text": "x"})
	wantError(t, err, tool.ErrUnknown, "empty.txt/child")
}

func TestStrReplace(t *testing.T) {
	const original = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	tests := []struct {
		name     string
		old, new string
		omitNew  bool
		want     string // the file afterwards
		wantOut  string // the result, or a part of the error message
		wantType tool.ErrorType
	}{
		{
			name: "replace", old: `println("hi")`, new: `println("hello")`,
			want:    "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
			wantOut: "The file f.go has been edited. Lines 1-5 of it now read (cat -n):\n     1\tpackage main\n     2\t\n     3\tfunc main() {\n     4\t\tprintln(\"hello\")\n     5\t}\n",
		},
		{
			name: "multi-line", old: "func main() {\n\tprintln(\"hi\")\n}", new: "func main() {}",
			want:    "package main\n\nfunc main() {}\n",
			wantOut: "     3\tfunc main() {}\n",
		},
		{
			name: "delete with empty new_str", old: "\n\tprintln(\"hi\")", new: "",
			want: "package main\n\nfunc main() {\n}\n",
		},
		{
			name: "delete with new_str omitted", old: "package main\n\n", omitNew: true,
			want: "func main() {\n\tprintln(\"hi\")\n}\n",
		},
		{name: "not found", old: "println(\"bye\")", wantType: tool.ErrUnknown, wantOut: "does not occur verbatim in f.go"},
		{name: "whitespace matters", old: "func main(){", wantType: tool.ErrUnknown, wantOut: "does not occur"},
		{name: "twice", old: "main", wantType: tool.ErrUnknown, wantOut: "occurs 2 times in f.go (starting on lines 1, 3)"},
		{name: "overlapping", old: "\n\n", new: "\n", want: "package main\nfunc main() {\n\tprintln(\"hi\")\n}\n"},
		{name: "empty old_str", old: "", wantType: tool.ErrParsing, wantOut: "old_str is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, dir := newTool(t)
			writeFiles(t, dir, map[string]string{"f.go": original})
			args := map[string]any{"command": "str_replace", "path": "f.go", "old_str": tt.old}
			if !tt.omitNew {
				args["new_str"] = tt.new
			}
			got, err := run(t, tl, args)
			content := readFile(t, filepath.Join(dir, "f.go"))
			if tt.wantType != "" {
				wantError(t, err, tt.wantType, tt.wantOut)
				if content != original {
					t.Errorf("a failed replacement changed the file to %q", content)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if content != tt.want {
				t.Errorf("file = %q, want %q", content, tt.want)
			}
			if !strings.Contains(got, tt.wantOut) {
				t.Errorf("result = %q, want it to contain %q", got, tt.wantOut)
			}
		})
	}
}

func TestStrReplaceOverlappingIsAmbiguous(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{"f.txt": "aaa"})
	_, err := run(t, tl, map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "aa", "new_str": "b"})
	wantError(t, err, tool.ErrUnknown, "occurs 2 times")
}

func TestStrReplaceManyOccurrences(t *testing.T) {
	tl, dir := newTool(t)
	writeFiles(t, dir, map[string]string{"f.txt": strings.Repeat("x\n", 50)})
	_, err := run(t, tl, map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "x", "new_str": "y"})
	wantError(t, err, tool.ErrUnknown, "more than 10 times", "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)")
}

func TestInsert(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		line    int
		text    string
		want    string
		wantOut string
	}{
		{"at start", "a\nb\n", 0, "new", "new\na\nb\n", "     1\tnew\n     2\ta\n     3\tb\n"},
		{"middle", "a\nb\n", 1, "new", "a\nnew\nb\n", "     2\tnew\n"},
		{"end", "a\nb\n", 2, "new", "a\nb\nnew\n", "     3\tnew\n"},
		{"several lines", "a\nb\n", 1, "x\ny\n", "a\nx\ny\nb\n", "Lines 1-4"},
		{"end without newline", "a\nb", 2, "new", "a\nb\nnew\n", "     3\tnew\n"},
		{"middle without newline", "a\nb", 1, "new", "a\nnew\nb", "     2\tnew\n"},
		{"empty file", "", 0, "first", "first\n", "     1\tfirst\n"},
		{"empty text is an empty line", "a\nb\n", 1, "", "a\n\nb\n", "     2\t\n"},
		{"crlf", "a\r\nb\r\n", 1, "new", "a\r\nnew\nb\r\n", "     2\tnew\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, dir := newTool(t)
			writeFiles(t, dir, map[string]string{"f.txt": tt.file})
			got, err := run(t, tl, map[string]any{"command": "insert", "path": "f.txt", "insert_line": tt.line, "new_str": tt.text})
			if err != nil {
				t.Fatal(err)
			}
			if c := readFile(t, filepath.Join(dir, "f.txt")); c != tt.want {
				t.Errorf("file = %q, want %q", c, tt.want)
			}
			if !strings.Contains(got, tt.wantOut) {
				t.Errorf("result = %q, want it to contain %q", got, tt.wantOut)
			}
		})
	}
}

func TestInsertOutOfRange(t *testing.T) {
	for _, tt := range []struct {
		file string
		line int
		part string
	}{
		{"a\nb\n", -1, "between 0 and 2"},
		{"a\nb\n", 3, "has 2 lines"},
		{"a\nb", 3, "between 0 and 2"},
		{"", 1, "between 0 and 0"},
	} {
		tl, dir := newTool(t)
		writeFiles(t, dir, map[string]string{"f.txt": tt.file})
		_, err := run(t, tl, map[string]any{"command": "insert", "path": "f.txt", "insert_line": tt.line, "new_str": "x"})
		wantError(t, err, tool.ErrParsing, "insert_line", tt.part)
		if c := readFile(t, filepath.Join(dir, "f.txt")); c != tt.file {
			t.Errorf("a failed insert changed the file to %q", c)
		}
	}
}

func TestEditMissingFile(t *testing.T) {
	tl, _ := newTool(t)
	_, err := run(t, tl, map[string]any{"command": "str_replace", "path": "gone.txt", "old_str": "a", "new_str": "b"})
	wantError(t, err, tool.ErrUnknown, "gone.txt does not exist")
	_, err = run(t, tl, map[string]any{"command": "insert", "path": "gone.txt", "insert_line": 0, "new_str": "b"})
	wantError(t, err, tool.ErrUnknown, "gone.txt does not exist")
	_, err = run(t, tl, map[string]any{"command": "insert", "path": ".", "insert_line": 0, "new_str": "b"})
	wantError(t, err, tool.ErrUnknown, "is a directory")
}

func TestArguments(t *testing.T) {
	tl, _ := newTool(t)
	tests := []struct {
		raw  string
		part string
	}{
		{``, "missing required argument command"},
		{`{"path": "f"}`, "missing required argument command"},
		{`{"command": "view"}`, "missing required argument path"},
		{`{"command": "delete", "path": "f"}`, `unknown command "delete"`},
		{`{"command": "delete", "path": "f"}`, "view, create, str_replace, insert and undo_edit"},
		{`{"command": "create", "path": "f"}`, "missing required argument file_text"},
		{`{"command": "create", "path": "f", "file_text": null}`, "missing required argument file_text"},
		{`{"command": "str_replace", "path": "f", "new_str": "x"}`, "missing required argument old_str"},
		{`{"command": "insert", "path": "f"}`, "missing required argument insert_line and new_str"},
		{`{"command": "insert", "path": "f", "insert_line": "2", "new_str": "x"}`, "insert_line"},
		{`{"command": "insert", "path": "f", "insert_line": 1.5, "new_str": "x"}`, "insert_line"},
		{`{"command": "view", "path": "f", "colour": "red"}`, `unknown field "colour"`},
		{`{"command": "view", "path": 3}`, "path"},
		{`{"command": "view", "path": ""}`, "path is empty"},
		{`{"command": "view", "path": "a\u0000b"}`, "NUL"},
		{`{"command": "view", "path": "f"} x`, "unexpected data"},
		{`["view"]`, "arguments of text_editor"},
	}
	for _, tt := range tests {
		_, err := tl.Run(t.Context(), json.RawMessage(tt.raw))
		wantError(t, err, tool.ErrParsing, tt.part)
	}
}

func TestCancelled(t *testing.T) {
	tl, dir := newTool(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := tl.Run(ctx, json.RawMessage(`{"command": "create", "path": "f", "file_text": "x"}`))
	if !errors.Is(err, context.Canceled) || tool.AsError(err).Type != tool.ErrCancelled {
		t.Errorf("error = %v, want a cancellation", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
		t.Error("a cancelled call wrote its file")
	}
}

// confined makes a layout of a working directory, root, beside a directory
// it must not reach, outside, with links from one to the other.
func confined(t testing.TB, base string) (root, outside string) {
	t.Helper()
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(outside, "secret.txt"): "secret\n",
		filepath.Join(root, "sub", "in.txt"): "inside\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"to-outside-dir":   "../outside",                              // relative, to a directory outside
		"to-secret":        filepath.Join(outside, "secret.txt"),      // absolute, to a file outside
		"dangling-out":     filepath.Join(outside, "created.txt"),     // to a file outside that does not exist
		"dangling-chain":   "dangling-out",                            // to the link above
		"to-sub":           "sub",                                     // inside
		"to-in-absolute":   filepath.Join(root, "sub", "in.txt"),      // inside, absolute
		"dangling-in":      "sub/new.txt",                             // inside, does not exist
		"sub/up-and-out":   "../../outside/secret.txt",                // relative, climbing out
		"sub/up-and-in":    "../sub/in.txt",                           // relative, climbing but staying in
		"to-root-parent":   "..",                                      // the parent of root
		"loop-a":           "loop-b",                                  // a loop
		"loop-b":           "loop-a",                                  //
		"dangling-dotdot":  "nowhere/../to-outside-dir/secret.txt",    // lexical ".." after a missing directory
		"dangling-to-link": "missing-dir/../to-outside-dir/fresh.txt", //
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestConfinement(t *testing.T) {
	root, outside := confined(t, t.TempDir())
	tl, err := newEditor(Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	denied := []string{
		"../outside/secret.txt",
		"sub/../../outside/secret.txt",
		"..",
		"../root-sibling.txt",
		filepath.Join(outside, "secret.txt"),
		"/etc/passwd",
		"/",
		"to-outside-dir/secret.txt",
		"to-outside-dir/new.txt",
		"to-outside-dir",
		"to-secret",
		"dangling-out",
		"dangling-chain",
		"sub/up-and-out",
		"to-root-parent/outside/secret.txt",
		"to-root-parent",
		"dangling-dotdot",
		"dangling-to-link",
		filepath.Join(root, "to-secret"),
		filepath.Join(root, "..", "outside", "secret.txt"),
	}
	for _, p := range denied {
		for _, args := range []map[string]any{
			{"command": "view", "path": p},
			{"command": "create", "path": p, "file_text": "pwned\n"},
			{"command": "str_replace", "path": p, "old_str": "secret", "new_str": "pwned"},
			{"command": "insert", "path": p, "insert_line": 0, "new_str": "pwned"},
		} {
			_, err := run(t, tl, args)
			var te *tool.Error
			if !errors.As(err, &te) || te.Type != tool.ErrPermission {
				t.Errorf("%s %s: error = %v, want permission", args["command"], p, err)
			}
		}
	}
	if c := readFile(t, filepath.Join(outside, "secret.txt")); c != "secret\n" {
		t.Errorf("the file outside changed to %q", c)
	}
	entries, err := os.ReadDir(outside)
	if err != nil || len(entries) != 1 {
		t.Errorf("outside holds %v (%v), want only secret.txt", entries, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "root-sibling.txt")); err == nil {
		t.Error("a file was created beside the working directory")
	}

	allowed := map[string]string{ // path → content seen by view
		"sub/in.txt":                      "inside",
		"./sub/../sub/in.txt":             "inside",
		"to-sub/in.txt":                   "inside",
		"to-in-absolute":                  "inside",
		"sub/up-and-in":                   "inside",
		filepath.Join(root, "sub/in.txt"): "inside",
		"to-root-parent/root/sub/in.txt":  "inside",
		"..foo":                           "",
	}
	writeFiles(t, root, map[string]string{"..foo": ""})
	for p, want := range allowed {
		got, err := run(t, tl, map[string]any{"command": "view", "path": p})
		if err != nil {
			t.Errorf("view %s: %v", p, err)
			continue
		}
		if !strings.Contains(got, want) {
			t.Errorf("view %s = %q", p, got)
		}
	}

	// Creating through a dangling link that stays inside creates its target.
	if _, err := run(t, tl, map[string]any{"command": "create", "path": "dangling-in", "file_text": "via link\n"}); err != nil {
		t.Fatal(err)
	}
	if c := readFile(t, filepath.Join(root, "sub", "new.txt")); c != "via link\n" {
		t.Errorf("sub/new.txt = %q", c)
	}

	// A loop is an error, not a hang.
	_, err = run(t, tl, map[string]any{"command": "view", "path": "loop-a"})
	wantError(t, err, tool.ErrUnknown, "loop-a")
}

func TestDirectoryBehindSymlink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	writeFiles(t, real, map[string]string{"f.txt": "x\n"})
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	tl, err := newEditor(Options{Dir: alias})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"f.txt", filepath.Join(alias, "f.txt"), filepath.Join(real, "f.txt")} {
		if _, err := run(t, tl, map[string]any{"command": "view", "path": p}); err != nil {
			t.Errorf("view %s: %v", p, err)
		}
	}
	_, err = run(t, tl, map[string]any{"command": "view", "path": filepath.Join(base, "alias")})
	if err != nil {
		t.Errorf("view of the working directory itself: %v", err)
	}
	_, err = run(t, tl, map[string]any{"command": "view", "path": base})
	wantError(t, err, tool.ErrPermission, "outside the working directory "+alias)
}

func TestNew(t *testing.T) {
	if _, err := newEditor(Options{Dir: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("New with a missing directory succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	writeFiles(t, filepath.Dir(f), map[string]string{"file": ""})
	if _, err := newEditor(Options{Dir: f}); err == nil {
		t.Error("New with a file for a directory succeeded")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tl, err := newEditor(Options{})
	if err != nil || tl.dir != wd || tl.maxFile != defaultMaxFileBytes {
		t.Errorf("newEditor(Options{}) = %+v, %v", tl, err)
	}
}

func TestRegistered(t *testing.T) {
	dir := t.TempDir()
	tl, err := toolbox.New("text_editor", toolbox.Env{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	info := tl.Info()
	if info.Name != "text_editor" || info.Parallel || !json.Valid(info.Parameters) {
		t.Errorf("Info() = %+v", info)
	}
	if _, err := toolbox.New("text_editor", toolbox.Env{Dir: filepath.Join(dir, "missing")}); err == nil {
		t.Error("tool.New with a missing directory succeeded")
	}
}

func TestView(t *testing.T) {
	tl, _ := newTool(t)
	tests := []struct {
		args string
		want tool.View
	}{
		{`{"command": "view", "path": "src"}`, tool.View{Title: "view src", Format: "text", Content: "view src"}},
		{`{"command": "view", "path": "a.go", "view_range": [3, 9]}`, tool.View{Title: "view a.go", Format: "text", Content: "view a.go (lines 3 to 9)"}},
		{`{"command": "create", "path": "a.go", "file_text": "package a\n\nvar x = 1\n"}`, tool.View{Title: "create a.go", Format: "diff",
			Content: "--- /dev/null\n+++ a.go\n@@ -0,0 +1,3 @@\n+package a\n+\n+var x = 1\n"}},
		{`{"command": "create", "path": "e", "file_text": ""}`, tool.View{Title: "create e", Format: "diff", Content: "--- /dev/null\n+++ e\n"}},
		{`{"command": "str_replace", "path": "a.go", "old_str": "x = 1\ny = 2", "new_str": "x = 3"}`, tool.View{Title: "str_replace a.go", Format: "diff",
			Content: "--- a.go\n+++ a.go\n-x = 1\n-y = 2\n+x = 3\n"}},
		{`{"command": "str_replace", "path": "a.go", "old_str": "gone"}`, tool.View{Title: "str_replace a.go", Format: "diff",
			Content: "--- a.go\n+++ a.go\n-gone\n"}},
		{`{"command": "insert", "path": "a.go", "insert_line": 4, "new_str": "one\ntwo"}`, tool.View{Title: "insert a.go", Format: "diff",
			Content: "--- a.go\n+++ a.go\n@@ -4,0 +5,2 @@\n+one\n+two\n"}},
		{`{"command": "rm", "path": "a.go"}`, tool.View{Title: "text_editor", Format: "text", Content: "text_editor(command='rm', path='a.go')"}},
	}
	for _, tt := range tests {
		got := tl.View(tool.NewCall("1", "text_editor", tt.args))
		if got != tt.want {
			t.Errorf("View(%s) =\n%+v\nwant\n%+v", tt.args, got, tt.want)
		}
	}
}

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
	ctx := boundary.WithDecider(context.Background(), boundary.DeciderFunc(func(_ context.Context, r *boundary.Request) (boundary.Answer, error) {
		asked = append(asked, r)
		return boundary.Answer{Approved: approve, Explanation: "test"}, nil
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
		if len(asked) != 1 || asked[0].Permission != boundary.Write || asked[0].Paths[0] != target || !strings.Contains(asked[0].Reason, "undo_edit") {
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
