package judge

import (
	"os"
	"strings"
	"sync"

	"github.com/wardenhq/warden/internal/fspath"
)

// lookups remembers what the file system said of the directories every
// judgement asks about again — the directory a command runs in, the
// configured writable roots, warden's state directories — so that a run's
// judgements do not stat them each time (a stat costs more than judging a
// simple command).
//
// An answer is kept only while the sandboxed agent cannot change it: the
// path's strict ancestors lie outside every directory the sandbox lets the
// agent write (the temporary directories and the configured writable
// roots), so no link can be planted, and no directory made or removed,
// along the way. Anything that runs outside the sandbox can change
// anything: once a judgement sees an action that asks to (runsOutside),
// the cache is emptied and keeps nothing more. And only judgements of
// commands the sandbox confines read it (confined): a blocked write the
// sandbox would be widened for, a file edit, an MCP call or a fetch is
// judged on what the file system says now, whatever ran unseen (an MCP
// server, a person) since.
type lookups struct {
	mu    sync.Mutex
	off   bool
	m     map[lookupKey]lookup
	state map[stateKey][]string // warden's state directories (stateDirs)
}

// stateKey is what warden's state directories are worked out from: the
// environment and the action's home directory.
type stateKey struct {
	env, managed, home, user string
	userOK                   bool
}

type lookupKey struct {
	p   string
	cwd bool // the lookup of a working directory (lstat first), not a plain resolve
}

type lookup struct {
	path   string
	exists bool
	ok     bool
}

// stop empties the cache for good: an action may run outside the sandbox.
func (c *lookups) stop() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.off, c.m, c.state = true, nil, nil
	c.mu.Unlock()
}

// get returns the remembered answer for key.
func (c *lookups) get(key lookupKey) (lookup, bool) {
	if c == nil {
		return lookup{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.m[key]
	return l, ok
}

// put remembers l for key when the agent cannot change it (roots are the
// configured writable roots).
func (c *lookups) put(key lookupKey, l lookup, roots []string) {
	if c == nil || AgentCanChange(key.p, roots) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off {
		return
	}
	if c.m == nil {
		c.m = map[lookupKey]lookup{}
	}
	if len(c.m) >= 256 {
		clear(c.m)
	}
	c.m[key] = l
}

// AgentCanChange reports whether the sandboxed agent may change what the
// absolute path p resolves to: a strict ancestor of p lies in a
// temporary directory or a writable root (or p is not a clean absolute
// path).
func AgentCanChange(p string, roots []string) bool {
	if !strings.HasPrefix(p, "/") || cleanPath(p) != p {
		return true
	}
	parent := p[:strings.LastIndexByte(p, '/')]
	if parent == "" {
		return false // p is / or a top-level directory: / is never the agent's
	}
	for _, t := range []string{"/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm"} {
		if _, in := within(parent, t); in {
			return true
		}
	}
	for _, r := range roots {
		r = cleanPath(r)
		if !strings.HasPrefix(r, "/") {
			return true
		}
		if _, in := within(parent, r); in {
			return true
		}
	}
	return false
}

// getState returns the state directories remembered for key.
func (c *lookups) getState(key stateKey) ([]string, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dirs, ok := c.state[key]
	return dirs, ok
}

// putState remembers the state directories of key, whose resolved
// directories the agent cannot change.
func (c *lookups) putState(key stateKey, dirs []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off {
		return
	}
	if c.state == nil || len(c.state) >= 64 {
		c.state = map[stateKey][]string{}
	}
	c.state[key] = dirs
}

// resolveWork is what NewScript asks of the directory cwd (clean): where it
// resolves and whether it exists, when it exists on this machine; ok false
// when it does not. fresh asks the file system afresh (Judgement.fresh),
// and remembers what it says.
func (k *Knowledge) resolveWork(cwd string, fresh bool) (string, bool, bool) {
	k = k.or()
	key := lookupKey{cwd, true}
	if l, ok := k.fs.get(key); ok && !fresh {
		return l.path, l.exists, l.ok
	}
	var l lookup
	if _, err := os.Lstat(cwd); err == nil && strings.HasPrefix(cwd, "/") {
		if r, exists, err := fspath.Resolve(cwd, nil); err == nil {
			l = lookup{r, exists, true}
		}
	}
	k.fs.put(key, l, k.roots)
	return l.path, l.exists, l.ok
}

// resolveDir is fspath.Resolve(p, nil) for a directory every judgement
// asks about: where it resolves, ok false on an error. fresh asks the
// file system afresh (Judgement.fresh), and remembers what it says.
func (k *Knowledge) resolveDir(p string, fresh bool) (string, bool) {
	k = k.or()
	key := lookupKey{p, false}
	if l, ok := k.fs.get(key); ok && !fresh {
		return l.path, l.ok
	}
	var l lookup
	if r, exists, err := fspath.Resolve(p, nil); err == nil {
		l = lookup{r, exists, true}
	}
	k.fs.put(key, l, k.roots)
	return l.path, l.ok
}
