package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/wardenhq/warden/internal/fspath"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/tool"
)

// maxStateFiles bounds how many entries of warden's state a hard-link
// check looks at; past it the file is refused (fail closed).
const maxStateFiles = 100000

// checkOpened refuses, with a *tool.Error of type permission, a file or
// directory the tool has opened that the path checks could not see: what
// the kernel reports it opened (/proc/self/fd) is warden's state or under
// /proc — a link swapped in between the check and the open — or it is a
// hard link to a file of warden's state, which no path shows (SPEC G16).
// p is the path as the model gave it, for messages.
func checkOpened(f *os.File, p string) error {
	if runtime.GOOS == "linux" {
		where, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
		if err != nil {
			return tool.Errorf(tool.ErrPermission, "%s: cannot tell where it was opened (%v), so it is not read", p, err)
		}
		if err := outOfReach(p, where); err != nil {
			return err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return tool.Errorf(tool.ErrUnknown, "%s: %v", p, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() || st.Nlink <= 1 {
		return nil
	}
	held, err := stateHolds(uint64(st.Dev), uint64(st.Ino))
	if err != nil {
		return tool.Errorf(tool.ErrPermission, "%s has other hard links, and whether one is in warden's state cannot be told (%v), so it is not used", p, err)
	}
	if held {
		return tool.Errorf(tool.ErrPermission, "%s is a hard link to warden's own state, which no tool may read or write", p)
	}
	return nil
}

// stateHolds reports whether a file of warden's state (wardenhome.Paths,
// links resolved) is the file dev/ino.
func stateHolds(dev, ino uint64) (bool, error) {
	seen := 0
	found := false
	for _, s := range wardenhome.Paths() {
		root, _, err := fspath.Resolve(s, nil)
		if err != nil {
			root = s
		}
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
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && uint64(st.Dev) == dev && uint64(st.Ino) == ino {
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
