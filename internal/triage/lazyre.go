package triage

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use, so that
// starting warden (a sandbox's helper, a hook) does not pay for every
// pattern of the first pass.
type lazyRegexp struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

// lazyRE returns the regular expression src, to be compiled on first use;
// src must compile (a test compiles every one).
func lazyRE(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool              { return l.get().MatchString(s) }
func (l *lazyRegexp) FindString(s string) string             { return l.get().FindString(s) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string   { return l.get().FindStringSubmatch(s) }
func (l *lazyRegexp) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
