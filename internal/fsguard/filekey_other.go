//go:build !unix

package fsguard

import "io/fs"

// fileKey reports no identity where the system gives none: hard links are
// not told apart there.
func fileKey(fs.FileInfo) (dev, ino, nlink uint64, ok bool) { return 0, 0, 0, false }
