// Package fspath resolves paths the way the kernel will when a command
// opens them: symbolic links are followed in every component, the last
// one included (a link to a missing file leads where a write would create
// it), and ".." steps back from where the path has actually got to, not
// from the words before it.
package fspath

import (
	"errors"
	"os"
	"path"
	"strings"
)

// maxLinks is how many symbolic links one resolution follows before it
// gives up, as the kernel does (ELOOP).
const maxLinks = 40

// ErrLoop is returned when resolving a path follows too many links.
var ErrLoop = errors.New("too many levels of symbolic links")

// Links is an overlay of symbolic links not (yet) on disk, such as those a
// script creates before it writes through them: it returns the target of
// the link at the absolute, resolved path p. It is consulted before the
// file system.
type Links func(p string) (target string, ok bool)

// Resolve returns the absolute path that p (absolute; it may hold "." and
// "..") reaches: every symbolic link followed, from links and then from
// the file system, and ".." applied to the resolved parent. Components
// below a missing directory are appended as written (cleaned). exists
// reports whether the whole resolved path exists.
func Resolve(p string, links Links) (resolved string, exists bool, err error) {
	if !strings.HasPrefix(p, "/") {
		return "", false, errors.New("fspath: not an absolute path: " + p)
	}
	if links == nil && plain(p) {
		// One question to the kernel instead of one a component: when
		// no component of p is a link, p is where it resolves.
		if exists, ok := withoutLinks(p); ok {
			return p, exists, nil
		}
	}
	return walk(p, links)
}

// plain reports whether the absolute path p is clean and every component
// a name: no ".", "..", empty component or trailing slash, so that it
// resolves to itself when none of its components is a link.
func plain(p string) bool {
	if p == "/" {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		// A component starts at i+1.
		rest := p[i+1:]
		if rest == "" || rest[0] == '/' {
			return false
		}
		if rest[0] == '.' && (len(rest) == 1 || rest[1] == '/' || rest[1] == '.' && (len(rest) == 2 || rest[2] == '/')) {
			return false
		}
	}
	return true
}

// walk is Resolve, component by component.
func walk(p string, links Links) (resolved string, exists bool, err error) {
	rest := p
	cur := "/"
	onDisk := true // cur exists on disk, so lookups below it are worth making
	hops := 0
	for rest != "" {
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := cur + "/" + comp
		if cur == "/" {
			next = "/" + comp
		}
		target, isLink := "", false
		if links != nil {
			target, isLink = links(next)
		}
		if !isLink && onDisk {
			fi, err := os.Lstat(next)
			switch {
			case err != nil:
				onDisk = false
			case fi.Mode()&os.ModeSymlink != 0:
				t, err := os.Readlink(next)
				if err != nil {
					return "", false, err
				}
				target, isLink = t, true
			}
		}
		if !isLink {
			cur = next
			continue
		}
		hops++
		if hops > maxLinks {
			return "", false, ErrLoop
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		// A relative target is relative to the link's directory, which
		// cur still is; either way lookups start again from a directory
		// on disk, or one the overlay knows.
		onDisk = true
		rest = target + "/" + rest
	}
	if !onDisk {
		return cur, false, nil
	}
	_, statErr := os.Lstat(cur)
	return cur, statErr == nil, nil
}
