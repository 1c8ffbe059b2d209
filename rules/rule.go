// Package rules is the deterministic first pass of the sandbox boundary
// (SPEC G14): exec prefix rules with the decisions allow, prompt and
// forbidden, a curated set of known-safe read-only commands, and a detector
// of dangerous commands.
//
// rules come in two formats with the same fields. Codex-style .rules files
// are Starlark calling
//
//	prefix_rule(
//	    pattern = ["git", ["push", "fetch"]],  # tokens; a list is a set of alternatives
//	    decision = "prompt",                   # allow (default) | prompt | forbidden
//	    justification = "talks to the remote",
//	    match = ["git push origin main", ["git", "fetch"]],  # must match this rule
//	    not_match = ["git status"],                          # must not match it
//	)
//
// (host_executable(name=..., paths=[...]) is accepted too, as in Codex). YAML
// (or JSON) files hold the same rules under a top-level rules: key:
//
//	rules:
//	  - pattern: [git, [push, fetch]]
//	    decision: prompt
//	    justification: talks to the remote
//	    match: ["git push origin main", [git, fetch]]
//	    not_match: ["git status"]
//
// A rule matches a command whose words start with the pattern (a prefix
// match); the program token also matches by basename, so /bin/rm matches a
// rule on rm. A prompt or forbidden rule on a program whose option grammar
// warden knows (git, rm, chmod, cp, curl, docker, kubectl, npm, pip, …)
// also matches by meaning, so it cannot be sidestepped by spelling:
// ["git", "push"] matches `git -C repo push` and `git -c k=v push`, and
// ["rm", "-rf"] matches `rm -fr`, `rm -r -f`, `rm -Rf` and `rm --recursive
// --force`. Allow rules match word for word only. The match and not_match examples are checked when the file
// loads: a failing example is a load error naming the rule and the example.
// When several rules match, across all the simple commands of a script, the
// strictest decision wins (forbidden > prompt > allow).
//
// Evaluate judges a whole script: it splits it with package shell, matches
// every simple command, and applies the defaults: a command no rule matches
// is allowed (the sandbox bounds it) unless it is dangerous, then at least
// prompt; a script that cannot be analysed is at least prompt.
//
// Indirection is seen through or judged at least prompt (issue 18): shell
// finds what wrappers, runners, xargs, parallel, git and shell aliases and
// git-NAME helpers run; when the set has a prompt or forbidden rule, a
// command that runs what its words do not show — words xargs adds, a shell
// running a script file, a shell or interpreter reading its program from a
// file or a pipe, code that starts programs or evaluates code, environment
// that loads code, a git command that is not git's own, a rule's words or a
// command line given to another program — may match those rules
// (Match.Reason says why), even when an allow rule matches it.
package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/vocab"
)

// Decision is what a rule decides about a command: the verdict of
// warden's judges (allow, escalate, deny), which the first pass gives
// too, ordered by Strictness and folded by Stricter. It is the public name
// of that one type, not a second type: a rules.Decision is the verdict
// itself. Rules files and `warden rules check` spell it in Codex's words
// (allow, prompt, forbidden; see Word), and those words, their order and
// the exit codes (ExitCode) are contracts. A rule that names no decision
// allows, as in Codex.
type Decision = vocab.Decision

// The decisions of rules, in Codex's words.
const (
	// Allow lets the command run without asking.
	Allow = vocab.Allow
	// Prompt asks (a person or the reviewer) before the command runs:
	// Codex's word for vocab.Escalate.
	Prompt = vocab.Escalate
	// Forbidden refuses the command: Codex's word for vocab.Deny.
	Forbidden = vocab.Deny
)

// codex are the decisions in the words of rules files, from the least to
// the most strict, with their exit status in `warden rules check`.
var codex = [...]struct {
	d    Decision
	word string
	exit int
}{{Allow, "allow", 0}, {Prompt, "prompt", 10}, {Forbidden, "forbidden", 11}}

// Word returns the decision in the words of rules files: "allow",
// "prompt" or "forbidden".
func Word(d Decision) string {
	for _, c := range codex {
		if c.d == d {
			return c.word
		}
	}
	return "Decision(" + strconv.Quote(string(d)) + ")"
}

// parseDecision parses "allow", "prompt" or "forbidden".
func parseDecision(s string) (Decision, error) {
	for _, c := range codex {
		if c.word == s {
			return c.d, nil
		}
	}
	return "", fmt.Errorf("unknown decision %q: want allow, prompt or forbidden", s)
}

// ExitCode is the exit status of `warden rules check` for the decision:
// 0 allow, 10 prompt, 11 forbidden (and any word it does not know).
func ExitCode(d Decision) int {
	for _, c := range codex {
		if c.d == d {
			return c.exit
		}
	}
	return 11
}

// Rule is one prefix rule.
type Rule struct {
	// Pattern is the prefix: one set of alternative tokens per position.
	Pattern [][]string
	// Decision applies to the commands the rule matches: Allow, Prompt or
	// Forbidden; empty is Allow.
	Decision Decision
	// Justification says why the rule exists (shown in prompts and
	// refusals).
	Justification string
	// Match and NotMatch are examples checked when the rule is added: each
	// must (must not) match the rule.
	Match, NotMatch [][]string
	// Source is where the rule was defined, "file:line:col".
	Source string

	// forms are the pattern read with its program's option grammar, for
	// prompt and forbidden rules (see spelledForms); set when the rule
	// joins a Set.
	forms []command.Parsed
}

// matchArgv reports whether argv starts with the rule's pattern. The program
// token (argv[0]) also matches by basename when it is a path: /bin/rm and
// ./rm match a rule on rm. A pattern token that is itself a path matches
// only that path. A prompt or forbidden rule on a program whose option
// grammar warden knows also matches by meaning: through the program's
// global options and in every spelling of the pattern's options, so that
// ["git", "push"] matches `git -C repo push` and ["rm", "-rf"] matches
// `rm -r -f`, `rm -Rf` and `rm --recursive --force`.
func (r Rule) matchArgv(argv []string) bool {
	if r.forms == nil && r.strict() {
		r.forms = spelledForms(r.Pattern)
	}
	return r.matches(argv)
}

func (r *Rule) matches(argv []string) bool {
	if r.literal(argv) {
		return true
	}
	var parsed *command.Parsed
	return r.strict() && spelledMatch(r.forms, argv, &parsed)
}

// strict reports whether the rule prompts or forbids.
func (r *Rule) strict() bool { return r.Decision != Allow && r.Decision != "" }

// literal reports whether argv starts with the pattern, word for word.
func (r *Rule) literal(argv []string) bool {
	if len(argv) < len(r.Pattern) || len(r.Pattern) == 0 {
		return false
	}
	for i, alts := range r.Pattern {
		if !tokenMatches(i, alts, argv[i]) {
			return false
		}
	}
	return true
}

// mayMatch reports whether the rule matches a command whose words are args,
// with lit saying which are literal: certain when the literal words match
// the whole pattern, or a prompt or forbidden rule matches every literal
// word by meaning (see Matches); possible when the words match up to a
// non-literal word (whose value, or number of words, is unknown), or
// would match by meaning but some word is not literal. parsed caches the
// command's reading across rules.
func (r *Rule) mayMatch(args []string, lit []bool, parsed **command.Parsed) (certain, possible bool) {
	if len(r.Pattern) == 0 {
		return false, false
	}
	certain, possible = r.literalMay(args, lit)
	if certain || possible || !r.strict() || !spelledMatch(r.forms, args, parsed) {
		return certain, possible
	}
	if slices.Contains(lit, false) {
		return false, true
	}
	return true, false
}

func (r *Rule) literalMay(args []string, lit []bool) (certain, possible bool) {
	for i, alts := range r.Pattern {
		if i >= len(args) {
			return false, false
		}
		if i < len(lit) && !lit[i] {
			return false, true
		}
		if !tokenMatches(i, alts, args[i]) {
			return false, false
		}
	}
	return true, false
}

func tokenMatches(pos int, alts []string, tok string) bool {
	for _, a := range alts {
		if a == tok {
			return true
		}
	}
	if pos == 0 && strings.IndexByte(tok, '/') >= 0 {
		base := shell.Base(tok)
		for _, a := range alts {
			if a == base && strings.IndexByte(a, '/') < 0 {
				return true
			}
		}
	}
	return false
}

// String renders the rule's pattern as Starlark, e.g. ["git", ["push", "fetch"]].
func (r Rule) String() string { return patternString(r.Pattern) }

func patternString(p [][]string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, alts := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(alts) == 1 {
			b.WriteString(strconv.Quote(alts[0]))
			continue
		}
		b.WriteByte('[')
		for j, a := range alts {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(a))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

// check validates the rule and its examples.
func (r *Rule) check() error {
	if len(r.Pattern) == 0 {
		return fmt.Errorf("empty pattern")
	}
	for i, alts := range r.Pattern {
		if len(alts) == 0 {
			return fmt.Errorf("pattern element %d is an empty list of alternatives", i)
		}
	}
	switch r.Decision {
	case "":
		r.Decision = Allow
	case Allow, Prompt, Forbidden:
	default:
		return fmt.Errorf("invalid decision %q", r.Decision)
	}
	if r.forms == nil && r.strict() {
		r.forms = spelledForms(r.Pattern)
	}
	for _, ex := range r.Match {
		if !r.matches(ex) {
			return fmt.Errorf("rule %s: match example %q does not match the rule", r, shell.Join(ex))
		}
	}
	for _, ex := range r.NotMatch {
		if r.matches(ex) {
			return fmt.Errorf("rule %s: not_match example %q matches the rule", r, shell.Join(ex))
		}
	}
	return nil
}
