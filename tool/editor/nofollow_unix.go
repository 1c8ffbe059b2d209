//go:build unix

package editor

import "syscall"

// noFollow opens a file without following a last symbolic link.
const noFollow = syscall.O_NOFOLLOW
