package editor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// maxLinks bounds how many dangling symbolic links realPath follows.
const maxLinks = 40

// resolve returns the location of the path p, as the model gave it, relative
// to the tool's directory with every symbolic link followed. A relative p is
// taken relative to the directory. A path that resolves outside the
// directory gives a *tool.Error of type permission.
func (t *editorTool) resolve(p string) (string, error) {
	if p == "" {
		return "", tool.Errorf(tool.ErrParsing, "the path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", tool.Errorf(tool.ErrParsing, "the path %q contains a NUL byte", p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(t.dir, abs)
	}
	real, err := realPath(filepath.Clean(abs), 0)
	if err != nil {
		return "", tool.Errorf(tool.ErrUnknown, "resolving %s: %v", p, err)
	}
	rel, ok := within(t.real, real)
	if !ok {
		return "", tool.Errorf(tool.ErrPermission, "%s is outside the working directory %s", p, t.dir)
	}
	return rel, nil
}

// locate returns the directory a call works under and the path relative to
// it. Without a sandbox that is the working directory, which the path may
// not leave; with one, a path outside it is located under "/".
func (t *editorTool) locate(p string) (base, rel string, err error) {
	rel, err = t.resolve(p)
	if err == nil || t.sandbox == nil {
		return t.real, rel, err
	}
	var te *tool.Error
	if !errors.As(err, &te) || te.Type != tool.ErrPermission {
		return "", "", err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(t.dir, abs)
	}
	real, rerr := realPath(filepath.Clean(abs), 0)
	if rerr != nil {
		return "", "", tool.Errorf(tool.ErrUnknown, "resolving %s: %v", p, rerr)
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
		Kind: boundary.Write, Paths: []string{real}, Sandbox: string(t.sandbox.Mode),
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

// realPath returns the absolute, clean path p with its symbolic links
// followed. The longest prefix of p that exists is resolved with
// filepath.EvalSymlinks and the rest, which does not exist and so holds no
// links, is appended. When that prefix ends in a dangling symbolic link
// (one whose target does not exist), the link is followed by hand, so that
// creating a file through it is confined like any other write; links counts
// how many were followed so far.
func realPath(p string, links int) (string, error) {
	prefix, rest := p, ""
	for {
		if _, err := os.Lstat(prefix); err == nil {
			break
		}
		parent := filepath.Dir(prefix)
		if parent == prefix {
			break
		}
		rest = filepath.Join(filepath.Base(prefix), rest)
		prefix = parent
	}
	resolved, err := filepath.EvalSymlinks(prefix)
	if err == nil {
		return filepath.Join(resolved, rest), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("following symbolic links: %w", err)
	}
	// prefix exists but does not resolve: it is a dangling link.
	if links >= maxLinks {
		return "", fmt.Errorf("following symbolic links: too many links at %s", prefix)
	}
	target, err := os.Readlink(prefix)
	if err != nil {
		return "", fmt.Errorf("following symbolic links: %w", err)
	}
	if !filepath.IsAbs(target) {
		dir, err := filepath.EvalSymlinks(filepath.Dir(prefix))
		if err != nil {
			return "", fmt.Errorf("following symbolic links: %w", err)
		}
		target = filepath.Join(dir, target)
	}
	return realPath(filepath.Join(target, rest), links+1)
}
