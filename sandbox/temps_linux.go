//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// tempCovers returns the temporary directories a workspace-write command
// gets private ones at (see Policy.TempDir): /tmp, /dev/shm and $TMPDIR,
// resolved, outer ones first, each with the run's own directory under
// TempDir (made here when missing) or none (a new tmpfs). A temporary
// directory that lies in one of roots (a workspace at /tmp, a $TMPDIR in the
// workspace) is the person's writable root and is not covered; roots
// inside a covered one are bound back by the helper. Missing ones are left
// out.
func (p Policy) tempCovers(roots []string) ([]confine.Temp, error) {
	var out []confine.Temp
	for _, d := range tempDirs() {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		if slices.ContainsFunc(roots, func(r string) bool { return within(r, real) }) ||
			slices.ContainsFunc(out, func(t confine.Temp) bool { return t.Path == real }) {
			continue
		}
		out = append(out, confine.Temp{Path: real})
	}
	// Outer ones first: one inside another is made in it, not covered.
	slices.SortFunc(out, func(a, b confine.Temp) int { return strings.Compare(a.Path, b.Path) })
	if p.TempDir == "" || len(out) == 0 {
		return out, nil
	}
	base, err := privateTempRoot(p.TempDir)
	if err != nil {
		return nil, err
	}
	for i, t := range out {
		if slices.ContainsFunc(out[:i], func(o confine.Temp) bool { return within(o.Path, t.Path) }) {
			continue
		}
		name := "tmpdir"
		switch t.Path {
		case "/tmp":
			name = "tmp"
		case "/dev/shm":
			name = "shm"
		}
		src := filepath.Join(base, name)
		if err := os.Mkdir(src, 0o700); err == nil {
			// As /tmp: anyone in the sandbox may create, only owners
			// remove (the run's root directory keeps others out).
			err = os.Chmod(src, 0o777|fs.ModeSticky)
			if err != nil {
				return nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
			}
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
		}
		if fi, err := os.Lstat(src); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("sandbox: private temporary directory %s is not a directory", src)
		}
		out[i].Source = src
	}
	return out, nil
}

// privateTempRoot makes dir (mode 0700) when missing and returns it
// resolved; it must be a directory.
func privateTempRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: private temporary directory: %w", err)
	}
	return real, nil
}

// programPath returns path, the program a sandboxed command executes, with
// its links resolved when it then lies under one of the covered temporary
// directories: the helper binds that file alone at its resolved path (the
// directories around it are the command's private ones), so the
// program the caller chose still runs. Other paths are returned as they
// are.
func programPath(path string, temps []confine.Temp) string {
	if len(temps) == 0 || !filepath.IsAbs(path) {
		return path
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path
	}
	for _, t := range temps {
		if within(t.Path, real) {
			return real
		}
	}
	return path
}
