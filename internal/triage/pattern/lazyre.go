// Package pattern holds the regular expressions of the first pass,
// compiled on first use: starting warden (a sandbox's helper, a hook)
// does not pay for every pattern the first pass knows.
package pattern

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use.
type Regexp struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

// Lazy returns the regular expression src, to be compiled on first use;
// src must compile (a test compiles every one).
func Lazy(src string) *Regexp { return &Regexp{src: src} }

func (l *Regexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// String returns the source text of the regular expression.
func (l *Regexp) String() string { return l.src }

// The methods below are those of regexp.Regexp, compiling it first.

// MatchString is regexp.Regexp.MatchString.
func (l *Regexp) MatchString(s string) bool { return l.get().MatchString(s) }

// FindString is regexp.Regexp.FindString.
func (l *Regexp) FindString(s string) string { return l.get().FindString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *Regexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindAllString is regexp.Regexp.FindAllString.
func (l *Regexp) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (l *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (l *Regexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
