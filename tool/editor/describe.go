package editor

import (
	"encoding/json"
	"strconv"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// DescribeAction describes a call, or the write request it made, for the
// reviewer (action.Describer), from the arguments exactly as Run reads
// them: a file edit whose operation is the command (create, str_replace,
// insert, undo_edit, view), with the text replaced and the text written (new_str, or
// file_text for create) and the line of an insert. A write request names
// the resolved paths it writes: one path becomes the edit's path, several
// are listed beside it. Arguments that do not parse, and requests of other
// kinds, are not described here.
func (t *editorTool) DescribeAction(call tool.Call, req *boundary.Request) (action.Action, bool) {
	if call.ParseError != "" || req != nil && action.KindOf(req.Permission, false) != action.FileEdit {
		return action.Action{}, false
	}
	a, err := parseArgs(call.Arguments)
	if err != nil {
		return action.Action{}, false
	}
	e := action.Action{Kind: action.FileEdit, Path: deref(a.Path), Operation: *a.Command,
		OldText: deref(a.OldStr), NewText: deref(a.NewStr)}
	if e.NewText == "" {
		e.NewText = deref(a.FileText)
	}
	if a.InsertLine != nil {
		e.Extra = map[string]json.RawMessage{"insert_line": json.RawMessage(strconv.Itoa(*a.InsertLine))}
	}
	if req != nil {
		switch {
		case len(req.Paths) == 1:
			e.Path = req.Paths[0]
		case len(req.Paths) > 1:
			e.Paths = append([]string(nil), req.Paths...)
		}
	}
	return e, true
}

var _ action.Describer = (*editorTool)(nil)

// WorkDir returns the directory the editor works in, for the first pass
// to judge paths where they really lie.
func (t *editorTool) WorkDir() string { return t.dir }
