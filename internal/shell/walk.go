package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker collects the commands of a script.
type walker struct {
	s        *Script
	depth    int // nested wrappers and embedded scripts
	pipes    int // pipelines numbered so far
	nesting  int
	reasons  map[string]bool
	tooDeep  bool
	tooLarge bool
	// gitAliases are the git aliases (lower-case names) the script
	// defines so far, with their values (see runners.go).
	gitAliases map[string]string
	aliases    bool // the script names BASH_ALIASES
	arith      arithState
	// argArena and litArena hold the words of the commands emitted so
	// far, so that a script's commands share a few allocations; each
	// command's slices are capped at its own words.
	argArena []string
	litArena []bool
	// wordArena holds the words of the simple commands read so far
	// (wordsFor).
	wordArena []word
	// firstArena is how many words the first arenas hold, sized by the
	// script (wordsHint); 0 for 32.
	firstArena int
}

// arenaSize returns how many words a new arena holds, n at least, when
// the current one holds have: the first one as many as the script has
// (firstArena), so that a short script's words take a few cache lines,
// not a page of empty slots; later ones 32.
func (w *walker) arenaSize(n, have int) int {
	if have == 0 && w.firstArena > 0 {
		return max(w.firstArena, n)
	}
	return max(32, n)
}

// wordsHint guesses how many words the script src has, for the first
// arenas: one more than its blanks and newlines, at most 32. A guess too
// small costs one more arena.
func wordsHint(src string) int {
	return min(strings.Count(src, " ")+strings.Count(src, "\n")+1, 32)
}

// wordsFor returns room for the n words of a simple command, taken from
// wordArena: slots are never handed out twice, and the slice is capped at
// n, so an append to it copies.
func (w *walker) wordsFor(n int) []word {
	if cap(w.wordArena)-len(w.wordArena) < n {
		w.wordArena = make([]word, 0, w.arenaSize(n, cap(w.wordArena)))
	}
	start := len(w.wordArena)
	w.wordArena = w.wordArena[:start+n]
	return w.wordArena[start : start+n : start+n]
}

// ctx is what a statement inherits from where it appears.
type ctx struct {
	src       string   // the source its positions refer to
	wrappers  []string // wrappers seen through so far
	redirs    []string // output redirections of enclosing compound commands
	inputs    []string // input redirections of enclosing compound commands
	fn        string   // enclosing function
	pipe      int      // outermost pipeline, 0 if none
	stage     int      // stage in that pipeline
	stdinPipe bool     // standard input comes from a pipe
	moreArgs  bool     // the command gets more words from input (xargs)
	repl      string   // xargs -I's replacement string, for a shell it runs
}

// stdin describes where a command's standard input comes from, when a
// redirection says so.
// under returns c inside a compound command whose output redirections,
// with the enclosing ones, are redirs.
func (c ctx) under(redirs []string) ctx {
	c.redirs = redirs
	return c
}

type stdin struct {
	kind int // stdinNone, stdinFile, stdinDoc
	body string
	lit  bool
	src  string // the document's source text (stdinDoc)
}

const (
	stdinNone = iota
	stdinFile
	stdinDoc
)

func (w *walker) opaque(reason string) {
	w.s.Opaque = true
	if w.reasons == nil {
		w.reasons = map[string]bool{}
	}
	if !w.reasons[reason] {
		w.reasons[reason] = true
		w.s.Reasons = append(w.s.Reasons, reason)
	}
}

// full reports whether the walk must stop because the script is too large.
func (w *walker) full() bool {
	if len(w.s.Commands) >= maxCommands {
		if !w.tooLarge {
			w.tooLarge = true
			w.opaque(fmt.Sprintf("more than %d simple commands", maxCommands))
		}
		return true
	}
	return false
}

// enter counts syntax nesting; it returns false when it is too deep.
func (w *walker) enter() bool {
	w.nesting++
	if w.nesting > maxNesting {
		if !w.tooDeep {
			w.tooDeep = true
			w.opaque("nesting too deep to analyse")
		}
		return false
	}
	return true
}

func (w *walker) leave() { w.nesting-- }

func (w *walker) stmts(list []*syntax.Stmt, c ctx) {
	for _, st := range list {
		w.stmt(st, c)
	}
}

// sub is the context of a command or process substitution inside c: same
// shell and wrappers, but its own input and output.
func sub(c ctx) ctx {
	return ctx{src: c.src, wrappers: c.wrappers, fn: c.fn}
}

func (w *walker) stmt(st *syntax.Stmt, c ctx) {
	if st == nil || w.full() {
		return
	}
	defer w.leave()
	if !w.enter() {
		return
	}

	redirs := c.redirs
	inputs := c.inputs
	var in stdin
	for _, r := range st.Redirs {
		w.word(r.Word, c)
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			redirs = append(redirs[:len(redirs):len(redirs)], srcText(c.src, r.Word))
		case syntax.RdrInOut:
			redirs = append(redirs[:len(redirs):len(redirs)], srcText(c.src, r.Word))
			inputs = append(inputs[:len(inputs):len(inputs)], srcText(c.src, r.Word))
			if fd == "" || fd == "0" {
				in = stdin{kind: stdinFile}
			}
		case syntax.DplIn:
			// <&3 duplicates a descriptor; <&file (bash) reads file.
			if t := r.Word.Lit(); !isDigits(t) && t != "-" {
				inputs = append(inputs[:len(inputs):len(inputs)], srcText(c.src, r.Word))
			}
		case syntax.DplOut:
			// >&2 and 2>&1 duplicate descriptors; >&file (bash) writes file.
			if t := r.Word.Lit(); !isDigits(t) && t != "-" {
				redirs = append(redirs[:len(redirs):len(redirs)], srcText(c.src, r.Word))
			}
		case syntax.RdrIn:
			inputs = append(inputs[:len(inputs):len(inputs)], srcText(c.src, r.Word))
			if fd == "" || fd == "0" {
				in = stdin{kind: stdinFile}
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				w.word(r.Hdoc, c)
			}
			if fd == "" || fd == "0" {
				body, lit := hdocBody(r)
				in = stdin{kind: stdinDoc, body: body, lit: lit}
				if r.Hdoc != nil {
					// The body's source runs up to its closing delimiter.
					delim := strings.Trim(srcText(c.src, r.Word), `'"\`)
					in.src = strings.TrimRight(strings.TrimSuffix(srcText(c.src, r.Hdoc), delim), "\t")
				}
			}
		case syntax.WordHdoc:
			if fd == "" || fd == "0" {
				v := convert(r.Word, c.src)
				in = stdin{kind: stdinDoc, body: v.val + "\n", lit: v.lit, src: srcText(c.src, r.Word)}
			}
		}
	}
	c.inputs = inputs

	switch x := st.Cmd.(type) {
	case nil:
		if len(st.Redirs) > 0 {
			w.add(Command{Redirects: redirs, Text: srcText(c.src, st)}, c)
		}
	case *syntax.CallExpr:
		w.call(x, st, c, redirs, in)
	case *syntax.BinaryCmd:
		cc := c.under(redirs)
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			var room [4]*syntax.Stmt // most pipelines: no allocation
			stages := pipeline(x.Y, pipeline(x.X, room[:0]))
			for i := 1; i < len(stages); i++ {
				w.readLoop(stages[i-1], stages[i])
			}
			if cc.pipe == 0 {
				w.pipes++
				cc.pipe = w.pipes
				for i, s := range stages {
					sc := cc
					sc.stage = i
					sc.stdinPipe = i > 0
					w.stmt(s, sc)
				}
			} else {
				for i, s := range stages {
					sc := cc
					sc.stdinPipe = cc.stdinPipe || i > 0
					w.stmt(s, sc)
				}
			}
			return
		}
		w.stmt(x.X, cc)
		w.stmt(x.Y, cc)
	case *syntax.Subshell:
		cc := c.under(redirs)
		w.stmts(x.Stmts, cc)
	case *syntax.Block:
		cc := c.under(redirs)
		w.stmts(x.Stmts, cc)
	case *syntax.IfClause:
		cc := c.under(redirs)
		for ic := x; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, cc)
			w.stmts(ic.Then, cc)
		}
	case *syntax.WhileClause:
		cc := c.under(redirs)
		w.stmts(x.Cond, cc)
		w.stmts(x.Do, cc)
	case *syntax.ForClause:
		cc := c.under(redirs)
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			w.forLoop(l, c.src)
			for _, it := range l.Items {
				w.word(it, c)
			}
		case *syntax.CStyleLoop:
			w.node(l, c)
		}
		w.stmts(x.Do, cc)
	case *syntax.CaseClause:
		cc := c.under(redirs)
		w.word(x.Word, c)
		for _, item := range x.Items {
			for _, p := range item.Patterns {
				w.word(p, c)
			}
			w.stmts(item.Stmts, cc)
		}
	case *syntax.FuncDecl:
		cc := c.under(redirs)
		if x.Name != nil {
			cc.fn = x.Name.Value
		} else if len(x.Names) > 0 {
			cc.fn = x.Names[0].Value
		}
		w.stmt(x.Body, cc)
	case *syntax.TimeClause:
		cc := c.under(redirs)
		cc.wrappers = appendWrapper(c.wrappers, "time")
		w.stmt(x.Stmt, cc)
	case *syntax.CoprocClause:
		cc := c.under(redirs)
		cc.wrappers = appendWrapper(c.wrappers, "coproc")
		w.stmt(x.Stmt, cc)
	case *syntax.DeclClause:
		// declare, local, export, readonly, typeset, nameref: a command
		// whose words are the assignments as written.
		ws := make([]word, 0, len(x.Args)+1)
		variant := "declare"
		if x.Variant != nil {
			variant = x.Variant.Value
		}
		ws = append(ws, word{val: variant, lit: true, text: variant})
		for _, a := range x.Args {
			w.assign(a, c)
			ws = append(ws, assignWord(a, c.src))
		}
		w.emit(ws, c, nil, redirs, in, srcText(c.src, x))
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		w.node(x, c)
	case *syntax.TestDecl:
		w.word(x.Description, c)
		w.stmt(x.Body, c)
	default:
		w.node(x, c)
	}
}

// pipeline flattens the stages of a pipeline statement.
func pipeline(st *syntax.Stmt, out []*syntax.Stmt) []*syntax.Stmt {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
		len(st.Redirs) == 0 && !st.Negated && !st.Background {
		out = pipeline(b.X, out)
		return pipeline(b.Y, out)
	}
	return append(out, st)
}

func appendWrapper(ws []string, name string) []string {
	out := make([]string, len(ws), len(ws)+1)
	copy(out, ws)
	return append(out, name)
}

// assignWord renders an assignment of a declare-like clause as one word.
func assignWord(a *syntax.Assign, src string) word {
	text := srcText(src, a)
	if a.Array != nil || a.Index != nil {
		return word{val: text, text: text}
	}
	if a.Naked {
		if a.Name != nil {
			return word{val: a.Name.Value, lit: true, text: text}
		}
		if a.Value != nil {
			return convert(a.Value, src)
		}
		return word{val: text, text: text}
	}
	if a.Name == nil {
		return word{val: text, text: text}
	}
	op := "="
	if a.Append {
		op = "+="
	}
	if a.Value == nil {
		return word{val: a.Name.Value + op, lit: true, text: text}
	}
	v := convert(a.Value, src)
	if !v.lit {
		return word{val: text, text: text}
	}
	return word{val: a.Name.Value + op + v.val, lit: true, text: text}
}

// call handles a simple command.
func (w *walker) call(x *syntax.CallExpr, st *syntax.Stmt, c ctx, redirs []string, in stdin) {
	var assigns []string
	for _, a := range x.Assigns {
		w.assign(a, c)
		assigns = append(assigns, srcText(c.src, a))
	}
	words := w.wordsFor(len(x.Args))
	for i, a := range x.Args {
		w.word(a, c)
		words[i] = convert(a, c.src)
	}
	if len(words) == 0 {
		if len(assigns) > 0 || len(redirs) > 0 {
			w.add(Command{Assigns: assigns, Redirects: redirs, Text: srcText(c.src, st)}, c)
		}
		return
	}
	w.emit(words, c, assigns, redirs, in, callText(x, st, c.src))
}

// callText is the source of a simple command with its redirections, without
// here-document bodies or the terminating ; or &.
func callText(x *syntax.CallExpr, st *syntax.Stmt, src string) string {
	start, end := x.Pos(), x.End()
	for _, r := range st.Redirs {
		if r.Pos().Offset() < start.Offset() {
			start = r.Pos()
		}
		if r.Word != nil && r.Word.End().Offset() > end.Offset() {
			end = r.Word.End()
		}
	}
	a, b := int(start.Offset()), int(end.Offset())
	if a < 0 || b > len(src) || a > b {
		return ""
	}
	return src[a:b]
}

func (w *walker) assign(a *syntax.Assign, c ctx) {
	if a.Value != nil {
		w.word(a.Value, c)
	}
	if a.Array != nil || a.Index != nil {
		w.node(a, c)
	}
}

// word finds the substitutions inside a word.
func (w *walker) word(x *syntax.Word, c ctx) {
	if x == nil {
		return
	}
	w.parts(x.Parts, c)
}

func (w *walker) parts(parts []syntax.WordPart, c ctx) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob:
		case *syntax.DblQuoted:
			w.parts(p.Parts, c)
		case *syntax.CmdSubst:
			if w.enter() {
				w.stmts(p.Stmts, sub(c))
			}
			w.leave()
		case *syntax.ProcSubst:
			if w.enter() {
				w.stmts(p.Stmts, sub(c))
			}
			w.leave()
		case *syntax.BraceExp:
			for _, e := range p.Elems {
				w.word(e, c)
			}
		default:
			w.node(p, c)
		}
	}
}

// node finds the substitutions anywhere under n (parameter expansions,
// arithmetic, tests, arrays).
func (w *walker) node(n syntax.Node, c ctx) {
	if n == nil {
		return
	}
	defer w.leave()
	if !w.enter() {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.stmts(n.Stmts, sub(c))
			return false
		case *syntax.ProcSubst:
			w.stmts(n.Stmts, sub(c))
			return false
		}
		return true
	})
}

// add appends a command with the context's wrappers, function and pipeline.
func (w *walker) add(cmd Command, c ctx) int {
	if len(c.wrappers) > 0 {
		cmd.Wrappers = c.wrappers
	}
	cmd.Func = c.fn
	cmd.Pipeline = c.pipe
	cmd.Stage = c.stage
	w.s.Commands = append(w.s.Commands, cmd)
	return len(w.s.Commands) - 1
}

// script parses src, an embedded script (bash -c STRING, eval, here-document
// fed to a shell), and walks it as run by the given wrapper.
func (w *walker) script(src string, c ctx, wrapper string) {
	if w.depth >= maxDepth {
		w.opaque("wrappers nested too deep to analyse")
		return
	}
	src = bashEnd(src)
	f, err := parseFile(src)
	if err != nil {
		w.opaque(fmt.Sprintf("cannot parse the script of %s: %v", wrapper, err))
		return
	}
	w.checkSource(src)
	w.scanTree(f, src)
	w.depth++
	cc := ctx{
		src:       src,
		wrappers:  appendWrapper(c.wrappers, wrapper),
		redirs:    c.redirs,
		inputs:    c.inputs,
		fn:        c.fn,
		pipe:      c.pipe,
		stage:     c.stage,
		stdinPipe: c.stdinPipe,
	}
	w.stmts(f.Stmts, cc)
	w.depth--
}
