package shell

import (
	"slices"
	"strings"
)

// expandAliases adds, after each command whose program is an alias the
// script defines, the commands it runs with the alias expanded: once alias
// expansion is on (shopt -s expand_aliases, set -o posix,
// POSIXLY_CORRECT, or a shell other than bash), a command's first word is
// replaced by the alias's text, which need not be a whole command (alias
// r=rm; r -rf x runs rm -rf x). The expansion is added whether or not
// expansion is on, and aliases defined later in the script count too:
// more commands, never fewer. What cannot be followed is opaque: aliases
// set through BASH_ALIASES, and an alias whose text ends in a blank (the
// next word is expanded too).
func (w *walker) expandAliases() {
	if w.aliases {
		w.opaque("the script sets BASH_ALIASES, which defines aliases")
	}
	var defs map[string]string
	for i := range w.s.Commands {
		c := &w.s.Commands[i]
		if len(c.Args) == 0 || Base(c.Args[0]) != "alias" {
			continue
		}
		for k, a := range c.Args[1:] {
			name, val, ok := strings.Cut(a, "=")
			if !ok || !c.Literal[k+1] {
				continue // not literal: opaque already
			}
			if strings.HasSuffix(val, " ") || strings.HasSuffix(val, "\t") {
				w.opaque("alias " + name + " ends with a blank, so bash expands the word after it too")
			}
			if defs == nil {
				defs = map[string]string{}
			}
			defs[name] = val
		}
	}
	if len(defs) == 0 {
		return
	}
	for i := 0; i < len(w.s.Commands) && !w.full(); i++ {
		c := w.s.Commands[i]
		if len(c.Args) == 0 || !c.Literal[0] {
			continue
		}
		val, ok := defs[c.Args[0]]
		if !ok || slices.Contains(c.Wrappers, "alias "+c.Args[0]) {
			continue // bash does not expand an alias inside itself
		}
		text := val
		for k, a := range c.Args[1:] {
			if c.Literal[k+1] {
				a = Quote(a)
			}
			text += " " + a
		}
		n := len(w.s.Commands)
		w.script(text, ctx{src: text, wrappers: c.Wrappers, redirs: c.Redirects, inputs: c.Inputs,
			fn: c.Func, pipe: c.Pipeline, stage: c.Stage}, "alias "+c.Args[0])
		// The expansion runs in the command's place: right after it.
		added := slices.Clone(w.s.Commands[n:])
		w.s.Commands = slices.Insert(w.s.Commands[:n], i+1, added...)
	}
}
