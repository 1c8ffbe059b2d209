package judge

import (
	"sync"

	"github.com/wardenhq/warden/internal/triage/secret"
)

// pathSecrets remembers secret.PathOf's answers: the judgements of a run
// ask about the same paths again and again (the workspace's files, the
// home's dot files), and classifying one costs about as much as judging a
// simple command. PathOf reads only its arguments, so an answer never goes
// stale; the cache is emptied when it grows past maxPathSecrets.
type pathSecrets struct {
	mu sync.Mutex
	m  map[pathSecretKey]pathSecret
}

// maxPathSecrets bounds the paths remembered.
const maxPathSecrets = 4096

type pathSecretKey struct {
	p   string
	own bool
}

type pathSecret struct {
	level int
	what  string
}

// of is secret.PathOf(p, own), remembered.
func (c *pathSecrets) of(p string, own bool) (int, string) {
	if c == nil {
		return secret.PathOf(p, own)
	}
	key := pathSecretKey{p, own}
	c.mu.Lock()
	r, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return r.level, r.what
	}
	r.level, r.what = secret.PathOf(p, own)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxPathSecrets {
		c.m = make(map[pathSecretKey]pathSecret, 64)
	}
	c.m[key] = r
	c.mu.Unlock()
	return r.level, r.what
}
