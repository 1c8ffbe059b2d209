package autoreview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/fsguard"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

// Limits of the read-only tools. A page of either tool, notes included,
// fits in what the reviewer is shown of one tool output (maxToolOutput),
// so that what the reviewer sees is what the tool read: long files and
// directories are read in pages, each saying where the next begins.
const (
	// readChunk is the most read_file shows at once, measured as the
	// reviewer sees it (neutralised).
	readChunk = maxToolOutput - 512
	// maxListEntries is the most list_dir lists at once.
	maxListEntries = 500
	// listBytes bounds the text of one page of list_dir.
	listBytes = maxToolOutput - 512
)

// ReadOnlyTools returns the read-only tools of the reviewer (SPEC G4):
// read_file and list_dir, confined to dir. Paths are relative to dir or
// absolute inside it; ".." and symbolic links cannot lead out of it (files
// are opened through an os.Root). The tools only ever open files for
// reading and list directories: nothing they do can change anything. Only
// regular files are read, so a named pipe or a device cannot make a call
// hang. The tools return an error if dir is not a directory when called.
func ReadOnlyTools(dir string) []tool.Tool {
	fsys := &readOnlyFS{dir: dir}
	return []tool.Tool{
		tool.Func{
			Spec: tool.Info{
				Name: "read_file",
				Description: "Reads a text file of the workspace, about 16 KiB at a time. Paths are relative to " + dir +
					" or absolute inside it. A long file is shown in chunks: each says the offset to continue at.",
				Parameters: json.RawMessage(`{"type":"object","properties":{` +
					`"path":{"type":"string","description":"The file to read."},` +
					`"offset":{"type":"integer","description":"Byte offset to start reading at (default 0)."}},` +
					`"required":["path"],"additionalProperties":false}`),
				Parallel: true,
			},
			Fn: fsys.readFile,
		},
		tool.Func{
			Spec: tool.Info{
				Name: "list_dir",
				Description: "Lists a directory of the workspace: sub-directories end in /, symbolic links in @, files show their size. Paths are relative to " + dir +
					" or absolute inside it; the default is the workspace itself. A long listing is shown in pages: each says the offset to continue at.",
				Parameters: json.RawMessage(`{"type":"object","properties":{` +
					`"path":{"type":"string","description":"The directory to list (default: the workspace)."},` +
					`"offset":{"type":"integer","description":"Index of the first entry to list (default 0)."}},` +
					`"additionalProperties":false}`),
				Parallel: true,
			},
			Fn: fsys.listDir,
		},
	}
}

// readOnlyFS reads files under dir.
type readOnlyFS struct {
	dir string
}

// open opens the root and turns p into a path relative to it.
func (f *readOnlyFS) open(p string) (*os.Root, string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return nil, "", tool.Errorf(tool.ErrParsing, "the path contains a NUL byte")
	}
	abs, err := filepath.Abs(f.dir)
	if err != nil {
		return nil, "", fmt.Errorf("workspace %s: %w", f.dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, "", fmt.Errorf("workspace: %w", err)
	}
	rel := p
	if p == "" {
		rel = "."
	}
	if filepath.IsAbs(rel) {
		rel = ""
		bases := []string{abs}
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			bases = append(bases, real)
		}
		for _, base := range bases {
			if r, err := filepath.Rel(base, filepath.Clean(p)); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				rel = r
				break
			}
		}
		if rel == "" {
			root.Close()
			return nil, "", tool.Errorf(tool.ErrPermission, "%s is outside the workspace %s", p, abs)
		}
	}
	return root, filepath.Clean(rel), nil
}

// confined turns os.Root's escape errors into permission errors.
func confined(p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return tool.Errorf(tool.ErrUnknown, "%s does not exist", p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return tool.Errorf(tool.ErrPermission, "%s leads outside the workspace", p)
	}
	return tool.Errorf(tool.ErrUnknown, "%s: %v", p, err)
}

// stat opens the workspace as for p (see open) and returns what p names
// there; the root is closed when stat fails.
func (f *readOnlyFS) stat(p string) (*os.Root, string, fs.FileInfo, error) {
	root, rel, err := f.open(p)
	if err != nil {
		return nil, "", nil, err
	}
	info, err := root.Stat(rel)
	if err != nil {
		root.Close()
		return nil, "", nil, confined(p, err)
	}
	return root, rel, info, nil
}

// openAs opens p for reading, once is accepts what p is (its error is the
// call's), and refuses warden's own state, even inside the workspace (SPEC
// G16).
func (f *readOnlyFS) openAs(p string, is func(fs.FileInfo) error) (*os.File, fs.FileInfo, error) {
	root, rel, info, err := f.stat(p)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	if err := is(info); err != nil {
		return nil, nil, err
	}
	file, err := root.Open(rel)
	if err != nil {
		return nil, nil, confined(p, err)
	}
	if err := fsguard.Opened(file); err != nil {
		file.Close()
		return nil, nil, tool.Errorf(tool.ErrPermission, "%s: %v", p, err)
	}
	return file, info, nil
}

// readFile implements read_file.
func (f *readOnlyFS) readFile(_ context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		Path   string `json:"path"`
		Offset int64  `json:"offset"`
	}
	if err := tool.DecodeArguments("read_file", raw, &args); err != nil {
		return "", err
	}
	if args.Path == "" {
		return "", tool.Errorf(tool.ErrParsing, "read_file: path is required")
	}
	if args.Offset < 0 {
		return "", tool.Errorf(tool.ErrParsing, "read_file: offset must not be negative")
	}
	file, info, err := f.openAs(args.Path, func(info fs.FileInfo) error {
		switch {
		case info.IsDir():
			return tool.Errorf(tool.ErrUnknown, "%s is a directory; use list_dir", args.Path)
		case !info.Mode().IsRegular():
			return tool.Errorf(tool.ErrUnknown, "%s is not a regular file (%s)", args.Path, info.Mode().Type())
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", tool.Errorf(tool.ErrUnknown, "%s changed while it was opened", args.Path)
	}
	size := info.Size()
	if args.Offset >= size && size > 0 {
		return "", tool.Errorf(tool.ErrParsing, "offset %d is past the end of %s (%d bytes)", args.Offset, args.Path, size)
	}
	buf := make([]byte, readChunk)
	n, err := file.ReadAt(buf, args.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", tool.Errorf(tool.ErrUnknown, "reading %s: %v", args.Path, err)
	}
	buf = buf[:n]
	if bytes.IndexByte(buf[:min(len(buf), 8<<10)], 0) >= 0 {
		return fmt.Sprintf("[%s is a binary file of %d bytes; not shown]", args.Path, size), nil
	}
	// Do not end in the middle of a UTF-8 sequence.
	end := len(buf)
	if int64(end)+args.Offset < size && end > 0 {
		i := end - 1
		for i > 0 && end-i < utf8.UTFMax && !utf8.RuneStart(buf[i]) {
			i--
		}
		if !utf8.FullRune(buf[i:end]) {
			end = i
		}
	}
	// What is shown is what was read: the chunk ends early rather than be
	// cut once neutralised (an invalid byte shows as three).
	for end > 0 {
		over := len(neutralise(string(buf[:end]))) - readChunk
		if over <= 0 {
			break
		}
		end = max(end-over, 0)
		for end > 0 && !utf8.RuneStart(buf[end]) {
			end--
		}
	}
	text := strings.ToValidUTF8(string(buf[:end]), "\uFFFD")
	next := args.Offset + int64(end)
	if args.Offset == 0 && next >= size {
		return text, nil
	}
	// A header first, where the file's own text cannot come before it.
	text = fmt.Sprintf("[read_file %s: bytes %d to %d of %d]\n", args.Path, args.Offset, next, size) + text
	if next < size {
		text += fmt.Sprintf("\n[the file continues: %d more bytes; continue at offset %d]", size-next, next)
	}
	return text, nil
}

// listDir implements list_dir.
func (f *readOnlyFS) listDir(_ context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
	}
	if err := tool.DecodeArguments("list_dir", raw, &args); err != nil {
		return "", err
	}
	if args.Offset < 0 {
		return "", tool.Errorf(tool.ErrParsing, "list_dir: offset must not be negative")
	}
	d, _, err := f.openAs(args.Path, func(info fs.FileInfo) error {
		if !info.IsDir() {
			return tool.Errorf(tool.ErrUnknown, "%s is not a directory", args.Path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	defer d.Close()
	where, _ := fsguard.Where(d)
	entries, err := d.ReadDir(-1)
	if err != nil {
		return "", tool.Errorf(tool.ErrUnknown, "listing %s: %v", args.Path, err)
	}
	if where != "" {
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return fsguard.Hidden(filepath.Join(where, e.Name())) })
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if args.Offset > 0 && args.Offset >= len(entries) {
		return "", tool.Errorf(tool.ErrParsing, "offset %d is past the end of %s (%d entries)", args.Offset, args.Path, len(entries))
	}
	var page strings.Builder
	i, shown := args.Offset, 0
	for ; i < len(entries) && i-args.Offset < maxListEntries; i++ {
		line := entryLine(entries[i])
		if i > args.Offset && shown+len(neutralise(line)) > listBytes {
			break
		}
		shown += len(neutralise(line))
		page.WriteString(line)
	}
	if len(entries) == 0 {
		return "[empty directory]\n", nil
	}
	if args.Offset == 0 && i == len(entries) {
		return page.String(), nil
	}
	// A header first, where no entry's name can come before it.
	text := fmt.Sprintf("[list_dir %s: entries %d to %d of %d]\n", args.Path, args.Offset, i, len(entries)) + page.String()
	if i < len(entries) {
		text += fmt.Sprintf("[%d more entries; continue at offset %d]\n", len(entries)-i, i)
	}
	return text, nil
}

// entryLine renders one entry of list_dir: its name, then / for a
// directory, @ for a symbolic link, or the size of a regular file.
func entryLine(e fs.DirEntry) string {
	var b strings.Builder
	b.WriteString(e.Name())
	switch t := e.Type(); {
	case t&fs.ModeSymlink != 0:
		b.WriteString("@")
	case t.IsDir():
		b.WriteString("/")
	case t.IsRegular():
		if fi, err := e.Info(); err == nil {
			b.WriteString("  " + strconv.FormatInt(fi.Size(), 10) + " bytes")
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// ShellTool returns the reviewer's read-only shell: the built-in bash tool
// under a read-only sandbox with the network off, in dir, with a short
// timeout. It is inside by construction (SPEC G4, bash.Options.Inside):
// it never makes a boundary request, whatever approver the context holds,
// so nothing it runs can write, reach the network, read warden's state
// (the sandbox hides it) or start another review; what the sandbox
// blocks is reported to the reviewer as blocked. It returns nil when the
// kernel cannot enforce the sandbox, so that the reviewer never runs an
// unrestricted command.
func ShellTool(dir string) tool.Tool {
	if _, err := sandbox.Supported(); err != nil {
		return nil
	}
	return bash.New(bash.Options{
		Dir:      dir,
		Timeout:  30 * time.Second,
		MaxBytes: 64 << 10,
		Sandbox:  &sandbox.Policy{Mode: sandbox.ReadOnly, Workdir: dir},
		Inside:   true,
	})
}
