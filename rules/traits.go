package rules

import (
	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// A trait is something the exec rules know of a program by its name. The
// name sets they are read from (shells, interpreters, codeHiders, …) stay
// the definitions; traits gathers them so that the checks every command
// goes through ask one lookup instead of one a set.
type trait uint16

// The traits.
const (
	// tShell: a shell (shell.IsShell).
	tShell trait = 1 << iota
	// tInterpreter: an interpreter of the download-and-execute check
	// (interpreters).
	tInterpreter
	// tPython: a Python interpreter (command.IsPython).
	tPython
	// tScriptInterpreter: scriptInterpreters.
	tScriptInterpreter
	// tHidesCode: runs code its words need not show (hidesCode).
	tHidesCode
	// tLeavesWordsAlone: never runs its operands as commands
	// (leavesWordsAlone).
	tLeavesWordsAlone
	// tAlwaysSafe: known safe whatever its words (alwaysSafe).
	tAlwaysSafe
	// tDownloader: fetches data from the network (downloaders).
	tDownloader
)

// traits are the traits of the names of the sets above; Python's
// versioned names (python3.12) are found by command.IsPython.
var traits = func() map[string]trait {
	m := map[string]trait{}
	add := func(t trait, names map[string]bool) {
		for n := range names {
			m[n] |= t
		}
	}
	for _, n := range shell.ShellNames() {
		m[n] |= tShell | tHidesCode
	}
	add(tInterpreter, interpreters)
	add(tScriptInterpreter, scriptInterpreters)
	add(tHidesCode, codeHiders)
	add(tLeavesWordsAlone, leavesWordsAlone)
	add(tAlwaysSafe, alwaysSafe)
	add(tDownloader, downloaders)
	return m
}()

// traitsOf returns the traits of the program name (a base name).
func traitsOf(name string) trait {
	t := traits[name]
	if len(name) > 1 && name[0] == 'p' && command.IsPython(name) { // python, py, pypy …
		t |= tPython | tHidesCode
	}
	return t
}

// is reports whether t has one of the traits of u.
func (t trait) is(u trait) bool { return t&u != 0 }
