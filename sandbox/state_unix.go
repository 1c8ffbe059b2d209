//go:build unix && !linux

package sandbox

import "os"

// renameNoFollow renames path to to.
func renameNoFollow(path, to string) error { return os.Rename(path, to) }
