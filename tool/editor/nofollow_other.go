//go:build !unix

package editor

// noFollow is 0 where the system has no O_NOFOLLOW.
const noFollow = 0
