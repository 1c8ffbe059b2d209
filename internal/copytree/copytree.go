// Package copytree copies a tree of files, directories and symbolic links
// without following the links: what the sandbox does when it quarantines
// across file systems, and what warden eval does when it builds a case's
// workspace.
package copytree

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Options say how Copy treats modes, existing files and special files.
type Options struct {
	// KeepModes keeps each file's permission bits (a directory's with at
	// least 0o700, so that the copy can be filled); otherwise directories
	// are made 0o700 and files 0o600.
	KeepModes bool
	// Exclusive refuses to overwrite a file that exists at the
	// destination; otherwise it is truncated and overwritten.
	Exclusive bool
	// RefuseSpecial makes a socket, device or fifo an error; otherwise
	// it is left out of the copy.
	RefuseSpecial bool
}

// Copy copies the file, link or directory tree at src to dst, creating
// directories as needed and links as links.
func Copy(src, dst string, o Options) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			perm := fs.FileMode(0o700)
			if o.KeepModes {
				info, err := d.Info()
				if err != nil {
					return err
				}
				perm |= info.Mode().Perm()
			}
			return os.MkdirAll(target, perm)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case d.Type().IsRegular():
			perm := fs.FileMode(0o600)
			if o.KeepModes {
				info, err := d.Info()
				if err != nil {
					return err
				}
				perm = info.Mode().Perm()
			}
			return copyFile(path, target, perm, o.Exclusive)
		}
		if o.RefuseSpecial {
			return fmt.Errorf("%s: not a file, directory or link", path)
		}
		return nil
	})
}

// copyFile copies the regular file from to to, created with perm.
func copyFile(from, to string, perm fs.FileMode, exclusive bool) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if exclusive {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	out, err := os.OpenFile(to, flags, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
