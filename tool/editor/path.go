package editor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/fsguard"
	"github.com/wardenhq/warden/internal/fspath"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// maxResolves bounds how many times realOf resolves a path again.
const maxResolves = 40

// resolve returns the location of the path p, as the model gave it, relative
// to the tool's directory with every symbolic link followed. A relative p is
// taken relative to the directory. A path that resolves outside the
// directory, or into what no tool may reach (outOfReach), gives a
// *tool.Error of type permission.
func (t *editorTool) resolve(p string) (string, error) {
	real, err := t.realOf(p)
	if err != nil {
		return "", err
	}
	rel, ok := within(t.real, real)
	if !ok {
		return "", tool.Errorf(tool.ErrPermission, "%s is outside the working directory %s", p, t.dir)
	}
	return rel, nil
}

// realOf returns the absolute path p (relative to the tool's directory
// when relative) reaches, resolved as the kernel resolves it: every link
// followed, a dangling last one included, and ".." applied to where the
// path has got to, not to the words before it (fspath.Resolve). A path
// that reaches warden's state or a process's files is refused with a
// *tool.Error of type permission, whatever the sandbox (SPEC G16).
func (t *editorTool) realOf(p string) (string, error) {
	if p == "" {
		return "", tool.Errorf(tool.ErrParsing, "the path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", tool.Errorf(tool.ErrParsing, "the path %q contains a NUL byte", p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = t.dir + "/" + abs // not cleaned: ".." is the kernel's to apply
	}
	// A ".." after a missing directory leaves the path's words as written
	// (the kernel would fail there); resolving again until nothing
	// changes leaves no link in the part that exists, so the path checked
	// is the path used.
	real := abs
	for i := 0; ; i++ {
		next, _, err := fspath.Resolve(real, nil)
		if err != nil {
			return "", tool.Errorf(tool.ErrUnknown, "resolving %s: %v", p, err)
		}
		if next == real {
			break
		}
		if i == maxResolves {
			return "", tool.Errorf(tool.ErrUnknown, "resolving %s: too many levels of symbolic links", p)
		}
		real = next
	}
	if err := outOfReach(p, real); err != nil {
		return "", err
	}
	return real, nil
}

// outOfReach refuses, with a *tool.Error of type permission, a resolved
// path no tool may list, read or write from warden's own process, in any
// sandbox mode (fsguard.Check; SPEC G16). p is the path as given, for the
// message.
func outOfReach(p, real string) error {
	if err := fsguard.Check(real); err != nil {
		return tool.Errorf(tool.ErrPermission, "%s: %v", p, err)
	}
	return nil
}

// checkOpened refuses, with a *tool.Error of type permission, a file or
// directory the tool has opened that fsguard.Opened refuses: a link
// swapped in after the path was checked, or a hard link into warden's
// state. p is the path as given, for the message.
func checkOpened(f *os.File, p string) error {
	if err := fsguard.Opened(f); err != nil {
		return tool.Errorf(tool.ErrPermission, "%s: %v", p, err)
	}
	return nil
}

// locate returns the directory a call works under and the path relative to
// it. Without a sandbox that is the working directory, which the path may
// not leave; with one, a path outside it is located under "/".
func (t *editorTool) locate(p string) (base, rel string, err error) {
	real, err := t.realOf(p)
	if err != nil {
		return "", "", err
	}
	if rel, ok := within(t.real, real); ok {
		return t.real, rel, nil
	}
	if t.sandbox == nil {
		return "", "", tool.Errorf(tool.ErrPermission, "%s is outside the working directory %s", p, t.dir)
	}
	return "/", strings.TrimPrefix(real, "/"), nil
}

// mayWrite asks, through boundary.Ask, for a write the sandbox does not
// allow; it returns nil when the write may go ahead.
func (t *editorTool) mayWrite(ctx context.Context, command, real string) error {
	if t.sandbox == nil || t.sandbox.CanWrite(real) {
		return nil
	}
	why := "write outside the writable roots"
	if t.sandbox.Mode == sandbox.ReadOnly {
		why = "write in read-only mode"
	} else if rel, ok := within(t.real, real); ok && protected(rel) {
		why = "write into a protected path"
	}
	dec, err := boundary.Ask(ctx, &boundary.Request{
		Permission: boundary.Write, Paths: []string{real}, Sandbox: string(t.sandbox.Mode),
		Reason: fmt.Sprintf("text_editor %s: %s", command, why),
	})
	switch {
	case err != nil:
		return tool.Errorf(tool.ErrApproval, "%s: %s, and the request to cross the sandbox boundary failed, so it is denied: %s", real, why, dec.Explanation)
	case !dec.Approved:
		return tool.Errorf(tool.ErrApproval, "%s: %s was not approved: %s", real, why, dec.Explanation)
	}
	return nil
}

// protected reports whether a path relative to the working directory lies
// in one of the sandbox's protected names.
func protected(rel string) bool {
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		for _, name := range sandbox.ProtectedNames {
			if part == name {
				return true
			}
		}
	}
	return false
}

// within returns p relative to root and whether p lies in root. Both paths
// must be absolute and clean.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
