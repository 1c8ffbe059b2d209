// Package fsguard keeps what no tool of the agent may reach — warden's own
// state and /proc — out of reach of the tools that touch files from
// warden's own process (text_editor, the reviewer's read_file and
// list_dir), which no sandbox confines (SPEC G16). Paths are judged as the
// kernel resolves them, and a file once opened is judged again where the
// kernel says it is, so a link swapped in between cannot lead there; a
// hard link to a file of the state, which no path shows, is refused too.
package fsguard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/wardenhq/warden/internal/fspath"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// ErrOutOfReach is wrapped by every refusal of Check and Opened.
var ErrOutOfReach = errors.New("out of reach of tools")

// maxStateFiles bounds how many entries of warden's state a hard-link
// check looks at; past it the file is refused (fail closed).
const maxStateFiles = 100000

// Check refuses the absolute path real, with its links already resolved
// as the kernel resolves them (fspath.Resolve), when it is warden's state
// or lies in it (wardenhome.Covers: $WARDEN_HOME, ~/.warden, the managed
// configuration), or lies under /proc, where warden's own environment,
// command line and open files (the store, the keys) are readable by path.
func Check(real string) error {
	switch {
	case wardenhome.Covers(real):
		return fmt.Errorf("%w: it is warden's own state, which no tool may list, read or write", ErrOutOfReach)
	case real == "/proc" || strings.HasPrefix(real, "/proc/"):
		return fmt.Errorf("%w: it is under /proc, which holds warden's own process", ErrOutOfReach)
	}
	return nil
}

// Hidden reports whether a directory listing leaves out the entry at path
// (absolute; the entry itself is not followed): Check refuses it.
func Hidden(path string) bool { return Check(path) != nil }

// Opened refuses a file or directory a tool has opened when what the
// kernel reports it opened (/proc/self/fd) is refused by Check, or when it
// is a regular file with other hard links, one of which is a file of
// warden's state. Where the kernel cannot say (no /proc), it refuses
// (fail closed) on Linux.
func Opened(f *os.File) error {
	if runtime.GOOS == "linux" {
		where, err := Where(f)
		if err != nil {
			return fmt.Errorf("%w: where it was opened cannot be told: %v", ErrOutOfReach, err)
		}
		if err := Check(where); err != nil {
			return err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	dev, ino, nlink, ok := fileKey(fi)
	if !ok || !fi.Mode().IsRegular() || nlink <= 1 {
		return nil
	}
	held, err := stateHolds(dev, ino)
	if err != nil {
		return fmt.Errorf("%w: it has other hard links, and whether one is in warden's state cannot be told: %v", ErrOutOfReach, err)
	}
	if held {
		return fmt.Errorf("%w: it is a hard link to warden's own state, which no tool may read or write", ErrOutOfReach)
	}
	return nil
}

// Where returns the path of the opened file f as the kernel reports it
// (/proc/self/fd): absolute, every link resolved.
func Where(f *os.File) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// stateHolds reports whether a file of warden's state (wardenhome.Paths,
// links resolved) is the file dev/ino.
func stateHolds(dev, ino uint64) (bool, error) {
	seen := 0
	for _, s := range wardenhome.Paths() {
		root, _, err := fspath.Resolve(s, nil)
		if err != nil {
			root = s
		}
		found := false
		err = filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if seen++; seen > maxStateFiles {
				return fmt.Errorf("more than %d entries in warden's state", maxStateFiles)
			}
			if !d.Type().IsRegular() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil // gone since it was listed
			}
			if d, i, _, ok := fileKey(fi); ok && d == dev && i == ino {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if err != nil {
			return false, err
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}
