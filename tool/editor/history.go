package editor

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/wardenhq/warden/internal/linediff"
	"github.com/wardenhq/warden/tool"
)

// The bounds of the undo history, which lives in memory (see editorTool.Run's
// undo_edit): per path, at most maxUndoEdits edits whose previous contents
// total at most maxUndoBytes; at most maxUndoPaths paths in all. The oldest
// edits of a path are forgotten first, and the path edited longest ago when
// there are too many paths. An edit whose previous content alone exceeds
// maxUndoBytes (or could not be read) cannot be undone, and nor can the
// edits before it.
const (
	maxUndoEdits = 10
	maxUndoBytes = 1 << 20
	maxUndoPaths = 64
)

// snapshot is what a path held before one edit.
type snapshot struct {
	existed bool // false: the edit created the file, and undoing it removes it
	content string
	perm    fs.FileMode
}

// pathHistory is the undo history of one path, oldest first.
type pathHistory struct {
	snaps []snapshot
	bytes int
	used  uint64 // when the path was last edited, for eviction
	lost  bool   // an edit could not be recorded: earlier ones cannot be undone
}

// history is a tool's undo history, keyed by real (resolved) path.
type history struct {
	mu    sync.Mutex
	paths map[string]*pathHistory
	clock uint64
}

// push records s as the content before an edit of the file at key.
// A nil s records an edit that cannot be undone.
func (h *history) push(key string, s *snapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.paths == nil {
		h.paths = make(map[string]*pathHistory)
	}
	ph := h.paths[key]
	if ph == nil {
		if len(h.paths) >= maxUndoPaths {
			h.evictLocked()
		}
		ph = &pathHistory{}
		h.paths[key] = ph
	}
	h.clock++
	ph.used = h.clock
	if s == nil || len(s.content) > maxUndoBytes {
		*ph = pathHistory{used: ph.used, lost: true}
		return
	}
	ph.snaps = append(ph.snaps, *s)
	ph.bytes += len(s.content)
	ph.lost = false
	for len(ph.snaps) > maxUndoEdits || ph.bytes > maxUndoBytes {
		ph.bytes -= len(ph.snaps[0].content)
		ph.snaps[0] = snapshot{}
		ph.snaps = ph.snaps[1:]
	}
}

// evictLocked forgets the path edited longest ago.
func (h *history) evictLocked() {
	var oldest string
	var at uint64
	for k, ph := range h.paths {
		if oldest == "" || ph.used < at {
			oldest, at = k, ph.used
		}
	}
	delete(h.paths, oldest)
}

// last returns the latest snapshot of key; ok is false when there is none,
// and lost tells why.
func (h *history) last(key string) (s snapshot, ok, lost bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ph := h.paths[key]
	if ph == nil || len(ph.snaps) == 0 {
		return snapshot{}, false, ph != nil && ph.lost
	}
	return ph.snaps[len(ph.snaps)-1], true, false
}

// pop forgets the latest snapshot of key, once it has been restored.
func (h *history) pop(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ph := h.paths[key]
	if ph == nil || len(ph.snaps) == 0 {
		return
	}
	n := len(ph.snaps) - 1
	ph.bytes -= len(ph.snaps[n].content)
	ph.snaps[n] = snapshot{}
	ph.snaps = ph.snaps[:n]
	if len(ph.snaps) == 0 && !ph.lost {
		delete(h.paths, key)
	}
}

// noHistory is the error for an undo_edit with nothing to undo.
func noHistory(path string, lost bool) error {
	if lost {
		return tool.Errorf(tool.ErrUnknown, "undo_edit: the last edit of %s cannot be undone: its previous content was too large to keep or could not be read", path)
	}
	return tool.Errorf(tool.ErrUnknown, "undo_edit: there is no edit of %s to undo (this tool keeps the last %d edits of a file made with create, str_replace or insert)", path, maxUndoEdits)
}

// undo restores the file at e.rel to what it was before the last edit
// this tool made to it: its previous content, or no file for a create.
func (e edit) undo(key string) (string, error) {
	s, ok, lost := e.hist.last(key)
	if !ok {
		return "", noHistory(e.path, lost)
	}
	if !s.existed {
		if err := e.root.Remove(e.rel); err != nil && !os.IsNotExist(err) {
			return "", ioError(e.path, err)
		}
		e.hist.pop(key)
		return fmt.Sprintf("Last edit to %s undone: the file it created was removed.", e.path), nil
	}
	if err := e.writeText(s.content, s.perm); err != nil {
		return "", err
	}
	e.hist.pop(key)
	lines := linediff.Split(s.content)
	if len(lines) == 0 {
		return fmt.Sprintf("Last edit to %s undone; the file is now empty.", e.path), nil
	}
	return fmt.Sprintf("Last edit to %s undone successfully. It now reads (cat -n):\n%s", e.path, numbered(lines, 1, len(lines))), nil
}

// Precheck implements tool.Precheck: before a call is approved, it rejects
// with a parsing error the arguments Run would reject, a str_replace or
// insert on a file that does not exist, and an undo_edit with nothing to
// undo. Paths it cannot locate are left for Run to report.
func (t *editorTool) Precheck(raw json.RawMessage) error {
	a, err := parseArgs(raw)
	if err != nil {
		return err
	}
	switch *a.Command {
	case "str_replace", "insert", "undo_edit":
	default:
		return nil
	}
	base, rel, err := t.locate(*a.Path)
	if err != nil {
		return nil // Run reports it, after approval as before
	}
	if *a.Command == "undo_edit" {
		if _, ok, lost := t.hist.last(filepath.Join(base, rel)); !ok {
			return parsingOf(noHistory(*a.Path, lost))
		}
		return nil
	}
	fi, err := os.Stat(filepath.Join(base, rel))
	switch {
	case err != nil && os.IsNotExist(err):
		return tool.Errorf(tool.ErrParsing, "%s: %s does not exist; use the create command to make a new file", *a.Command, *a.Path)
	case err == nil && fi.IsDir():
		return tool.Errorf(tool.ErrParsing, "%s: %s is a directory, not a file", *a.Command, *a.Path)
	}
	return nil
}

// parsingOf returns err as a parsing error with the same message.
func parsingOf(err error) error {
	te := tool.AsError(err)
	return &tool.Error{Type: tool.ErrParsing, Message: te.Message}
}
