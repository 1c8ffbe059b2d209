package shell

import (
	"strings"
)

// The parser (mvdan.cc/sh) and bash do not read every script alike. Where
// they could differ, and the difference could hide what runs, the script is
// opaque (SPEC G16): one reading of a script, the shell's, or none. Each
// case below was found by running scripts under bash with logging stand-ins
// and comparing what ran with Parse (see bash_test.go and agree_test.go).

// checkSource makes the script opaque when its text holds something bash
// reads differently from the parser:
//
//   - a carriage return: the parser reads it as a blank, bash as part of a
//     word, so `A=1<CR>ls rm -rf x` is `ls …` to one and `rm -rf x` to the
//     other (and `\<CR><LF>` is a line continuation only to the parser);
//   - a NUL byte: the parser drops it; bash never gets it in an argument
//     and reads a file holding it in its own way;
//   - a backslash ending the script: the parser drops it, bash keeps it;
//   - BASH_ALIASES, which defines aliases (see checkAliases).
func (w *walker) checkSource(src string) {
	if strings.IndexByte(src, '\r') >= 0 {
		w.opaque("the script holds a carriage return, which bash reads as part of a word")
	}
	if strings.IndexByte(src, 0) >= 0 {
		w.opaque("the script holds a NUL byte")
	}
	if n := len(src) - len(strings.TrimRight(src, `\`)); n%2 == 1 {
		w.opaque("the script ends with a backslash, which bash keeps as a character")
	}
	if strings.Contains(src, "BASH_ALIASES") {
		w.aliases = true
	}
}

// finish applies the checks that need the whole walk.
func (w *walker) finish() {
	w.checkAliases()
}

// checkAliases makes a script that both defines aliases and runs other
// commands opaque: once alias expansion is on (shopt -s expand_aliases,
// set -o posix, POSIXLY_CORRECT, or a shell other than bash), a later
// command's first word is replaced by the alias's text, which need not be
// a whole command (alias r='rm -'; r rf x runs rm -rf x).
func (w *walker) checkAliases() {
	defines := w.aliases
	runs := false
	for i := range w.s.Commands {
		c := &w.s.Commands[i]
		if len(c.Args) == 0 || fromAlias(c.Wrappers) {
			continue
		}
		if Base(c.Args[0]) != "alias" {
			runs = true
			continue
		}
		for k, a := range c.Args[1:] {
			if !c.Literal[k+1] || strings.IndexByte(a, '=') >= 0 {
				defines = true
			}
		}
	}
	if defines && runs {
		w.opaque("the script defines aliases and runs other commands, whose words an alias could change")
	}
}

// fromAlias reports whether a command was found in an alias's value.
func fromAlias(wrappers []string) bool {
	for _, wr := range wrappers {
		if strings.HasPrefix(wr, "alias ") {
			return true
		}
	}
	return false
}
