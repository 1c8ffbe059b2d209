package shell

import (
	"slices"
	"sort"
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
	defs := map[string]string{}
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

// Arithmetic runs code hidden in data. bash evaluates a variable's value
// as an expression wherever arithmetic reads it ($((x)), ((x)), let,
// for ((…)), [[ x -eq y ]], ${s:x}, array subscripts, declare -i), and
// expands the command substitutions in an array subscript inside that
// value: with x='a[$(rm -rf v)]', `echo $((x))` runs rm. A script whose
// arithmetic reads a variable it has not itself set to a number (or a
// command's output, or quoted text with $ or `) is opaque.

// arithState is what the walk learnt about arithmetic and the variables
// it reads.
type arithState struct {
	refs    map[string]string // variables arithmetic reads → where
	numeric map[string]bool   // variables set to numbers
	other   map[string]bool   // variables set to anything else
	assoc   map[string]bool   // associative arrays (subscripts are not arithmetic)
	intAttr bool              // some variable has the integer attribute
	dynamic string            // an assignment to a name not known before it runs
	unsafe  string            // arithmetic reads something else that can hold code
}

// numericSpecials are the parameters bash itself keeps numeric.
var numericSpecials = map[string]bool{
	"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "SRANDOM": true,
	"SECONDS": true, "LINENO": true, "BASHPID": true, "PPID": true, "UID": true,
	"EUID": true, "EPOCHSECONDS": true,
}

// assigners are the builtins that set the variables their operands name.
var assigners = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "getopts": true, "printf": true,
}

// scanArith records the arithmetic of a parsed script and the
// assignments of the variables it could read; it also checks comments.
func (w *walker) scanArith(f *syntax.File, src string) {
	a := &w.arith
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Comment:
			// The parser reads a backslash ending a comment as a line
			// continuation and the next line as part of the comment's
			// command; bash ends the comment at the newline:
			// `ls # \<LF>rm -rf x` is ls with arguments to one, rm to the
			// other.
			if strings.IndexByte(x.Text, '\n') >= 0 {
				w.opaque("a comment ends with a backslash, which the parser reads as a line continuation and bash does not")
			}
		case *syntax.ArithmExp:
			w.arithExpr(x.X, src)
		case *syntax.ArithmCmd:
			w.arithExpr(x.X, src)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				w.arithExpr(e, src)
			}
		case *syntax.CStyleLoop:
			w.arithExpr(x.Init, src)
			w.arithExpr(x.Cond, src)
			w.arithExpr(x.Post, src)
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				if y, ok := x.X.(*syntax.Word); ok {
					w.arithExpr(y, src)
				}
				if y, ok := x.Y.(*syntax.Word); ok {
					w.arithExpr(y, src)
				}
			}
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet {
				if y, ok := x.X.(*syntax.Word); ok {
					v := convert(y, src)
					if t := srcText(src, y); !v.lit && !strings.ContainsAny(t, "$`") {
						// No globbing or brace expansion inside [[ ]].
						v = word{val: t, lit: true, text: t}
					}
					w.checkName(v, "[[ -v")
				}
			}
		case *syntax.ParamExp:
			if x.Excl && x.Names == 0 && x.Param != nil && !indexAll(x.Index) {
				w.opaque("indirect expansion reads the variable a value names, and bash runs the commands in a subscript there: " + srcText(src, x))
			}
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && (x.Exp.Word == nil || strings.Contains(srcText(src, x.Exp.Word), "P")) {
				w.opaque("prompt expansion (${x@P}) runs the command substitutions in a value: " + srcText(src, x))
			}
			if x.Param != nil && x.Index != nil && !a.assoc[x.Param.Value] {
				w.arithExpr(x.Index, src)
			}
			if x.Slice != nil {
				w.arithExpr(x.Slice.Offset, src)
				w.arithExpr(x.Slice.Length, src)
			}
			if x.Param != nil && x.Exp != nil &&
				(x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				a.set(x.Param.Value, false)
			}
		case *syntax.DeclClause:
			w.declFlags(x, src)
		case *syntax.Assign:
			if x.Name != nil && x.Index != nil && !a.assoc[x.Name.Value] {
				w.arithExpr(x.Index, src)
			}
			if x.Name == nil || x.Naked {
				return true
			}
			switch {
			case x.Array != nil:
				a.set(x.Name.Value, false)
			case x.Value == nil:
				a.set(x.Name.Value, true) // empty: 0 to arithmetic
			default:
				a.set(x.Name.Value, numericWord(x.Value, src))
			}
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok && it.Name != nil {
				num := len(it.Items) > 0
				for _, item := range it.Items {
					num = num && numericWord(item, src)
				}
				a.set(it.Name.Value, num)
			}
		case *syntax.CallExpr:
			w.callAssigns(x, src)
		}
		return true
	})
}

func (a *arithState) set(name string, numeric bool) {
	if a.numeric == nil {
		a.numeric, a.other = map[string]bool{}, map[string]bool{}
	}
	if numeric {
		a.numeric[name] = true
	} else {
		a.other[name] = true
	}
}

func (a *arithState) ref(name, where string) {
	if a.refs == nil {
		a.refs = map[string]string{}
	}
	if _, ok := a.refs[name]; !ok {
		a.refs[name] = where
	}
}

// declFlags reads the options of declare, local, typeset, export and
// readonly: -i (integer: assignments are arithmetic), -A (associative
// arrays), -n (references to other variables), and names not known
// before the script runs.
func (w *walker) declFlags(d *syntax.DeclClause, src string) {
	a := &w.arith
	assoc, ref := false, false
	for _, arg := range d.Args {
		if ref && arg.Name != nil && !arg.Naked && arg.Value != nil {
			w.checkName(convert(arg.Value, src), d.Variant.Value+" -n")
		}
		if arg.Name != nil {
			if assoc {
				if a.assoc == nil {
					a.assoc = map[string]bool{}
				}
				a.assoc[arg.Name.Value] = true
			}
			continue
		}
		if arg.Value == nil {
			continue
		}
		v := convert(arg.Value, src)
		if !v.lit {
			if !literalName(srcText(src, arg.Value)) {
				a.dynamic = srcText(src, arg)
				w.opaque(d.Variant.Value + " of a name not known before the script runs, whose subscript bash would run: " + srcText(src, arg))
			}
			continue
		}
		if strings.HasPrefix(v.val, "-") || strings.HasPrefix(v.val, "+") {
			if strings.ContainsRune(v.val, 'i') {
				a.intAttr = true
			}
			if strings.ContainsRune(v.val, 'n') {
				a.dynamic = srcText(src, arg)
				ref = true
			}
			if strings.ContainsRune(v.val, 'A') {
				assoc = true
			}
			continue
		}
		// declare NAME=VALUE written as one word the parser did not split.
		a.dynamic = srcText(src, arg)
		name, _, _ := strings.Cut(v.val, "=")
		w.checkName(word{val: name, lit: true, text: srcText(src, arg)}, d.Variant.Value)
	}
}

// callAssigns records the variables a read, mapfile, getopts or printf
// -v sets (also after builtin, command or another wrapper: every word
// naming one of them starts a possible command).
func (w *walker) callAssigns(x *syntax.CallExpr, src string) {
	var args []string
	var lits []bool
	for _, arg := range x.Args {
		v := convert(arg, src)
		args, lits = append(args, v.val), append(lits, v.lit)
	}
	for k := range args {
		if !lits[k] || !assigners[Base(args[k])] {
			continue
		}
		for _, i := range nameArgs(args[k:]) {
			i = abs(i) + k
			switch {
			case !lits[i]:
				w.arith.dynamic = args[i]
			case isName(args[i]):
				w.arith.set(args[i], false)
			default:
				w.arith.dynamic = args[i] // -vNAME, a[…]: not followed
			}
		}
	}
}

// arithExpr records what an arithmetic expression reads.
func (w *walker) arithExpr(e syntax.ArithmExpr, src string) {
	if e == nil {
		return
	}
	a := &w.arith
	syntax.Walk(e, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			if assignOp(x.Op) {
				if y, ok := x.X.(*syntax.Word); ok {
					if name := y.Lit(); isName(name) {
						a.set(name, true) // arithmetic assigns numbers
						if x.Op != syntax.Assgn {
							a.ref(name, srcText(src, x))
						}
						w.arithExpr(x.Y, src)
						return false
					}
				}
			}
		case *syntax.Word:
			w.arithWord(x.Parts, src, srcText(src, x))
			return false
		}
		return true
	})
}

// assignOp reports whether op assigns to its left operand.
func assignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
		syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// arithWord records what the parts of a word in arithmetic read.
func (w *walker) arithWord(parts []syntax.WordPart, src, where string) {
	a := &w.arith
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			for _, name := range arithNames(x.Value) {
				a.ref(name, where)
			}
		case *syntax.SglQuoted:
			if x.Dollar || strings.ContainsAny(x.Value, "$`[") {
				a.unsafe = where
				continue
			}
			for _, name := range arithNames(x.Value) {
				a.ref(name, where)
			}
		case *syntax.DblQuoted:
			w.arithWord(x.Parts, src, where)
		case *syntax.ParamExp:
			if x.Param == nil || x.Excl || x.Names != 0 {
				a.unsafe = where
				continue
			}
			if !x.Length {
				a.ref(x.Param.Value, where)
			}
		case *syntax.ArithmExp:
			// A number; its own reads are recorded where it is met.
		case *syntax.CmdSubst:
			if !numericOutput(x, src) {
				a.unsafe = where
			}
		default:
			// A command's output, a process substitution, an extended
			// glob: text from outside the script.
			a.unsafe = where
		}
	}
}

// numericOutput reports whether a command substitution prints only
// numbers whatever it reads: its last command is date with a format of
// numeric conversions (date +%s), or wc counting its standard input
// (wc -l < f, … | wc -l).
func numericOutput(cs *syntax.CmdSubst, src string) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	st := cs.Stmts[0]
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe {
			break
		}
		st = b.Y
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	prog := convert(call.Args[0], src)
	if !prog.lit {
		return false
	}
	switch prog.val {
	case "date":
		for _, a := range call.Args[1:] {
			if v := convert(a, src); v.lit && numericDateFormat(v.val) {
				return true
			}
		}
	case "wc":
		for _, a := range call.Args[1:] {
			v := convert(a, src)
			if !v.lit || len(v.val) < 2 || v.val[0] != '-' || strings.Trim(v.val[1:], "lcwmL") != "" {
				return false
			}
		}
		return true
	}
	return false
}

// numericDateFormat reports whether f is a date format (+…) that prints
// only digits and dashes.
func numericDateFormat(f string) bool {
	if len(f) < 2 || f[0] != '+' {
		return false
	}
	for i := 1; i < len(f); i++ {
		switch c := f[i]; {
		case c == '%':
			i++
			if i >= len(f) || strings.IndexByte("sYmdHMSjNuwyeIlkCgGVUW", f[i]) < 0 {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// arithNames returns the variable names in arithmetic text (numbers
// such as 0x1f or 2#101 are skipped).
func arithNames(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			for i < len(s) && (isNameByte(s[i]) || s[i] == '#' || s[i] == '@') {
				i++
			}
		case isNameByte(c):
			j := i
			for i < len(s) && isNameByte(s[i]) {
				i++
			}
			out = append(out, s[j:i])
		default:
			i++
		}
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// numericWord reports whether a word is an integer literal, a brace
// sequence of integers, one arithmetic expansion, or one command
// substitution that prints only numbers (see numericOutput), quoted or
// not.
func numericWord(x *syntax.Word, src string) bool {
	if len(x.Parts) == 1 {
		p := x.Parts[0]
		if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			p = dq.Parts[0]
		}
		switch p := p.(type) {
		case *syntax.ArithmExp:
			return true
		case *syntax.CmdSubst:
			return numericOutput(p, src)
		}
	}
	v := x.Lit()
	if v == "" {
		return false
	}
	v = strings.TrimPrefix(v, "-")
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		v = strings.ReplaceAll(strings.ReplaceAll(v[1:len(v)-1], "..", ""), "-", "")
	}
	return isDigits(v)
}

// checkArith makes the script opaque when its arithmetic could read code.
func (w *walker) checkArith() {
	a := &w.arith
	if a.unsafe != "" {
		w.opaque("arithmetic evaluates text that could hold commands: " + a.unsafe)
		return
	}
	if len(a.refs) == 0 {
		if a.intAttr && len(a.other) > 0 {
			w.opaque("a variable with the integer attribute is assigned text, which bash evaluates as arithmetic")
		}
		return
	}
	if a.dynamic != "" {
		w.opaque("arithmetic reads variables, and the script sets a variable whose name is not known before it runs: " + a.dynamic)
		return
	}
	names := make([]string, 0, len(a.refs))
	for n := range a.refs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if a.other[n] || !a.numeric[n] && !numericSpecials[n] {
			w.opaque("arithmetic evaluates " + n + ", whose value the script does not set to a number (bash would run the commands in it): " + a.refs[n])
			return
		}
	}
	if a.intAttr && len(a.other) > 0 {
		w.opaque("a variable with the integer attribute is assigned text, which bash evaluates as arithmetic")
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
