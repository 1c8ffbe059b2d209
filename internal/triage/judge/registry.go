package judge

import (
	"maps"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// The first pass's judges register here by name, so that the machinery
// that walks scripts and actions knows none of them: a programs file's
// judge: names the judge of a program (judgeRegistry), the walker hands
// every command that is not a wrapper to the judge of programs
// (commandJudge), and an action goes to the judge of its kind
// (actionJudges).

// actionJudges are the judges of actions by kind (MCP calls, file edits,
// fetches): registerActionJudge.
var actionJudges = map[action.Kind]func(*Judgement, *action.Action, *rules.Set){}

// RegisterActionJudge makes f the judge of actions of kind. It panics on
// a kind registered twice.
func RegisterActionJudge(kind action.Kind, f func(*Judgement, *action.Action, *rules.Set)) bool {
	if _, dup := actionJudges[kind]; dup {
		panic("triage: a judge of " + string(kind) + " actions registered twice")
	}
	actionJudges[kind] = f
	return true
}

// commandJudge judges a simple command of a script that is not a wrapper
// (registerCommandJudge).
var commandJudge func(*Script, *Command)

// RegisterCommandJudge makes f the judge of every command a script runs
// that is not a wrapper. It panics when one is registered already.
func RegisterCommandJudge(f func(*Script, *Command)) bool {
	if commandJudge != nil {
		panic("triage: the judge of commands registered twice")
	}
	commandJudge = f
	return true
}

// judgeNamed judges c with the judge registered under name (a name
// programs.yaml gives a judge); without one, c is passed on.
func (s *Script) judgeNamed(name string, c *Command) {
	f, ok := judgeRegistry[name]
	if !ok {
		s.Esc(vocab.Routine, Medium, "no judge "+name+" is registered to judge `"+c.Text+"`")
		return
	}
	f(s, c)
}

// Judges are the judges written in Go that a programs file names with
// judge:, by name: the registry each file of judges adds its own to
// (registerJudges). It is read when knowledge is built.
func Judges() map[string]func(*Script, *Command) { return maps.Clone(judgeRegistry) }

// judgeRegistry holds the judges by the name a programs file gives them.
var judgeRegistry = map[string]func(*Script, *Command){}

// RegisterJudges adds judges by name to the registry the programs files'
// judge: names resolve through. It panics on a name registered twice.
func RegisterJudges(byName map[string]func(*Script, *Command)) bool {
	for name, f := range byName {
		if _, dup := judgeRegistry[name]; dup {
			panic("triage: judge " + name + " registered twice")
		}
		judgeRegistry[name] = f
	}
	return true
}
