package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
)

// Set is a set of prefix rules, indexed by their first token. The zero value
// is an empty set, ready to use; a nil *Set is an empty set too. Once built,
// a Set may be used by many goroutines at once (Add and merge may not run
// concurrently with anything else).
type Set struct {
	rules []*Rule
	index map[string][]*Rule // first-token alternative → rules
	hosts map[string][]string
	// strict counts the prompt and forbidden rules.
	strict int
	// firsts holds the first bytes of index's keys: most words that
	// start no rule are told apart without the map (candidates).
	firsts [256]bool
}

// Add validates r (a non-empty pattern, a known decision, its match and
// not_match examples) and adds it to the set.
func (s *Set) Add(r Rule) error {
	if err := r.check(); err != nil {
		if r.Source != "" {
			return fmt.Errorf("%s: %w", r.Source, err)
		}
		return err
	}
	s.add(&r)
	return nil
}

func (s *Set) add(r *Rule) {
	if s.index == nil {
		s.index = map[string][]*Rule{}
	}
	if r.forms == nil && r.strict() {
		r.forms = spelledForms(r.Pattern)
	}
	s.rules = append(s.rules, r)
	if r.strict() {
		s.strict++
	}
	for i, tok := range r.Pattern[0] {
		if slices.Contains(r.Pattern[0][:i], tok) {
			continue
		}
		s.index[tok] = append(s.index[tok], r)
		if tok != "" {
			s.firsts[tok[0]] = true
		}
	}
}

// merge adds the rules and host executables of o to s.
func (s *Set) merge(o *Set) {
	if o == nil {
		return
	}
	for _, r := range o.rules {
		s.add(r)
	}
	for name, paths := range o.hosts {
		s.addHost(name, paths)
	}
}

func (s *Set) addHost(name string, paths []string) {
	if s.hosts == nil {
		s.hosts = map[string][]string{}
	}
	s.hosts[name] = append(s.hosts[name], paths...)
}

// all returns the rules in the order they were added.
func (s *Set) all() []*Rule {
	if s == nil {
		return nil
	}
	return s.rules
}

// len returns the number of rules.
func (s *Set) len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// hostExecutable returns the absolute paths a host_executable declaration
// gave for the program name (informational: rules on a bare name match any
// path of that basename).
func (s *Set) hostExecutable(name string) []string {
	if s == nil {
		return nil
	}
	return s.hosts[name]
}

// check matches one argv against the rules alone: the strictest decision
// of the matching rules (Allow when none matches) and those rules, in the
// order they were added. It looks at argv only, not at the commands argv
// wraps or at the dangerous-command checks; EvaluateArgv does all that.
func (s *Set) check(argv []string) (Decision, []*Rule) {
	matched := s.match(argv, nil)
	d := Allow
	for _, r := range matched {
		d = d.Stricter(r.Decision)
	}
	return d, matched
}

// candidates returns the rules indexed under argv[0] and, when argv[0] is a
// path, under its basename.
func (s *Set) candidates(prog string) (a, b []*Rule) {
	if s == nil || len(s.index) == 0 {
		return nil, nil
	}
	if prog == "" || s.firsts[prog[0]] {
		a = s.index[prog]
	}
	if strings.IndexByte(prog, '/') >= 0 {
		if base := shell.Base(prog); base != prog && (base == "" || s.firsts[base[0]]) {
			b = s.index[base]
		}
	}
	return a, b
}

// match appends to buf the rules matching argv, each once, in the order
// they were added.
func (s *Set) match(argv []string, buf []*Rule) []*Rule {
	if len(argv) == 0 {
		return buf
	}
	a, b := s.candidates(argv[0])
	for _, r := range a {
		if r.matches(argv) {
			buf = append(buf, r)
		}
	}
	n := len(buf)
	for _, r := range b {
		if r.matches(argv) && !slices.Contains(buf[:n], r) {
			buf = append(buf, r)
		}
	}
	if len(b) > 0 && len(buf) > 1 {
		s.sortRules(buf)
	}
	return buf
}

// sortRules puts rules in the order they were added.
func (s *Set) sortRules(rs []*Rule) {
	pos := func(r *Rule) int { return slices.Index(s.rules, r) }
	slices.SortStableFunc(rs, func(x, y *Rule) int { return pos(x) - pos(y) })
}
