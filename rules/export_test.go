package rules

import "github.com/wardenhq/warden/internal/vocab"

// What the tests of package rules_test reach that is not exported.

// ParseDecision parses "allow", "prompt" or "forbidden".
var ParseDecision = parseDecision

// ParseYAML parses a YAML (or JSON) rules file.
var ParseYAML = parseYAML

// Matches reports whether argv starts with the rule's pattern.
func (r Rule) Matches(argv []string) bool { return r.matchArgv(argv) }

// Rules returns the rules in the order they were added.
func (s *Set) Rules() []*Rule { return s.all() }

// Len returns the number of rules.
func (s *Set) Len() int { return s.len() }

// HostExecutable returns the paths a host_executable declaration gave.
func (s *Set) HostExecutable(name string) []string { return s.hostExecutable(name) }

// Check matches one argv against the rules alone.
func (s *Set) Check(argv []string) (vocab.Decision, []*Rule) { return s.check(argv) }
