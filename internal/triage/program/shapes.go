package program

import (
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/vocab"
)

// The shapes many judges share, written once.

// subcommand returns the index in args of the first word that is not an
// option (withArg names the options whose value is the next word) and true;
// when args has no such word, it allows the command as name and returns
// false: a program run with options only is judged routine.
func subcommand(s *judge.Script, args []string, name string, withArg ...string) (int, bool) {
	i := judge.Sub(args, withArg...)
	if i >= len(args) {
		s.Allow(name)
		return i, false
	}
	return i, true
}

// escOrAllow escalates c, for what it does (why, said after the command's
// text), in class at risk when risky holds, and otherwise allows it as
// name: the judge of a program that is routine but for a few options or
// words.
func escOrAllow(s *judge.Script, c *judge.Command, risky bool, class vocab.Class, risk int, why, name string) {
	if risky {
		s.Esc(class, risk, "`"+c.Text+"` "+why)
		return
	}
	s.Allow(name)
}
