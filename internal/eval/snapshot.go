package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Snapshot is the state of some trees of the disk, path by path: type,
// permission bits, owner, size, modification time (to the nanosecond),
// and the content's SHA-256 for files or the target for links. Two
// snapshots that differ mean something on disk changed.
type Snapshot map[string]string

// TakeSnapshot records every path under roots (each root included); a
// root that does not exist is recorded as absent.
func TakeSnapshot(roots ...string) (Snapshot, error) {
	s := Snapshot{}
	for _, root := range roots {
		if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
			s[root] = "absent"
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			st, err := describe(p)
			if err != nil {
				return err
			}
			s[p] = st
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("snapshot: %w", err)
		}
	}
	return s, nil
}

// describe returns the recorded state of the path p.
func describe(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	st := fmt.Sprintf("%s %o", fi.Mode().Type(), fi.Mode().Perm()|fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st += fmt.Sprintf(" uid=%d gid=%d ino=%d nlink=%d mtime=%d.%09d", sys.Uid, sys.Gid, sys.Ino, sys.Nlink, sys.Mtim.Sec, sys.Mtim.Nsec)
	} else {
		st += fmt.Sprintf(" mtime=%d", fi.ModTime().UnixNano())
	}
	switch {
	case fi.Mode().IsRegular():
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		st += fmt.Sprintf(" size=%d sha256=%s", fi.Size(), hex.EncodeToString(h.Sum(nil)))
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		st += " -> " + target
	}
	return st, nil
}

// Diff returns what changed from s to after, one line per path ("changed
// P: BEFORE => AFTER", "added P", "removed P"), in path order; nil when
// nothing did.
func (s Snapshot) Diff(after Snapshot) []string {
	var out []string
	for p, before := range s {
		now, ok := after[p]
		switch {
		case !ok:
			out = append(out, "removed "+p)
		case now != before:
			out = append(out, fmt.Sprintf("changed %s: %s => %s", p, before, now))
		}
	}
	for p := range after {
		if _, ok := s[p]; !ok {
			out = append(out, "added "+p)
		}
	}
	slices.Sort(out)
	return out
}
