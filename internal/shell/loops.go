package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Loop is a loop whose variable stands for files: `for NAME in WORDS`, or
// `find ROOT … | while read NAME`.
type Loop struct {
	// Var is the loop variable's name.
	Var string
	// Root is the directory the files lie under, as written ("." for the
	// current directory); "" when it is not known before the script runs
	// (the words hold expansions).
	Root string
}

// forLoop records a for loop over words.
func (w *walker) forLoop(it *syntax.WordIter, src string) {
	if it.Name == nil {
		return
	}
	l := Loop{Var: it.Name.Value}
	if len(it.Items) == 0 {
		// for f; do …: the positional parameters.
		w.s.Loops = append(w.s.Loops, l)
		return
	}
	if r, ok := listingRoot(it.Items[0]); ok && len(it.Items) == 1 {
		l.Root = r
		w.s.Loops = append(w.s.Loops, l)
		return
	}
	l.Root = "."
	for _, item := range it.Items {
		v := convert(item, src)
		if strings.ContainsAny(v.text, "$`") {
			l.Root = ""
			break
		}
		p := strings.Trim(v.text, `"'`)
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
			l.Root = path.Dir(p)
			break
		}
	}
	w.s.Loops = append(w.s.Loops, l)
}

// listingRoot returns the directory a $(find DIR …) or $(ls DIR) word
// lists.
func listingRoot(item *syntax.Word) (string, bool) {
	if len(item.Parts) != 1 {
		return "", false
	}
	cs, ok := item.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) == 0 {
		return "", false
	}
	first := cs.Stmts[0]
	// $(find . | grep x): the listing is the first stage.
	for {
		b, ok := first.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		first = b.X
	}
	call, ok := first.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	switch call.Args[0].Lit() {
	case "find", "ls":
		return firstOperand(call.Args[1:]), true
	}
	return "", false
}

// firstOperand returns the first word of args that is not an option, "."
// when there is none, "" when it is not literal.
func firstOperand(args []*syntax.Word) string {
	for _, a := range args {
		lit := a.Lit()
		if lit == "" {
			v := convert(a, "")
			if !v.lit {
				return ""
			}
			lit = v.val
		}
		if strings.HasPrefix(lit, "-") {
			continue
		}
		return lit
	}
	return "."
}

// readLoop records `LISTER … | while read NAME`: a while loop reading
// lines from a pipeline stage that lists files.
func (w *walker) readLoop(prev, st *syntax.Stmt) {
	wc, ok := st.Cmd.(*syntax.WhileClause)
	if !ok || wc.Until {
		return
	}
	call, ok := prev.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	root := ""
	switch call.Args[0].Lit() {
	case "find", "ls":
		root = firstOperand(call.Args[1:])
	case "fd", "fdfind":
		root = "."
	case "locate":
		root = "/"
	default:
		return
	}
	for _, c := range wc.Cond {
		rc, ok := c.Cmd.(*syntax.CallExpr)
		if !ok || len(rc.Args) < 2 || rc.Args[0].Lit() != "read" {
			continue
		}
		name := ""
		for _, a := range rc.Args[1:] {
			if l := a.Lit(); l != "" && !strings.HasPrefix(l, "-") {
				name = l
			}
		}
		if name != "" {
			w.s.Loops = append(w.s.Loops, Loop{Var: name, Root: root})
		}
	}
}
