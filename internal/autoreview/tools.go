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
		pagedTool("read_file", "Reads a text file of the workspace, about 16 KiB at a time. Paths are relative to "+dir+
			" or absolute inside it. A long file is shown in chunks: each says the offset to continue at.",
			"The file to read.", "Byte offset to start reading at (default 0).", true, fsys.readFile),
		pagedTool("list_dir", "Lists a directory of the workspace: sub-directories end in /, symbolic links in @, files show their size. Paths are relative to "+dir+
			" or absolute inside it; the default is the workspace itself. A long listing is shown in pages: each says the offset to continue at.",
			"The directory to list (default: the workspace).", "Index of the first entry to list (default 0).", false, fsys.listDir),
	}
}

// pagedTool is a read-only tool of the workspace, safe to run in parallel,
// whose arguments are a path and the offset of a page, described by path
// and offset (the path required when pathRequired).
func pagedTool(name, description, path, offset string, pathRequired bool, fn func(context.Context, json.RawMessage) (string, error)) tool.Tool {
	required := ""
	if pathRequired {
		required = `"required":["path"],`
	}
	return tool.Func{
		Spec: tool.Info{
			Name:        name,
			Description: description,
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"` + path + `"},` +
				`"offset":{"type":"integer","description":"` + offset + `"}},` +
				required + `"additionalProperties":false}`),
			Parallel: true,
		},
		Fn: fn,
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

// pageArgs reads the arguments of the pagedTool name: the path (required
// when pathRequired) and the offset, which must not be negative.
func pageArgs[N int | int64](name string, raw json.RawMessage, pathRequired bool) (string, N, error) {
	var args struct {
		Path   string `json:"path"`
		Offset N      `json:"offset"`
	}
	if err := tool.DecodeArguments(name, raw, &args); err != nil {
		return "", 0, err
	}
	if pathRequired && args.Path == "" {
		return "", 0, tool.Errorf(tool.ErrParsing, "%s: path is required", name)
	}
	if args.Offset < 0 {
		return "", 0, tool.Errorf(tool.ErrParsing, "%s: offset must not be negative", name)
	}
	return args.Path, args.Offset, nil
}

// readFile implements read_file.
func (f *readOnlyFS) readFile(_ context.Context, raw json.RawMessage) (string, error) {
	path, offset, err := pageArgs[int64]("read_file", raw, true)
	if err != nil {
		return "", err
	}
	file, info, err := f.openAs(path, func(info fs.FileInfo) error {
		switch {
		case info.IsDir():
			return tool.Errorf(tool.ErrUnknown, "%s is a directory; use list_dir", path)
		case !info.Mode().IsRegular():
			return tool.Errorf(tool.ErrUnknown, "%s is not a regular file (%s)", path, info.Mode().Type())
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", tool.Errorf(tool.ErrUnknown, "%s changed while it was opened", path)
	}
	size := info.Size()
	if offset >= size && size > 0 {
		return "", tool.Errorf(tool.ErrParsing, "offset %d is past the end of %s (%d bytes)", offset, path, size)
	}
	buf := make([]byte, readChunk)
	n, err := file.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", tool.Errorf(tool.ErrUnknown, "reading %s: %v", path, err)
	}
	buf = buf[:n]
	if bytes.IndexByte(buf[:min(len(buf), 8<<10)], 0) >= 0 {
		return fmt.Sprintf("[%s is a binary file of %d bytes; not shown]", path, size), nil
	}
	// Do not end in the middle of a UTF-8 sequence.
	end := len(buf)
	if int64(end)+offset < size && end > 0 {
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
	next := offset + int64(end)
	if offset == 0 && next >= size {
		return text, nil
	}
	// A header first, where the file's own text cannot come before it.
	text = fmt.Sprintf("[read_file %s: bytes %d to %d of %d]\n", path, offset, next, size) + text
	if next < size {
		text += fmt.Sprintf("\n[the file continues: %d more bytes; continue at offset %d]", size-next, next)
	}
	return text, nil
}

// listDir implements list_dir.
func (f *readOnlyFS) listDir(_ context.Context, raw json.RawMessage) (string, error) {
	path, offset, err := pageArgs[int]("list_dir", raw, false)
	if err != nil {
		return "", err
	}
	d, _, err := f.openAs(path, func(info fs.FileInfo) error {
		if !info.IsDir() {
			return tool.Errorf(tool.ErrUnknown, "%s is not a directory", path)
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
		return "", tool.Errorf(tool.ErrUnknown, "listing %s: %v", path, err)
	}
	if where != "" {
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return fsguard.Hidden(filepath.Join(where, e.Name())) })
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if offset > 0 && offset >= len(entries) {
		return "", tool.Errorf(tool.ErrParsing, "offset %d is past the end of %s (%d entries)", offset, path, len(entries))
	}
	var page strings.Builder
	i, shown := offset, 0
	for ; i < len(entries) && i-offset < maxListEntries; i++ {
		line := entryLine(entries[i])
		if i > offset && shown+len(neutralise(line)) > listBytes {
			break
		}
		shown += len(neutralise(line))
		page.WriteString(line)
	}
	if len(entries) == 0 {
		return "[empty directory]\n", nil
	}
	if offset == 0 && i == len(entries) {
		return page.String(), nil
	}
	// A header first, where no entry's name can come before it.
	text := fmt.Sprintf("[list_dir %s: entries %d to %d of %d]\n", path, offset, i, len(entries)) + page.String()
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
