package rules

import (
	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"sync"
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

// traits returns the traits of the names of the sets above; Python's
// versioned names (python3.12) are found by command.IsPython.
func traits() map[string]trait {
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
}

// traitsOf returns the traits of the program name (a base name).
func traitsOf(name string) trait {
	t := traitTable().get(name)
	if len(name) > 1 && name[0] == 'p' && command.IsPython(name) { // python, py, pypy …
		t |= tPython | tHidesCode
	}
	return t
}

// traitTable is traits as an open-addressing table with a hash of a
// name's length and three of its bytes: a lookup costs a fifth of a Go
// map's, and every command asks several. It is built when first asked,
// not when a process starts (a `warden hook` that judges no command
// never builds it).
var traitTable = sync.OnceValue(func() *nameTable { return newNameTable(traits()) })

// nameTable is a read-only table of names: slot i holds keys[i] and
// vals[i]; an empty key ends a probe.
type nameTable struct {
	keys []string
	vals []trait
	mask uint32
}

func newNameTable(m map[string]trait) *nameTable {
	size := 64
	for size < 3*len(m) {
		size *= 2
	}
	t := &nameTable{keys: make([]string, size), vals: make([]trait, size), mask: uint32(size - 1)}
	for k, v := range m {
		if k == "" {
			continue
		}
		i := nameHash(k) & t.mask
		for t.keys[i] != "" {
			i = (i + 1) & t.mask
		}
		t.keys[i], t.vals[i] = k, v
	}
	return t
}

// get returns the value of name, 0 when it is not in the table.
func (t *nameTable) get(name string) trait {
	if name == "" {
		return 0
	}
	for i := nameHash(name) & t.mask; ; i = (i + 1) & t.mask {
		switch k := t.keys[i]; k {
		case name:
			return t.vals[i]
		case "":
			return 0
		}
	}
}

// nameHash hashes a non-empty name by its length and its first, middle
// and last bytes.
func nameHash(s string) uint32 {
	h := uint32(len(s))*0x9e3779b1 ^ uint32(s[0])<<16 ^ uint32(s[len(s)/2])<<8 ^ uint32(s[len(s)-1])
	h *= 0x85ebca6b
	return h ^ h>>15
}

// is reports whether t has one of the traits of u.
func (t trait) is(u trait) bool { return t&u != 0 }
