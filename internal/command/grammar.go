package command

import (
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/wordset"
)

// Grammar is the option grammar of a program or of one of its
// subcommands.
//
// A Grammar lives as long as the process, so it keeps its options in
// forms the garbage collector traces little: the letters in a string, the
// long names in a wordset.Set, and the options in slices beside them.
type Grammar struct {
	// shortLetters are the option letters; shortOpts[i] is the option of
	// shortLetters[i].
	shortLetters string
	shortOpts    []option
	// long holds the long option names (without dashes); longOpts[i] is
	// the option of the name at position i.
	long     wordset.Set
	longOpts []option
	// names holds the canonical names of the options, each option's in
	// a run (option.at).
	names []string
	// subs are the subcommands, by name; aliases map to the same Grammar
	// under their canonical name (see canon).
	subs map[string]*Grammar
	// canon is the canonical name of a subcommand reached under an alias
	// (npm i → install); "" for programs.
	canon string
	// permute is true when options may follow operands (GNU getopt); false
	// when the first operand ends the options (docker run IMAGE CMD…).
	permute bool
	// singleDash is true when long options take one dash (find -name,
	// kubectl is not among them).
	singleDash bool
}

// option is one option of a grammar.
type option struct {
	// The canonical names the option sets (git branch -D sets delete and
	// force) are names[at:at+n] of its grammar (Grammar.namesOf).
	at, n uint16
	// arg is true when the option takes a value (the rest of a short
	// cluster, the next word, or =value).
	arg bool
	// optArg is true when the option takes a value only when attached:
	// --name=value, or the rest of a short cluster (-i.bak).
	optArg bool
}

// Option is one option of a parsed command, by canonical name.
type Option struct {
	// Name is the canonical (long) name, such as "recursive".
	Name string
	// Value is the option's value, "" for flags.
	Value string
	// HasValue is true when the option took a value.
	HasValue bool
}

// Parsed is an argv read with its program's grammar.
type Parsed struct {
	// Path is the program's base name followed by the canonical names of
	// the subcommands: ["git", "push"], ["npm", "install"].
	Path []string
	// Options are the options given anywhere along the path (global and
	// subcommand options alike), in order.
	Options []Option
	// Operands are the words that are neither options nor subcommands, in
	// order; after "--" every word is an operand.
	Operands []string
	// DashDash is true when "--" ended the options.
	DashDash bool
	// Unknown is true when some option is not in the grammar; such an
	// option is kept under its spelling ("-z", "--zap") and, when it
	// is a short cluster, its later letters are not read.
	Unknown bool
}

// Has reports whether the option name was given.
func (p *Parsed) Has(name string) bool {
	for _, o := range p.Options {
		if o.Name == name {
			return true
		}
	}
	return false
}

// Values returns the values of the option name, in order.
func (p *Parsed) Values(name string) []string {
	var out []string
	for _, o := range p.Options {
		if o.Name == name && o.HasValue {
			out = append(out, o.Value)
		}
	}
	return out
}

// Lookup returns the grammar of a program, by its base name, and whether
// it is known.
func Lookup(program string) (*Grammar, bool) {
	loadGrammars.Do(registerAll)
	g, ok := grammars[base(program)]
	return g, ok
}

// base returns the last element of a program's path: path.Base, without
// its work for a bare name.
func base(program string) string {
	if program != "" && strings.IndexByte(program, '/') < 0 {
		return program
	}
	return path.Base(program)
}

// Parse reads argv (argv[0] is the program) with the grammar of its
// program. ok is false when the program's grammar is not known.
func Parse(argv []string) (p Parsed, ok bool) {
	if len(argv) == 0 {
		return Parsed{}, false
	}
	g, ok := Lookup(argv[0])
	if !ok {
		return Parsed{}, false
	}
	return g.Parse(argv), true
}

// Parse reads argv with g; argv[0] names the program.
func (g *Grammar) Parse(argv []string) Parsed {
	p := Parsed{Path: append(make([]string, 0, 3), base(argv[0]))} // room for a subcommand or two
	cur := g
	operandsOnly := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if operandsOnly {
			p.Operands = append(p.Operands, a)
			continue
		}
		if a == "--" {
			operandsOnly, p.DashDash = true, true
			continue
		}
		if len(a) > 1 && a[0] == '-' {
			i = cur.option(&p, argv, i)
			continue
		}
		if cur.subs != nil && len(p.Operands) == 0 {
			if s, ok := cur.subs[a]; ok {
				name := a
				if s.canon != "" {
					name = s.canon
				}
				p.Path = append(p.Path, name)
				cur = s
				continue
			}
		}
		p.Operands = append(p.Operands, a)
		if !cur.permute {
			operandsOnly = true
		}
	}
	return p
}

// option reads the option at argv[i] into p and returns the index of its
// last word.
func (g *Grammar) option(p *Parsed, argv []string, i int) int {
	a := argv[i]
	if strings.HasPrefix(a, "--") || g.singleDash {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		o, ok := g.longOption(name)
		if !ok && !g.singleDash {
			o, ok = g.abbreviation(name)
		}
		if !ok {
			p.Unknown = true
			p.Options = append(p.Options, Option{Name: a})
			return i
		}
		switch {
		case hasVal:
		case o.arg && i+1 < len(argv):
			i++
			val, hasVal = argv[i], true
		}
		for _, n := range g.namesOf(o) {
			p.Options = append(p.Options, Option{Name: n, Value: val, HasValue: hasVal})
		}
		return i
	}
	for j := 1; j < len(a); j++ {
		o, ok := g.shortOption(a[j])
		if !ok {
			p.Unknown = true
			p.Options = append(p.Options, Option{Name: "-" + a[j:]})
			return i
		}
		if o.optArg && j+1 < len(a) {
			for _, n := range g.namesOf(o) {
				p.Options = append(p.Options, Option{Name: n, Value: a[j+1:], HasValue: true})
			}
			return i
		}
		if o.arg {
			val, has := a[j+1:], j+1 < len(a)
			if !has && i+1 < len(argv) {
				i++
				val, has = argv[i], true
			}
			for _, n := range g.namesOf(o) {
				p.Options = append(p.Options, Option{Name: n, Value: val, HasValue: has})
			}
			return i
		}
		for _, n := range g.namesOf(o) {
			p.Options = append(p.Options, Option{Name: n})
		}
	}
	return i
}

// namesOf returns the canonical names o sets.
func (g *Grammar) namesOf(o option) []string { return g.names[o.at : o.at+o.n] }

// shortOption returns the option of the letter c.
func (g *Grammar) shortOption(c byte) (option, bool) {
	if i := strings.IndexByte(g.shortLetters, c); i >= 0 {
		return g.shortOpts[i], true
	}
	return option{}, false
}

// longOption returns the option of the long name (without dashes).
func (g *Grammar) longOption(name string) (option, bool) {
	if i, ok := g.long.Index(name); ok {
		return g.longOpts[i], true
	}
	return option{}, false
}

// abbreviation returns the long option that name abbreviates, the way
// getopt_long reads it (rm --recur --forc is rm --recursive --force): the
// one option whose long names start with name. Two or more options, or
// none, give false.
func (g *Grammar) abbreviation(name string) (option, bool) {
	if name == "" {
		return option{}, false
	}
	var found option
	var key string
	n := 0
	for i := range g.long.Len() {
		long, o := g.long.Word(i), g.longOpts[i]
		if !strings.HasPrefix(long, name) {
			continue
		}
		k := strings.Join(g.namesOf(o), "\x00")
		if n > 0 && k == key {
			continue // another spelling of the same option
		}
		found, key = o, k
		n++
	}
	return found, n == 1
}

// Subcommand returns the index in argv of the first subcommand word of a
// program whose grammar has subcommands, skipping its global options
// (git -C repo -c k=v push → the index of push); len(argv) when there is
// none. For programs with no known grammar it skips words starting with
// "-".
func Subcommand(argv []string) int {
	var g *Grammar
	looked, ok := false, false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return i + 1
		}
		if len(a) < 2 || a[0] != '-' {
			return i
		}
		if !looked {
			g, ok = Lookup(argv[0])
			looked = true
		}
		if !ok {
			continue
		}
		var p Parsed
		i = g.option(&p, argv, i)
	}
	return len(argv)
}

// HasSubcommands reports whether the program's first operand is a
// subcommand (git push, docker run).
func (g *Grammar) HasSubcommands() bool { return len(g.subs) > 0 }
