// Package editor provides the built-in "text_editor" tool, with which a model
// views, creates and edits text files in the task's working directory. Its
// commands and arguments follow Inspect's text_editor tool: view, create,
// str_replace, insert and undo_edit. undo_edit undoes the last create,
// str_replace or insert this tool made to a path, restoring the previous
// content or removing the file the create made; its history is kept in
// memory within the bounds maxUndoEdits, maxUndoBytes and maxUndoPaths.
// An undo is a write like the others, under the same sandbox boundary.
//
// The tool implements tool.Precheck: a str_replace or insert on a file that
// does not exist, and an undo_edit with nothing to undo, are parsing errors
// before the call is approved.
//
// Every path, relative (to the working directory) or absolute, must lie
// inside the working directory once ".." and symbolic links are resolved; a
// path that escapes gives an error of type permission. Files are read and
// written through an os.Root opened on the directory, so a link swapped in
// between the check and the use cannot lead outside either.
//
// Errors the model receives are *tool.Error: parsing for arguments that are
// missing, malformed or out of range and for unknown commands, permission for
// paths outside the directory, and unknown for everything else (a missing
// file, old_str not found or not unique, I/O failures).
//
// The package registers the tool as "text_editor" when imported.
package editor

import (
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
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/fsguard"
	"github.com/wardenhq/warden/internal/linediff"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// Name is the name the tool is registered and called by.
const Name = "text_editor"

// defaultMaxFileBytes is the largest file the tool reads when
// Options.MaxFileBytes is zero.
const defaultMaxFileBytes = 16 << 20

// snippetContext is how many lines around an edit its result shows.
const snippetContext = 4

func init() {
	toolbox.Register(Name, func(env toolbox.Env) (tool.Tool, error) {
		return New(Options{Dir: env.Dir, Sandbox: env.Sandbox})
	})
}

// Options configures a text editor tool.
type Options struct {
	// Dir is the directory the tool works in and may not leave; empty means
	// the current directory of this process. It must exist.
	Dir string
	// MaxFileBytes bounds the size of the files the tool reads, to protect
	// memory; zero or less means 16 MiB.
	MaxFileBytes int64
	// Sandbox, when set, replaces the confinement to Dir by the sandbox's
	// boundary (SPEC G1, G2): files may be read anywhere, and a write the
	// sandbox does not allow — outside the writable roots, or into a
	// protected path such as .git — becomes a boundary request, made
	// through boundary.Ask, and happens only once approved.
	Sandbox *sandbox.Policy
}

// editorTool is the text editor tool. Its calls do not run in parallel.
type editorTool struct {
	dir     string // the directory as configured, absolute and clean
	real    string // dir with its symbolic links resolved
	maxFile int64
	sandbox *sandbox.Policy
	hist    history // for undo_edit
}

// New returns a text editor tool confined to opts.Dir. It fails when the
// directory does not exist. Besides tool.Tool it is a tool.Viewer, a
// tool.Precheck and an action.Describer.
func New(opts Options) (tool.Tool, error) {
	t, err := newEditor(opts)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// newEditor returns the text editor tool New returns.
func newEditor(opts Options) (*editorTool, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("text_editor: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("text_editor: working directory: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("text_editor: working directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("text_editor: working directory %s is not a directory", abs)
	}
	t := &editorTool{dir: abs, real: real, maxFile: opts.MaxFileBytes, sandbox: opts.Sandbox}
	if t.maxFile <= 0 {
		t.maxFile = defaultMaxFileBytes
	}
	return t, nil
}

const parameters = `{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
      "description": "The command to run: view, create, str_replace, insert or undo_edit."
    },
    "path": {
      "type": "string",
      "description": "Path to the file or directory, relative to the working directory or absolute."
    },
    "file_text": {
      "type": ["string", "null"],
      "description": "Required for create: the content of the file to create."
    },
    "insert_line": {
      "type": ["integer", "null"],
      "description": "Required for insert: new_str is inserted after this line (0 inserts at the start of the file)."
    },
    "new_str": {
      "type": ["string", "null"],
      "description": "For str_replace: the replacement text (empty or omitted deletes old_str). Required for insert: the text to insert."
    },
    "old_str": {
      "type": ["string", "null"],
      "description": "Required for str_replace: the text to replace, which must occur exactly once in the file."
    },
    "view_range": {
      "type": ["array", "null"],
      "items": {"type": "integer"},
      "description": "Optional for view of a file: [start, end] line numbers to show, counting from 1; an end of -1 shows to the end of the file."
    }
  },
  "required": ["command", "path"],
  "additionalProperties": false
}`

// Info describes the tool to a model.
func (t *editorTool) Info() tool.Info {
	return tool.Info{
		Name: Name,
		Description: "Use this function to view, create and edit text files. " +
			"view shows a file with line numbers (cat -n) or lists a directory two levels deep; " +
			"create writes file_text to path, replacing any existing file; " +
			"str_replace replaces old_str, which must occur exactly once, with new_str; " +
			"insert inserts new_str after line insert_line; " +
			"undo_edit undoes the last create, str_replace or insert made to path. " +
			"Paths are relative to the working directory " + t.dir + " or absolute, and must stay inside it.",
		Parameters: json.RawMessage(parameters),
		Parallel:   false,
	}
}

// Args are the arguments of a text_editor call, as the tool reads them
// (and the web panel, to show an edit as a diff). Pointers tell missing
// (or null) arguments from empty ones.
type Args struct {
	Command    *string `json:"command"`
	Path       *string `json:"path"`
	FileText   *string `json:"file_text"`
	OldStr     *string `json:"old_str"`
	NewStr     *string `json:"new_str"`
	InsertLine *int    `json:"insert_line"`
	ViewRange  []int   `json:"view_range"`
}

// parseArgs decodes the arguments of a call and checks that the command
// has what it needs.
func parseArgs(raw json.RawMessage) (Args, error) {
	var a Args
	if err := tool.DecodeArguments(Name, raw, &a); err != nil {
		return a, err
	}
	if a.Command == nil {
		return a, missing("command")
	}
	var need []string
	switch *a.Command {
	case "view":
	case "create":
		if a.FileText == nil {
			need = append(need, "file_text")
		}
	case "str_replace":
		if a.OldStr == nil {
			need = append(need, "old_str")
		}
	case "insert":
		if a.InsertLine == nil {
			need = append(need, "insert_line")
		}
		if a.NewStr == nil {
			need = append(need, "new_str")
		}
	case "undo_edit":
	default:
		return a, tool.Errorf(tool.ErrParsing, "unknown command %q: the commands are view, create, str_replace, insert and undo_edit", *a.Command)
	}
	if a.Path == nil {
		return a, missing("path")
	}
	if len(need) > 0 {
		return a, missing(need...)
	}
	return a, nil
}

// missing returns the error for required arguments that are absent.
func missing(names ...string) error {
	return tool.Errorf(tool.ErrParsing, "arguments of %s: missing required argument %s", Name, strings.Join(names, " and "))
}

// Run carries out the command given by the arguments in raw and returns what
// the model reads: a file with line numbers or a directory listing for view,
// a confirmation for create, for str_replace and insert the edited region
// with line numbers, and for undo_edit the restored file. Failures are *tool.Error values (see the package
// documentation); a ctx that is already done gives an error wrapping
// ctx.Err().
func (t *editorTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("text_editor: not started: %w", err)
	}
	base, rel, err := t.locate(*a.Path)
	if err != nil {
		return "", err
	}
	if *a.Command != "view" {
		if err := t.mayWrite(ctx, *a.Command, filepath.Join(base, rel)); err != nil {
			return "", err
		}
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return "", ioError(*a.Path, err)
	}
	defer root.Close()
	e := edit{editorTool: t, root: root, base: base, path: *a.Path, rel: rel, key: filepath.Join(base, rel)}
	switch *a.Command {
	case "view":
		return e.view(a.ViewRange)
	case "create":
		return e.create(*a.FileText)
	case "str_replace":
		return e.strReplace(*a.OldStr, deref(a.NewStr))
	case "insert":
		return e.insert(*a.InsertLine, *a.NewStr)
	default: // "undo_edit"; parseArgs allows no other
		return e.undo(e.key)
	}
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// edit is one call's command on one path.
type edit struct {
	*editorTool
	root *os.Root
	base string // the directory root is opened on
	path string // as the model gave it, for messages
	rel  string // resolved, relative to root
	key  string // resolved and absolute, for the undo history
}

// ioError is the error the model receives when the file system fails.
func ioError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The path in pe is the resolved one, relative to the root; the
		// model knows the file by the path it gave.
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf(tool.ErrUnknown, "%s does not exist", path)
	case errors.Is(err, fs.ErrPermission):
		return tool.Errorf(tool.ErrUnknown, "%s: permission denied by the file system", path)
	}
	return tool.Errorf(tool.ErrUnknown, "%s: %v", path, err)
}

// readText reads the regular file at e.rel, which must be UTF-8 text no
// larger than the tool's limit.
func (e edit) readText() (string, fs.FileMode, error) {
	fi, err := e.root.Stat(e.rel)
	if err != nil {
		return "", 0, ioError(e.path, err)
	}
	if fi.IsDir() {
		return "", 0, tool.Errorf(tool.ErrUnknown, "%s is a directory", e.path)
	}
	if !fi.Mode().IsRegular() {
		return "", 0, tool.Errorf(tool.ErrUnknown, "%s is not a regular file", e.path)
	}
	if fi.Size() > e.maxFile {
		return "", 0, tool.Errorf(tool.ErrUnknown, "%s is %d bytes; this tool reads files of up to %d bytes", e.path, fi.Size(), e.maxFile)
	}
	f, err := e.root.Open(e.rel)
	if err != nil {
		return "", 0, ioError(e.path, err)
	}
	defer f.Close()
	if err := checkOpened(f, e.path); err != nil {
		return "", 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, e.maxFile+1))
	if err != nil {
		return "", 0, ioError(e.path, err)
	}
	if int64(len(data)) > e.maxFile {
		return "", 0, tool.Errorf(tool.ErrUnknown, "%s is larger than the %d bytes this tool reads", e.path, e.maxFile)
	}
	if !utf8.Valid(data) {
		return "", 0, tool.Errorf(tool.ErrUnknown, "%s is not UTF-8 text", e.path)
	}
	return string(data), fi.Mode().Perm(), nil
}

// writeText replaces the content of the file at e.rel, created with perm
// when missing. The file is opened without following a last link (e.rel
// is resolved and holds none) and checked before anything is written
// (checkOpened): a file it turns out to have created where no tool may
// write is removed again.
func (e edit) writeText(text string, perm fs.FileMode) error {
	created := true
	f, err := e.root.OpenFile(e.rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
	if errors.Is(err, fs.ErrExist) {
		created = false
		f, err = e.root.OpenFile(e.rel, os.O_WRONLY|noFollow, perm)
	}
	if err != nil {
		return ioError(e.path, err)
	}
	if err := checkOpened(f, e.path); err != nil {
		f.Close()
		if created {
			_ = e.root.Remove(e.rel)
		}
		return err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return ioError(e.path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return ioError(e.path, err)
	}
	if err := f.Close(); err != nil {
		return ioError(e.path, err)
	}
	return nil
}

// view shows a file with line numbers, or lists a directory.
func (e edit) view(viewRange []int) (string, error) {
	fi, err := e.root.Stat(e.rel)
	if err != nil {
		return "", ioError(e.path, err)
	}
	if fi.IsDir() {
		if viewRange != nil {
			return "", tool.Errorf(tool.ErrParsing, "view_range applies to files; %s is a directory", e.path)
		}
		return e.listDir()
	}
	text, _, err := e.readText()
	if err != nil {
		return "", err
	}
	lines := linediff.Split(text)
	if len(lines) == 0 {
		return "(empty file)", nil
	}
	first, last := 1, len(lines)
	if viewRange != nil {
		if len(viewRange) != 2 {
			return "", tool.Errorf(tool.ErrParsing, "view_range must be two line numbers [start, end], not %d", len(viewRange))
		}
		first, last = viewRange[0], viewRange[1]
		if last == -1 {
			last = len(lines)
		}
		if first < 1 || first > len(lines) || last < first || last > len(lines) {
			return "", tool.Errorf(tool.ErrParsing, "view_range %v is out of range: %s has %d lines, so start must be between 1 and %d and end between start and %d (or -1 for the end)",
				viewRange, e.path, len(lines), len(lines), len(lines))
		}
	}
	return numbered(lines, first, last), nil
}

// listDir lists the non-hidden entries of the directory at e.rel, two
// levels deep, directories marked with a trailing slash.
func (e edit) listDir() (string, error) {
	var b strings.Builder
	var walk func(rel, shown string, depth int) error
	walk = func(rel, shown string, depth int) error {
		f, err := e.root.Open(rel)
		if err != nil {
			return err
		}
		if err := checkOpened(f, filepath.Join(e.path, shownRel(rel, e.rel))); err != nil {
			f.Close()
			return err
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, ent := range entries {
			name := ent.Name()
			if strings.HasPrefix(name, ".") || fsguard.Hidden(filepath.Join(e.base, rel, name)) {
				continue // hidden, or warden's own state: never listed (SPEC G16)
			}
			p := filepath.Join(shown, name)
			if ent.IsDir() {
				b.WriteString(p + "/\n")
				if depth < 2 {
					if err := walk(filepath.Join(rel, name), p, depth+1); err != nil {
						return err
					}
				}
				continue
			}
			b.WriteString(p + "\n")
		}
		return nil
	}
	if err := walk(e.rel, e.path, 1); err != nil {
		var te *tool.Error
		if errors.As(err, &te) {
			return "", err
		}
		return "", ioError(e.path, err)
	}
	if b.Len() == 0 {
		return fmt.Sprintf("%s is an empty directory (hidden entries are not listed)", e.path), nil
	}
	return fmt.Sprintf("Files and directories up to 2 levels deep in %s, excluding hidden items:\n%s", e.path, b.String()), nil
}

// create writes text to the file at e.rel, creating its parent directories
// and replacing any file already there.
func (e edit) create(text string) (string, error) {
	existed := false
	before := &snapshot{perm: 0o644}
	if fi, err := e.root.Stat(e.rel); err == nil {
		if fi.IsDir() {
			return "", tool.Errorf(tool.ErrUnknown, "%s is a directory", e.path)
		}
		existed = true
		if text, perm, err := e.readText(); err == nil {
			before = &snapshot{existed: true, content: text, perm: perm}
		} else {
			before = nil // cannot be undone
		}
	}
	if dir := filepath.Dir(e.rel); dir != "." {
		if err := e.root.MkdirAll(dir, 0o755); err != nil {
			return "", ioError(e.path, err)
		}
	}
	if err := e.writeText(text, 0o644); err != nil {
		return "", err
	}
	e.hist.push(e.key, before)
	if existed {
		return fmt.Sprintf("File overwritten successfully at: %s", e.path), nil
	}
	return fmt.Sprintf("File created successfully at: %s", e.path), nil
}

// strReplace replaces the one occurrence of old in the file with new.
func (e edit) strReplace(old, new string) (string, error) {
	if old == "" {
		return "", tool.Errorf(tool.ErrParsing, "old_str is empty; give the exact text to replace")
	}
	text, perm, err := e.readText()
	if err != nil {
		return "", err
	}
	at := occurrences(text, old, 11)
	switch len(at) {
	case 0:
		return "", tool.Errorf(tool.ErrUnknown, "no replacement was made: old_str does not occur verbatim in %s", e.path)
	case 1:
	default:
		lines := make([]string, 0, 10)
		for _, i := range at[:min(len(at), 10)] {
			lines = append(lines, strconv.Itoa(1+strings.Count(text[:i], "\n")))
		}
		count := strconv.Itoa(len(at)) + " times"
		if len(at) > 10 {
			count = "more than 10 times"
		}
		return "", tool.Errorf(tool.ErrUnknown, "no replacement was made: old_str occurs %s in %s (starting on lines %s); it must occur exactly once, so include more of the surrounding text",
			count, e.path, strings.Join(lines, ", "))
	}
	i := at[0]
	edited := text[:i] + new + text[i+len(old):]
	if err := e.writeText(edited, perm); err != nil {
		return "", err
	}
	e.hist.push(e.key, &snapshot{existed: true, content: text, perm: perm})
	first := 1 + strings.Count(text[:i], "\n")
	last := first + strings.Count(new, "\n")
	return e.edited(edited, first, last), nil
}

// occurrences returns the offsets at which old occurs in text, overlapping
// occurrences included, stopping after limit of them.
func occurrences(text, old string, limit int) []int {
	var at []int
	for off := 0; len(at) < limit; {
		i := strings.Index(text[off:], old)
		if i < 0 {
			break
		}
		at = append(at, off+i)
		_, size := utf8.DecodeRuneInString(text[off+i:])
		off += i + size
	}
	return at
}

// insert inserts text after line n of the file.
func (e edit) insert(n int, text string) (string, error) {
	content, perm, err := e.readText()
	if err != nil {
		return "", err
	}
	lines := linediff.Split(content)
	if n < 0 || n > len(lines) {
		return "", tool.Errorf(tool.ErrParsing, "insert_line %d is out of range: %s has %d lines, so it must be between 0 and %d",
			n, e.path, len(lines), len(lines))
	}
	off := 0
	for _, l := range lines[:n] {
		off += len(l) + 1
	}
	// The text goes in as whole lines.
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	var edited string
	if off > len(content) {
		// After a last line that has no newline: end that line first.
		edited = content + "\n" + text
	} else {
		edited = content[:off] + text + content[off:]
	}
	if err := e.writeText(edited, perm); err != nil {
		return "", err
	}
	e.hist.push(e.key, &snapshot{existed: true, content: content, perm: perm})
	return e.edited(edited, n+1, n+strings.Count(text, "\n")), nil
}

// edited reports a successful edit: the lines first to last of the new text
// with a few lines around them, numbered.
func (e edit) edited(text string, first, last int) string {
	lines := linediff.Split(text)
	if len(lines) == 0 {
		return fmt.Sprintf("The file %s has been edited and is now empty.", e.path)
	}
	from := max(first-snippetContext, 1)
	to := min(last+snippetContext, len(lines))
	return fmt.Sprintf("The file %s has been edited. Lines %d-%d of it now read (cat -n):\n%s", e.path, from, to, numbered(lines, from, to))
}

// numbered renders lines first to last (counting from 1) as cat -n does.
func numbered(lines []string, first, last int) string {
	var b strings.Builder
	for n := first; n <= last; n++ {
		fmt.Fprintf(&b, "%6d\t%s\n", n, lines[n-1])
	}
	return b.String()
}

var (
	_ tool.Tool     = (*editorTool)(nil)
	_ tool.Viewer   = (*editorTool)(nil)
	_ tool.Precheck = (*editorTool)(nil)
)

// shownRel returns rel, a directory under top, relative to top ("." for
// top itself).
func shownRel(rel, top string) string {
	r, err := filepath.Rel(top, rel)
	if err != nil {
		return rel
	}
	return r
}
