package autoreview

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reviewer's shell reads but cannot write, even inside the workspace
// (SPEC G4).
func TestG4_ReviewerShellIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	sh := ShellTool(dir)
	if sh == nil {
		t.Skip("no Landlock here")
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sh.Run(context.Background(), []byte(`{"cmd":"cat notes.txt"}`))
	if err != nil || !strings.Contains(out, "the plan") {
		t.Fatalf("read: %q, %v", out, err)
	}
	out, _ = sh.Run(context.Background(), []byte(`{"cmd":"echo x > made.txt"}`))
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("the reviewer's shell wrote a file: %q", out)
	}
	if !strings.Contains(out, "blocked by the sandbox") {
		t.Errorf("a blocked write is not reported: %q", out)
	}
}

// FuzzReadFileFitsAsShown checks the paging of read_file (SPEC G4): for
// any file and offset, a chunk is never cut when shown to the reviewer, and
// following "continue at offset" from the start reaches the end of the
// file in steps that always advance.
func FuzzReadFileFitsAsShown(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), uint16(0))
	f.Add([]byte(strings.Repeat("\xff\xfe\r\n<<<", 9000)), uint16(3))
	f.Add([]byte(strings.Repeat("ü", 20000)), uint16(1))
	f.Add([]byte(strings.Repeat("\u2028a", 12000)), uint16(7))
	dir := f.TempDir()
	fsys := &readOnlyFS{dir: dir}
	f.Fuzz(func(t *testing.T, data []byte, grow uint16) {
		for range int(grow % 4) {
			data = append(data, data...)
		}
		if len(data) > 200<<10 {
			data = data[:200<<10]
		}
		if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		offset, steps := 0, 0
		for {
			raw, _ := json.Marshal(map[string]any{"path": "f", "offset": offset})
			out, err := fsys.readFile(context.Background(), raw)
			if err != nil {
				if offset == 0 || offset < len(data) {
					t.Fatalf("offset %d of %d: %v", offset, len(data), err)
				}
				return
			}
			if shown := wrapToolOutput(out, ""); strings.Contains(shown, "were not shown") {
				t.Fatalf("offset %d: a chunk of %d bytes was cut when shown", offset, len(out))
			}
			i := strings.LastIndex(out, "continue at offset ")
			if i < 0 || strings.HasPrefix(out, "[f is a binary file") {
				return
			}
			var next int
			if err := json.Unmarshal([]byte(strings.TrimSuffix(out[i+len("continue at offset "):], "]")), &next); err != nil {
				t.Fatalf("offset note %q: %v", out[i:], err)
			}
			if next <= offset || next > len(data) {
				t.Fatalf("continue at %d after %d of %d bytes", next, offset, len(data))
			}
			offset = next
			if steps++; steps > len(data) {
				t.Fatal("paging does not end")
			}
		}
	})
}
