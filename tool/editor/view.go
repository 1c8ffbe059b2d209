package editor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/linediff"
	"github.com/wardenhq/warden/tool"
)

// View renders a call for people: the command and path as the title and,
// for create, str_replace and insert, the change as a diff, and for
// undo_edit the change the undo would make (the file's content now against
// the content it restores) as a diff.
func (t *editorTool) View(call tool.Call) tool.View {
	a, err := parseArgs(call.Arguments)
	if call.ParseError != "" || err != nil {
		return tool.View{Title: Name, Format: "text", Content: call.TextIn(tool.OrderOf(t))}
	}
	path := *a.Path
	title := *a.Command + " " + path
	switch *a.Command {
	case "create":
		var b strings.Builder
		fmt.Fprintf(&b, "--- /dev/null\n+++ %s\n", path)
		if n := lineCount(*a.FileText); n > 0 {
			fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", n)
		}
		prefixLines(&b, "+", *a.FileText)
		return tool.View{Title: title, Format: "diff", Content: b.String()}
	case "str_replace":
		var b strings.Builder
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
		linediff.Write(&b, linediff.Lines(linediff.Split(*a.OldStr), linediff.Split(deref(a.NewStr))))
		return tool.View{Title: title, Format: "diff", Content: b.String()}
	case "insert":
		var b strings.Builder
		n := *a.InsertLine
		fmt.Fprintf(&b, "--- %s\n+++ %s\n@@ -%d,0 +%d,%d @@\n", path, path, n, n+1, max(lineCount(*a.NewStr), 1))
		prefixLines(&b, "+", *a.NewStr)
		return tool.View{Title: title, Format: "diff", Content: b.String()}
	case "undo_edit":
		return tool.View{Title: title, Format: "diff", Content: t.undoDiff(path)}
	}
	content := "view " + path
	if len(a.ViewRange) == 2 {
		content += fmt.Sprintf(" (lines %d to %d)", a.ViewRange[0], a.ViewRange[1])
	}
	return tool.View{Title: title, Format: "text", Content: content}
}

// lineCount returns how many lines text has, a final newline ending the
// last line rather than starting another.
func lineCount(text string) int { return len(linediff.Split(text)) }

// prefixLines writes each line of text to b with prefix before it.
func prefixLines(b *strings.Builder, prefix, text string) {
	for _, line := range linediff.Split(text) {
		b.WriteString(prefix)
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// undoDiff renders what an undo_edit of path would change: the file now
// against the content it restores, line by line (internal/linediff), or a note when
// there is nothing to undo or the path cannot be read.
func (t *editorTool) undoDiff(path string) string {
	base, rel, err := t.locate(path)
	if err != nil {
		return "undo_edit " + path + ": " + tool.AsError(err).Message
	}
	s, ok, lost := t.hist.last(filepath.Join(base, rel))
	if !ok {
		return tool.AsError(noHistory(path, lost)).Message
	}
	now := ""
	if f, err := os.Open(filepath.Join(base, rel)); err == nil {
		if checkOpened(f, path) == nil {
			data, _ := io.ReadAll(io.LimitReader(f, t.maxFile))
			now = string(data)
		}
		f.Close()
	}
	var b strings.Builder
	to := path
	if !s.existed {
		to = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, to)
	linediff.Write(&b, linediff.Lines(linediff.Split(now), linediff.Split(s.content)))
	return b.String()
}
