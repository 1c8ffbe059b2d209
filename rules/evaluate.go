package rules

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// Match is a rule matching one of the commands of a Result.
type Match struct {
	// Rule is the matching rule.
	Rule *Rule
	// Command is the index of the command in Result.Commands.
	Command int
	// Possible is true when the command has a word that is not literal
	// where the pattern is, so the rule may match: a prompt or forbidden
	// rule then counts as prompt (allow rules only count when certain).
	Possible bool
	// Reason says why a possible match may match when the command runs
	// what its words do not show (words xargs adds, a script file or
	// input a shell reads, words passed on to a program that may run
	// them; see the package doc); "" for a word that is not literal.
	Reason string
}

// Result is the judgement of a script.
type Result struct {
	// Decision is the strictest decision of the matching rules and the
	// defaults (dangerous or opaque: at least prompt).
	Decision Decision
	// Commands are the simple commands found (see package shell).
	Commands []shell.Command
	// Matches are the rules that matched, command by command.
	Matches []Match
	// Dangerous say which commands are dangerous and why ("TEXT: class:
	// reason").
	Dangerous []string
	// Opaque is true when the script could not be fully analysed (or not
	// parsed); Reasons say why.
	Opaque  bool
	Reasons []string
	// KnownSafe is true when every command is a known-safe read-only command
	// (see KnownSafe) and the script is fully analysed.
	KnownSafe bool
	// Err is the parse error, if the script could not be parsed.
	Err error
}

// Evaluate judges a shell script against the rules of set (nil for none):
//
//   - the script is split into simple commands by shell.Parse; a syntax
//     error gives Prompt, with the error in Err and Reasons;
//   - every rule matching any command counts, and the strictest decision
//     wins across all rules and commands;
//   - a command no rule matches is Allow, unless it is dangerous (see
//     Dangerous): then at least Prompt;
//   - a download piped into an interpreter (curl … | sh) is at least Prompt;
//   - an opaque script is at least Prompt, never allowed by a prefix rule;
//     forbidden rules still apply to the commands that could be found.
//
// A command with a non-literal word where a rule's pattern is may match it:
// a prompt or forbidden rule then makes it Prompt, an allow rule does not
// count (Match.Possible).
func Evaluate(set *Set, script string) Result {
	sc, err := shell.Parse(script)
	if err != nil {
		return Result{
			Decision: Prompt,
			Opaque:   true,
			Reasons:  []string{"cannot parse the script: " + err.Error()},
			Err:      fmt.Errorf("parse script: %w", err),
		}
	}
	return judge(set, sc)
}

// EvaluateArgv judges an argv run directly (not through a shell) as
// Evaluate judges a script; wrappers are seen through, so
// ["bash","-lc","SCRIPT"] is judged by its script's commands too.
func EvaluateArgv(set *Set, argv []string) Result {
	return judge(set, shell.FromArgs(argv))
}

// MatchAll returns the rules of set matching the commands of a parsed
// script, as Evaluate finds them, without judging dangers.
func MatchAll(set *Set, sc *shell.Script) []Match {
	if set.len() == 0 {
		return nil
	}
	var out []Match
	for i := range sc.Commands {
		out = matchCommand(set, sc, i, out)
	}
	return out
}

// matchCommand appends the matches of the command i of sc to out: the
// rules matching its words, then those it may run without its words
// showing them (see seeThrough).
func matchCommand(set *Set, sc *shell.Script, i int, out []Match) []Match {
	n := len(out)
	out = ruleMatches(set, &sc.Commands[i], i, out)
	return seeThrough(set, sc, i, n, out, 0)
}

// ruleMatches appends the matches of the rules on the words of the
// command c (index i) to out.
func ruleMatches(set *Set, c *shell.Command, i int, out []Match) []Match {
	if len(c.Args) == 0 {
		return out
	}
	var parsed *command.Parsed
	a, b := set.candidates(c.Args[0])
	for k, list := range [2][]*Rule{a, b} {
		for _, r := range list {
			certain, possible := r.mayMatch(c.Args, c.Literal, &parsed)
			if !certain && !possible {
				continue
			}
			if k == 1 && containsRule(a, r) {
				continue
			}
			if certain {
				out = append(out, Match{Rule: r, Command: i})
			} else if r.strict() {
				out = append(out, Match{Rule: r, Command: i, Possible: true})
			}
		}
	}
	return out
}

func judge(set *Set, sc *shell.Script) Result {
	res := Result{Commands: sc.Commands, Opaque: sc.Opaque, Reasons: sc.Reasons}
	if set.len() > 0 {
		res.Matches = make([]Match, 0, 2*len(sc.Commands)) // most commands match a rule or two
	}
	d := Allow
	safe := !sc.Opaque && len(sc.Commands) > 0
	for i := range sc.Commands {
		c := &sc.Commands[i]
		n := len(res.Matches)
		res.Matches = matchCommand(set, sc, i, res.Matches)
		matched := len(res.Matches) > n
		for _, m := range res.Matches[n:] {
			if m.Possible {
				d = d.Stricter(Prompt)
			} else {
				d = d.Stricter(m.Rule.Decision)
			}
		}
		if reason := dangerousCommand(c); reason != "" {
			res.Dangerous = append(res.Dangerous, c.Text+": "+reason)
			if !matched {
				d = d.Stricter(Prompt)
			}
			safe = false
		} else if safe && !undangerousKnownSafe(c) {
			safe = false
		}
	}
	for _, reason := range pipelineDangers(sc) {
		res.Dangerous = append(res.Dangerous, reason)
		d = d.Stricter(Prompt)
		safe = false
	}
	if sc.Opaque {
		d = d.Stricter(Prompt)
	}
	if len(res.Matches) == 0 {
		res.Matches = nil // as before the room was made
	}
	res.Decision = d
	res.KnownSafe = safe
	return res
}

func containsRule(list []*Rule, r *Rule) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

// Report renders the result for people: the decision, the simple commands
// found (with their wrappers), the rules that matched, the dangerous
// commands and why the script is opaque.
func (r Result) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "decision: %s\n", Word(r.Decision))
	if r.Err != nil {
		fmt.Fprintf(&b, "error: %v\n", r.Err)
	}
	if len(r.Commands) > 0 {
		b.WriteString("commands:\n")
		for i, c := range r.Commands {
			fmt.Fprintf(&b, "  %d. %s", i+1, c.Text)
			if len(c.Wrappers) > 0 {
				fmt.Fprintf(&b, "  (via %s)", strings.Join(c.Wrappers, ", "))
			}
			b.WriteByte('\n')
		}
	}
	if len(r.Matches) > 0 {
		b.WriteString("rules:\n")
		for _, m := range r.Matches {
			may := ""
			if m.Reason != "" {
				may = " (may match: " + m.Reason + ")"
			} else if m.Possible {
				may = " (may match: a word is not literal)"
			}
			fmt.Fprintf(&b, "  %s %s %s on command %d%s", m.Rule.Source, m.Rule, Word(m.Rule.Decision), m.Command+1, may)
			if m.Rule.Justification != "" {
				fmt.Fprintf(&b, ": %s", m.Rule.Justification)
			}
			b.WriteByte('\n')
		}
	}
	if len(r.Dangerous) > 0 {
		b.WriteString("dangerous:\n")
		for _, s := range r.Dangerous {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	if r.Opaque {
		b.WriteString("opaque:\n")
		for _, s := range r.Reasons {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	if r.KnownSafe {
		b.WriteString("known safe: every command is read-only\n")
	}
	return b.String()
}
