package autoreview_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/tool"
)

func runTool(t *testing.T, tools []tool.Tool, name, args string) (string, error) {
	t.Helper()
	for _, tl := range tools {
		if tl.Info().Name == name {
			if !json.Valid(tl.Info().Parameters) {
				t.Fatalf("%s: invalid schema", name)
			}
			return tl.Run(context.Background(), json.RawMessage(args))
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func errType(err error) tool.ErrorType {
	var te *tool.Error
	if errors.As(err, &te) {
		return te.Type
	}
	return ""
}

func TestG4_ReadOnlyTools(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "secret", "TOP SECRET")
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "hello\nworld\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "sub/big.txt", strings.Repeat("ü", 20_000)) // 40000 bytes
	writeFile(t, dir, "bin", "\x00\x01\x02")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := autoreview.ReadOnlyTools(dir)

	if out, err := runTool(t, tools, "read_file", `{"path":"a.txt"}`); err != nil || out != "hello\nworld\n" {
		t.Errorf("read a.txt: %q %v", out, err)
	}
	if out, err := runTool(t, tools, "read_file", `{"path":"`+filepath.Join(dir, "a.txt")+`"}`); err != nil || out != "hello\nworld\n" {
		t.Errorf("read by absolute path: %q %v", out, err)
	}
	out, err := runTool(t, tools, "read_file", `{"path":"sub/big.txt"}`)
	if err != nil || !strings.Contains(out, "continue at offset 15872") || !strings.HasPrefix(out, "[read_file sub/big.txt: bytes 0 to 15872 of 40000]\nüü") {
		t.Errorf("big file: %.60q… %v", out, err)
	}
	out, err = runTool(t, tools, "read_file", `{"path":"sub/big.txt","offset":31744}`)
	if err != nil || strings.Contains(out, "continues") || out != "[read_file sub/big.txt: bytes 31744 to 40000 of 40000]\n"+strings.Repeat("ü", (40000-31744)/2) {
		t.Errorf("last chunk: %d bytes, %v", len(out), err)
	}
	if out, err := runTool(t, tools, "read_file", `{"path":"bin"}`); err != nil || !strings.Contains(out, "binary file") {
		t.Errorf("binary: %q %v", out, err)
	}
	for _, tc := range []struct {
		args string
		want tool.ErrorType
	}{
		{`{"path":"../` + filepath.Base(outside) + `/secret"}`, tool.ErrPermission},
		{`{"path":"` + filepath.Join(outside, "secret") + `"}`, tool.ErrPermission},
		{`{"path":"link"}`, tool.ErrPermission},
		{`{"path":"fifo"}`, tool.ErrUnknown},
		{`{"path":"sub"}`, tool.ErrUnknown},
		{`{"path":"missing"}`, tool.ErrUnknown},
		{`{"path":"a.txt","mode":"w"}`, tool.ErrParsing},
		{`{}`, tool.ErrParsing},
		{`{"path":"a.txt","offset":-1}`, tool.ErrParsing},
	} {
		out, err := runTool(t, tools, "read_file", tc.args)
		if err == nil || errType(err) != tc.want || strings.Contains(out, "TOP SECRET") {
			t.Errorf("read_file %s: %q, error %v, want type %s", tc.args, out, err, tc.want)
		}
	}

	out, err = runTool(t, tools, "list_dir", `{}`)
	if err != nil || out != "a.txt  12 bytes\nbin  3 bytes\nfifo\nlink@\nsub/\n" {
		t.Errorf("list_dir: %q %v", out, err)
	}
	if out, err := runTool(t, tools, "list_dir", `{"path":"sub"}`); err != nil || out != "big.txt  40000 bytes\n" {
		t.Errorf("list_dir sub: %q %v", out, err)
	}
	if _, err := runTool(t, tools, "list_dir", `{"path":"/"}`); errType(err) != tool.ErrPermission {
		t.Errorf("list_dir / gave %v", err)
	}
	if _, err := runTool(t, tools, "list_dir", `{"path":"a.txt"}`); err == nil {
		t.Error("list_dir of a file gave no error")
	}

	// Nothing was written.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("the directory now has %d entries", len(entries))
	}
}
