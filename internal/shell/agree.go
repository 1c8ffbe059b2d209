package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
//   - BASH_ALIASES, which defines aliases (see expandAliases), and
//     BASH_CMDS, which makes a name run another program (as hash -p);
//   - BASH_ENV (a file a new bash runs first), SHELLOPTS and BASHOPTS
//     (options a new bash starts with, such as keyword), and PS4 (expanded,
//     command substitutions included, before each command under set -x).
func (w *walker) checkSource(src string) {
	if strings.IndexByte(src, '\r') >= 0 {
		w.opaque("the script holds a carriage return, which bash reads as part of a word")
	}
	if strings.IndexByte(src, 0) >= 0 {
		w.opaque("the script holds a NUL byte")
	}
	if strings.Contains(src, "BASH_ALIASES") {
		w.aliases = true
	}
	if strings.Contains(src, "BASH_CMDS") {
		w.opaque("the script sets BASH_CMDS, which maps command names to other programs")
	}
	for _, v := range []string{"BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4"} {
		if strings.Contains(src, v) {
			w.opaque("the script names " + v + ", which makes bash run or read code the script does not show")
			break
		}
	}
}

// bashEnd returns src ending as bash reads it: a backslash ending the
// script is a character to bash (ls a\ runs ls with "a\"), nothing to the
// parser, so it is given to the parser escaped.
func bashEnd(src string) string {
	if n := len(src) - len(strings.TrimRight(src, `\`)); n%2 == 1 {
		return src + `\`
	}
	return src
}

// finish applies the checks that need the whole walk.
func (w *walker) finish() {
	w.checkOptions()
	w.expandAliases()
	w.checkArith()
}

// checkName makes the script opaque when a word a builtin takes as a
// variable's name (read, printf -v, declare, test -v, a nameref's target)
// is not literal, or holds a subscript with $ or `: bash expands the
// subscript, running its command substitutions (printf -v 'a[$(rm x)]' y
// runs rm).
func (w *walker) checkName(v word, by string) {
	if !v.lit {
		w.opaque(by + " takes a variable name not known before the script runs: " + v.text)
		return
	}
	if i := strings.IndexByte(v.val, '['); i >= 0 && strings.ContainsAny(v.val[i:], "$`") {
		w.opaque(by + " takes a variable name whose subscript bash would expand and run: " + v.text)
	}
}

// literalName reports whether the source text of a declare argument
// starts with a literal NAME= (export "B=$x": only the value expands).
func literalName(text string) bool {
	text = strings.TrimLeft(text, `"'`)
	i := strings.IndexByte(text, '=')
	return i > 0 && isName(text[:i])
}

// indexAll reports whether a subscript is [@] or [*] (${!a[@]} lists
// keys; it is not an indirection).
func indexAll(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := wd.Lit()
	return l == "@" || l == "*"
}

// nameArgs returns the indexes of the words of a command that a builtin
// takes as variable names: read NAME… (and -a NAME), printf -v NAME,
// getopts OPTSTRING NAME, mapfile/readarray NAME, test/[ -v NAME.
func nameArgs(args []string) []int {
	var out []int
	switch Base(args[0]) {
	case "read":
		out = optionWords(args, "adinNptu", "a", true)
	case "printf":
		out = optionWords(args, "v", "v", false)
	case "mapfile", "readarray":
		out = optionWords(args, "dnOsuCc", "", true)
	case "getopts":
		if ops := optionWords(args, "", "", true); len(ops) > 1 {
			out = ops[1:2]
		}
	case "test", "[":
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "-v" {
				out = append(out, i+1)
			}
		}
	}
	return out
}

// optionWords returns the indexes of the option values of the letters in
// names (argShort letters take a value) and, when operands, of the
// operands.
func optionWords(args []string, argShort, names string, operands bool) []int {
	var out []int
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if operands {
				for j := i + 1; j < len(args); j++ {
					out = append(out, j)
				}
			}
			return out
		}
		if len(a) < 2 || a[0] != '-' {
			if operands {
				out = append(out, i)
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(argShort, a[j]) < 0 {
				continue
			}
			if j == len(a)-1 {
				i++
				if strings.IndexByte(names, a[j]) >= 0 && i < len(args) {
					out = append(out, i)
				}
			} else if strings.IndexByte(names, a[j]) >= 0 {
				out = append(out, -i) // the value is in the same word
			}
			break
		}
	}
	return out
}

// checkOptions makes the script opaque when a builtin takes a variable
// name bash could run code from (see checkName), when mapfile runs a
// callback (-C), or when it changes how bash reads or resolves the
// commands after it:
//
//   - hash -p PATH NAME and enable -f FILE NAME make NAME run another
//     program (hash -p /bin/rm ls; ls -rf x runs rm);
//   - set -k (keyword) moves NAME=VALUE words out of every command's
//     arguments (set -k; rm A=1 -rf x runs rm -rf x);
//   - set -o posix, or shopt of interactive_comments (off: # no longer
//     starts a comment), posix or a compat level (expand_aliases is
//     followed: see expandAliases);
//   - any of these commands with words that are not literal.
func (w *walker) checkOptions() {
	for i := range w.s.Commands {
		c := &w.s.Commands[i]
		if len(c.Args) == 0 {
			continue
		}
		name := Base(c.Args[0])
		if c.Literal[0] {
			for _, i := range nameArgs(c.Args) {
				// (-vNAME: the whole word is checked.)
				k := abs(i)
				w.checkName(word{lit: c.Literal[k], val: c.Args[k], text: c.Args[k]}, name)
			}
		}
		if (name == "mapfile" || name == "readarray") && HasShort(c.Args, 'C', "dnOsuCc") {
			w.opaque(name + " -C runs a callback the script gives as text: " + c.Text)
		}
		switch name {
		case "hash", "enable", "set", "shopt":
		default:
			continue
		}
		args := c.Args[1:]
		lits := c.Literal[1:]
		if name == "set" {
			// Only the options matter: set -- "$@" sets the positional
			// parameters.
			n := 0
			for n < len(args) && lits[n] && len(args[n]) > 1 && (args[n][0] == '-' || args[n][0] == '+') && args[n] != "--" {
				n++
				if args[n-1][len(args[n-1])-1] == 'o' && n < len(args) {
					n++ // the option name
				}
			}
			if n < len(args) && !lits[n] && strings.IndexByte("$\"'`-+", args[n][0]) >= 0 {
				n++ // a word that could expand to options
			}
			args, lits = args[:n], lits[:n]
		}
		if slices.Contains(lits, false) {
			w.opaque(name + " with words that are not literal: " + c.Text)
			continue
		}
		switch name {
		case "hash":
			if HasShort(c.Args, 'p', "pt") {
				w.opaque("hash -p makes a command name run another program: " + c.Text)
			}
		case "enable":
			if HasShort(c.Args, 'f', "f") {
				w.opaque("enable -f loads a builtin from a file: " + c.Text)
			}
		case "set":
			for k, a := range args {
				if len(a) < 2 || a[0] != '-' && a[0] != '+' || a == "--" {
					break // the positional parameters
				}
				if a[0] == '-' && strings.IndexByte(a[1:], 'k') >= 0 {
					w.opaque("set -k moves NAME=VALUE words out of the commands' arguments: " + c.Text)
				}
				if a[len(a)-1] == 'o' && k+1 < len(args) {
					switch args[k+1] {
					case "keyword", "posix", "interactive-comments":
						w.opaque("set " + a + " " + args[k+1] + " changes how bash reads the commands after it: " + c.Text)
					}
				}
			}
		case "shopt":
			// Setting posix, keyword or a compat level, or unsetting
			// interactive_comments; shopt NAME alone only reports.
			on, off := false, false
			for _, a := range args {
				if strings.HasPrefix(a, "-") {
					on = on || strings.ContainsRune(a, 's')
					off = off || strings.ContainsRune(a, 'u')
				}
			}
			for _, a := range args {
				if on && (strings.HasPrefix(a, "compat") || a == "posix" || a == "keyword") ||
					off && (a == "interactive_comments" || a == "interactive-comments") {
					w.opaque("shopt " + a + " changes how bash reads the commands after it: " + c.Text)
				}
			}
		}
	}
}

// abs returns the absolute value of i.
func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
