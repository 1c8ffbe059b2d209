// Package approvalsreviewer is the vocabulary of approvals_reviewer (SPEC
// G3): who decides requests to cross the sandbox boundary — its names,
// their check, and the decider of the default list, a person alone
// (Person). The decider of every other list, with the first pass and the
// reviewer agent, is package decider's; this package links neither, so
// that a main that does not (warden-hook) reads and checks the same
// configuration.
package approvalsreviewer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
)

// The names of approvals_reviewer. Each is also the name of an approver of
// the approval registry (SPEC P3), except User, which names a person as
// Human does.
const (
	// User is a person at the console (the default).
	User = "user"
	// AutoReview is the reviewer agent; alone, it is the first pass and
	// then the model reviewer for what the first pass passes on.
	AutoReview = "auto_review"
	// FirstPass is the deterministic first pass of SPEC G14 (package
	// triage). Its old name, OldFirstPass, is still accepted (Warnings
	// says it is old), so that "rules" means exec rules only.
	FirstPass = "first_pass"
	// OldFirstPass is the first pass's old name, "rules".
	OldFirstPass = "rules"
	// Human is a person at the console.
	Human = "human"
)

// Check checks an approvals_reviewer list and returns it, with an empty
// list meaning [User]: every name must be User, AutoReview, FirstPass (or
// OldFirstPass), Human or a registered approver, and appear once.
func Check(names []string) ([]string, error) {
	if len(names) == 0 {
		return []string{User}, nil
	}
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n == "":
			return nil, fmt.Errorf("approvals_reviewer: an empty name")
		case seen[Canonical(n)]:
			return nil, fmt.Errorf("approvals_reviewer: %q is listed twice", n)
		case n == User, n == AutoReview, n == FirstPass, n == OldFirstPass, n == Human, approval.Registered(n):
		default:
			return nil, fmt.Errorf("approvals_reviewer %q: want %q, %q, a list of approvers such as [%s, %s, %s], or a registered approver (%s)",
				n, User, AutoReview, FirstPass, AutoReview, Human, strings.Join(approval.Names(), ", "))
		}
		seen[Canonical(n)] = true
	}
	return names, nil
}

// Canonical returns the name n is registered under now: FirstPass for
// OldFirstPass, n itself for every other name.
func Canonical(n string) string {
	if n == OldFirstPass {
		return FirstPass
	}
	if now, ok := approval.Renamed(n); ok {
		return now
	}
	return n
}

// Parse reads an approvals_reviewer value as given on a command line: one
// name, or names separated by commas (with or without surrounding
// brackets), checked with Check. "" is [User].
func Parse(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	var names []string
	if strings.TrimSpace(s) != "" {
		for _, n := range strings.Split(s, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	return Check(names)
}

// Warnings returns a warning for each name of names that is the old name
// of an approver — "rules" for the first pass — saying which to write
// instead; nil when there is none.
func Warnings(names []string) []string {
	var out []string
	for _, n := range names {
		if now := Canonical(n); now != n {
			out = append(out, RenameWarning(n, now))
		}
	}
	return out
}

// RenameWarning says that old is the old name of the approver registered
// as name now.
func RenameWarning(old, name string) string {
	w := fmt.Sprintf("%q is the old name of the approver %q: write %q", old, name, name)
	if old == OldFirstPass {
		w += ` ("rules" now means exec rules only)`
	}
	return w
}

// PersonOnly reports whether names, a checked list, is a person alone
// ([User] or [Human]), whose decider is Person.
func PersonOnly(names []string) bool {
	return len(names) == 0 || len(names) == 1 && (names[0] == User || names[0] == Human)
}

// Person returns the boundary decider of a person alone ([User], the
// default, or [Human]): person decides every request, recorded as the
// approver Human.
func Person(person approval.Approver) *approval.Policy {
	return approval.New(approval.Rule{Name: Human, Match: MatchAll(), Handler: person, Entry: policy.Entry{Name: Human}})
}

// MatchAll matches every call: the match of each approver of a boundary
// decider.
func MatchAll() policy.Matcher {
	m, err := policy.CompileList([]string{"*"})
	if err != nil {
		panic(err) // "*" always compiles
	}
	return m
}

// Session is what the boundary decider of a governed session (`warden
// hook`, `warden mcp`) is built from.
type Session struct {
	// Reviewers is the approvals_reviewer list, checked (Check).
	Reviewers []string
	// RuleFiles are the exec rules files, and Rules the set loaded from
	// them: the first pass judges with them.
	RuleFiles []string
	Rules     *rules.Set
	// ReviewModel is the model spec of the reviewer agent
	// (--auto-review-model).
	ReviewModel string
	// Workdir is the session's working directory.
	Workdir string
	// Person is where a person decides: the queue, or nobody.
	Person approval.Approver
}

// builder is the registered builder of the deciders of lists that are
// more than a person alone (Register).
var builder func(Session) (*approval.Policy, error)

// Register makes build the builder of the boundary deciders of governed
// sessions whose list is more than a person alone: package decider
// registers the full warden's (the first pass, the reviewer agent, the
// dry run). It is called from init functions only.
func Register(build func(Session) (*approval.Policy, error)) { builder = build }

// ErrNoDecider says a list needs a decider this program does not link.
var ErrNoDecider = errors.New("this program links no first pass or reviewer agent: run the full warden")

// Buildable reports whether this program builds the decider of names: a
// person alone always, any other list when a builder is registered.
func Buildable(names []string) bool { return PersonOnly(names) || builder != nil }

// Build builds the boundary decider of s: Person for a person alone, the
// registered builder's for any other list, ErrNoDecider without one.
func Build(s Session) (*approval.Policy, error) {
	if PersonOnly(s.Reviewers) && s.Person != nil {
		return Person(s.Person), nil
	}
	if builder == nil {
		return nil, ErrNoDecider
	}
	return builder(s)
}
