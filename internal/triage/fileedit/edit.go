package fileedit

import (
	"io"
	"os"
	"sort"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/protection"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

var _ = judge.RegisterActionJudge(action.FileEdit, judgeFileEdit)

// judgeFileEdit judges a write to files (a text_editor write outside the
// writable roots, or into a protected path).
func judgeFileEdit(v *judge.Judgement, a *action.Action, set *rules.Set) {
	JudgeEdit(v, a, set, false)
}

// JudgeEdit judges a file edit; mcp says it was made by an MCP or function
// tool, whose server's roots, not warden's sandbox, bound its writes.
func JudgeEdit(v *judge.Judgement, a *action.Action, set *rules.Set, mcp bool) {
	s := judge.NewScript(v, set, a.Cwd)
	s.McpHome = mcp
	s.ReadOnly = a.Sandbox == "read-only"
	paths := a.Paths
	if a.Path != "" {
		paths = append([]string{a.Path}, paths...)
	}
	if len(paths) == 0 {
		v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Routine, Risk: judge.Medium, Reason: "a file edit without a path"})
		return
	}
	if s.Home == "" {
		s.Home = judge.HomeOf(paths[0])
	}
	text := a.NewText
	if text == "" {
		text = a.Patch
	}
	c := &judge.Command{Name: "edit", Text: "edit " + strings.Join(paths, ", "), Cwd: s.Cwd}
	added, old := text, a.OldText
	if a.NewText == "" && a.Patch != "" {
		// A patch: what it adds, against what it removes.
		added, old = patchSides(a.Patch)
	}
	wholesale := a.OldText == "" && a.Patch == "" && wholeWrite(a.Operation)
	if wholesale {
		// A file whose name says it holds a protection, written whole:
		// an existing one is judged as the edit from what it holds on
		// disk, a new one by whether it holds anything.
		for _, p := range paths {
			w := protection.ProtectiveName(p)
			if w == "" || w == "lock" || w == "log" || w == "logs" {
				continue
			}
			// The name says what its top-level keys protect
			// (waf.json: {"enabled": false}).
			added = "[" + w + "]\n" + added
			if disk, ok := readBounded(s.Where(p, s.Cwd).Abs); ok {
				old = "[" + w + "]\n" + disk
				if r := droppedSettings(text, disk); r != "" {
					s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` replaces "+p+", whose name says it holds a protection ("+w+"), "+r)
				}
			} else if strings.TrimSpace(protection.Uncommented(text)) == "" {
				s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` writes "+p+", whose name says it holds a protection ("+w+"), with no setting in it")
			}
			break
		}
	}
	if r := protection.RemovesProtection(s.V.K, added, old); r != "" {
		s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` writes `"+r+"`, which removes a protection")
	} else if w := protection.SecurityFile(s.V.K, paths[0]); w != "" {
		s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes a file of security policy or access rules ("+w+"), whose meaning the first pass does not judge")
	} else if protection.ConfigFile(paths[0]) {
		if r := protection.ChangesSecurity(s.V.K, added, old); r != "" {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes a security setting (`"+r+"`) in a way the first pass cannot tell keeps it")
		} else if r := protection.SecurityLine(s.V.K, added, old); r != "" {
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` changes a line about security (`"+r+"`), which the first pass does not judge")
		}
	}
	if dockerfile(paths[0]) {
		dockerfileSteps(s, c, added)
	}
	if a.Patch != "" {
		for _, p := range patchDeletes(a.Patch) {
			if w := protection.ProtectiveName(p); w != "" {
				s.Esc(vocab.SecurityWeakening, judge.High, "`"+c.Text+"` deletes "+p+", whose name says it holds a protection ("+w+")")
				break
			}
		}
	}
	s.WriteFiles(c, paths, text)
}

// wholeWrite reports whether an edit's operation writes a file's whole
// content (create, write, overwrite), not a part of it.
func wholeWrite(op string) bool {
	switch strings.ToLower(op) {
	case "create", "write", "overwrite", "write_file", "create_file", "write_to_file", "create_or_overwrite_file",
		"overwrite_file", "writefile", "createfile":
		return true
	}
	return false
}

// maxDiskRead bounds what the first pass reads of a file it compares a
// whole write against.
const maxDiskRead = 256 << 10

// readBounded returns the start (at most maxDiskRead bytes) of the regular
// file at abs, false when there is none or it cannot be read.
func readBounded(abs string) (string, bool) {
	if abs == "" {
		return "", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDiskRead))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// droppedSettings says how a whole write of text over old drops what old
// held: emptied (no setting left), or most of its keys gone; "" when it
// keeps them. Finer removals are removesProtection's.
func droppedSettings(text, old string) string {
	was := configKeys(old)
	if len(was) == 0 {
		return ""
	}
	if strings.TrimSpace(protection.Uncommented(text)) == "" {
		return "emptying it"
	}
	now := configKeys(text)
	var gone []string
	for k := range was {
		if !now[k] {
			gone = append(gone, k)
		}
	}
	if len(was) >= 3 && 2*len(gone) > len(was) {
		sort.Strings(gone)
		if len(gone) > 4 {
			gone = gone[:4]
		}
		return "dropping most of its settings (" + strings.Join(gone, ", ") + ")"
	}
	return ""
}

// configKeys returns the keys of configuration text's lines (the word
// before ":" or "=", else a line's first word), lower case, at most 64.
func configKeys(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(protection.Uncommented(text), "\n") {
		l = strings.TrimLeft(l, " \t-{[")
		end := strings.IndexAny(l, ":= \t{(\"'")
		if end < 0 {
			end = len(l)
		}
		if k := strings.ToLower(strings.Trim(l[:end], `"'`)); k != "" && len(k) < 64 && (k[0] >= 'a' && k[0] <= 'z' || k[0] == '_') {
			out[k] = true
			if len(out) >= 64 {
				break
			}
		}
	}
	return out
}

// patchSides returns the lines a patch adds and those it removes.
func patchSides(patch string) (added, removed string) {
	var a, r strings.Builder
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			a.WriteString(l[1:])
			a.WriteByte('\n')
		case strings.HasPrefix(l, "-"):
			r.WriteString(l[1:])
			r.WriteByte('\n')
		}
	}
	return a.String(), r.String()
}

// editTools are the names (lower case) of tools that edit files: the
// text_editor of agents' SDKs, apply_patch, the filesystem MCP server's
// edit_file and write_file, and the editing tools of coding agents.
var editTools = judge.Set("text_editor", "str_replace_editor", "str_replace_based_edit_tool", "edit_file", "write_file",
	"create_file", "apply_patch", "patch_file", "edit", "write", "multiedit", "multi_edit", "write_to_file",
	"replace_in_file", "search_replace", "insert_content", "notebookedit", "notebook_edit", "edit_notebook",
	"edit_notebook_file", "create_or_overwrite_file", "overwrite_file", "append_file", "append_to_file")

// Argument names (lower case) of editing tools.
var (
	editPathKeys  = judge.Set("path", "file_path", "filepath", "filename", "file", "target_file", "absolute_path", "notebook_path", "target_file_path")
	editOldKeys   = judge.Set("old_str", "old_string", "oldtext", "old_text", "search", "find")
	editNewKeys   = judge.Set("new_str", "new_string", "newtext", "new_text", "file_text", "content", "contents", "text", "new_source", "replace", "replacement", "insert_text", "code_edit")
	editPatchKeys = judge.Set("patch", "input", "diff", "unified_diff")
	editOpKeys    = judge.Set("command", "operation", "action", "mode")
	// editOps are the operations of text_editor-like tools that write.
	editOps = judge.Set("", "create", "str_replace", "insert", "undo_edit", "write", "append", "replace", "edit", "overwrite",
		"patch", "apply", "delete", "multi_edit")
)

// McpFileEdit returns the file edit an MCP or function call of an editing
// tool makes (ok), or says the call only views a file (view: judge it as a
// read). leaves are the call's arguments. A call whose arguments are not
// those of an edit is neither: the generic judgment of tools applies.
func McpFileEdit(name string, leaves []argument.Leaf, cwd string) (e action.Action, view, ok bool) {
	if !editTools[strings.ToLower(name)] {
		return e, false, false
	}
	op, patch := "", ""
	var olds, news []string
	for _, l := range leaves {
		top := len(l.Path) == len(l.Key)+1 // an argument of the call, not inside one
		switch {
		case l.Key == "command" && !top:
			return e, false, false // an argv: a command, not an edit
		case editOpKeys[l.Key] && top:
			if op == "" {
				op = strings.ToLower(l.Value)
			}
		case editPathKeys[l.Key] && top:
			if e.Path == "" {
				e.Path = l.Value
			}
		case editOldKeys[l.Key] && l.Value != "":
			olds = append(olds, l.Value)
		case editNewKeys[l.Key] && l.Value != "":
			news = append(news, l.Value)
		case editPatchKeys[l.Key] && top && l.Value != "":
			patch = l.Value
		}
	}
	if op == "view" || op == "read" || op == "list" {
		return e, true, true
	}
	if !editOps[op] {
		return e, false, false
	}
	e.Kind, e.Cwd, e.Operation = action.FileEdit, cwd, judge.OrName(op, name)
	e.OldText = strings.Join(olds, "\n")
	e.NewText = strings.Join(news, "\n")
	if patch != "" && (e.NewText == "" || isPatch(patch)) {
		e.Patch = patch
		paths := patchPaths(patch)
		if e.Path == "" && len(paths) > 0 {
			e.Path, paths = paths[0], paths[1:]
		}
		e.Paths = paths
		if e.NewText != "" && !isPatch(e.NewText) {
			e.Patch = ""
		} else {
			e.NewText = ""
		}
	}
	if e.Path == "" && len(e.Paths) == 0 {
		return action.Action{}, false, false
	}
	return e, false, true
}

// isPatch reports whether text is a patch: the apply_patch envelope or a
// unified diff.
func isPatch(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return strings.HasPrefix(t, "*** Begin Patch") || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "diff --git ") ||
		strings.HasPrefix(t, "Index: ") || strings.Contains(t, "\n+++ ") || strings.Contains(t, "\n*** Update File: ")
}

// patchPaths returns the files a patch names: those the apply_patch
// envelope adds, updates, deletes or moves to, and the new side of a
// unified diff.
func patchPaths(patch string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimSpace(p)
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // a unified diff's timestamp
		}
		if p == "" || p == "/dev/null" {
			return
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	for _, l := range strings.Split(patch, "\n") {
		line := strings.TrimRight(l, "\r")
		switch {
		case strings.HasPrefix(line, "*** Add File: "), strings.HasPrefix(line, "*** Update File: "),
			strings.HasPrefix(line, "*** Delete File: "), strings.HasPrefix(line, "*** Move to: "):
			_, p, _ := strings.Cut(line, ": ")
			add(p)
		case strings.HasPrefix(line, "+++ "):
			p := strings.TrimPrefix(line, "+++ ")
			if strings.HasPrefix(p, "b/") {
				p = p[2:]
			}
			add(p)
		}
	}
	return out
}

// patchDeletes returns the files a patch deletes.
func patchDeletes(patch string) []string {
	var out []string
	lines := strings.Split(patch, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		switch {
		case strings.HasPrefix(l, "*** Delete File: "):
			out = append(out, strings.TrimSpace(l[len("*** Delete File: "):]))
		case strings.HasPrefix(l, "+++ /dev/null") && i > 0 && strings.HasPrefix(lines[i-1], "--- "):
			p := strings.TrimSpace(strings.TrimPrefix(lines[i-1], "--- "))
			out = append(out, strings.TrimPrefix(p, "a/"))
		}
	}
	return out
}

// dockerfile reports whether path names a Dockerfile or Containerfile.
func dockerfile(path string) bool {
	base := strings.ToLower(path[strings.LastIndexByte(path, '/')+1:])
	return strings.HasPrefix(base, "dockerfile") || strings.HasPrefix(base, "containerfile") || strings.HasSuffix(base, ".dockerfile")
}

// dockerfileSteps judges the build steps an edit adds to a Dockerfile:
// each RUN as the shell command it is (what it passes on is passed on),
// and ADD of a URL, which puts a remote file into the image.
func dockerfileSteps(s *judge.Script, c *judge.Command, added string) {
	for _, l := range strings.Split(added, "\n") {
		t := strings.TrimSpace(l)
		up := strings.ToUpper(t)
		switch {
		case strings.HasPrefix(up, "ADD ") && (strings.Contains(t, "http://") || strings.Contains(t, "https://")):
			s.Esc(vocab.SecurityWeakening, judge.Medium, "`"+c.Text+"` adds a build step that puts a remote file into the image (`"+textcut.Shorten(t, 60)+"`)")
		case strings.HasPrefix(up, "RUN "):
			sub := s.V.K.Judge(action.Action{Kind: action.Shell, Command: []string{"sh", "-c", strings.TrimSpace(t[4:])}, Cwd: s.Cwd}, nil)
			if sub.Decision != vocab.Allow {
				s.Esc(sub.Class, max(judge.RiskLevel(sub.Risk), judge.Medium), "`"+c.Text+"` adds a build step that is not routine: "+sub.Reason)
			}
		}
	}
}
