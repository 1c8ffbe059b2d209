package shell

import (
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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

// scanTree records the arithmetic of a parsed script and the assignments
// of the variables it could read, and checks what the tree shows of the
// other disagreements (comments, indirections, names, prompt expansion).
func (w *walker) scanTree(f *syntax.File, src string) {
	if !treeMatters(src) {
		return
	}
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
		case *syntax.Word:
			// Plain text holds nothing the checks look for.
			for _, p := range x.Parts {
				switch p.(type) {
				case *syntax.Lit, *syntax.SglQuoted:
				default:
					return true
				}
			}
			return false
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
	found := false
	for _, arg := range x.Args {
		l := arg.Lit()
		if l == "" {
			l = srcText(src, arg) // quoted: 'read' is read too
			for name := range assigners {
				found = found || strings.Contains(l, name)
			}
		}
		if found || assigners[Base(l)] {
			found = true
			break
		}
	}
	if !found {
		return
	}
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

// treeMatters reports whether src could hold anything scanTree looks for:
// without # ( [ { or =, and without the builtins that assign or declare
// variables, it holds no comment, arithmetic, subscript, parameter
// expansion beyond $name, or assignment.
func treeMatters(src string) bool {
	// One pass over src: a tree character ends it; a letter that starts
	// one of the words (let, read, printf, mapfile, getopts, for, select,
	// declare, typeset, local, export, nameref) followed by the second
	// letter of one of them is checked for the whole word.
	for i := 0; i < len(src); i++ {
		switch k := treeClass[src[i]]; {
		case k == 0:
		case k == treeChar:
			return true
		case i+1 < len(src) && treeSeconds[k]&(1<<(src[i+1]&31)) != 0 && treeWordAt(src[i:], k):
			return true
		}
	}
	return false
}

// treeChar is treeClass's class of the characters that make a script's
// tree worth walking: comments, parentheses, brackets, braces,
// assignments.
const treeChar = 255

// treeWords are treeMatters' words, grouped by their first letter; a
// letter's class in treeClass is its group's index plus one.
var treeWords = [...][]string{
	{"let", "local"}, {"read"}, {"printf"}, {"mapfile"}, {"getopts"},
	{"for"}, {"select"}, {"declare"}, {"typeset"}, {"export"}, {"nameref"},
}

// treeClass maps a byte to treeChar, to the group of treeWords it starts
// (index plus one), or to 0.
var treeClass = func() (c [256]uint8) {
	for _, b := range "#([{=" {
		c[b] = treeChar
	}
	for i, ws := range treeWords {
		c[ws[0][0]] = uint8(i + 1)
	}
	return c
}()

// treeSeconds holds, for each class of treeClass, the second letters of
// its words as bits (a letter's low five bits), a cheap filter before the
// words are compared.
var treeSeconds = func() (s [256]uint32) {
	for i, ws := range treeWords {
		for _, w := range ws {
			s[i+1] |= 1 << (w[1] & 31)
		}
	}
	return s
}()

// treeWordAt reports whether s starts with a word of the group of class k.
func treeWordAt(s string, k uint8) bool {
	for _, w := range treeWords[k-1] {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
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
