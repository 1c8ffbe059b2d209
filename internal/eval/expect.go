package eval

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/effect"
)

// Expect is one effect a dry run must show, read from a case's effects:
//
//	writes P, creates P, deletes P, chmods P, reads P
//	                      the list of that name holds P or a path under P
//	renames P -> Q        a rename from P to Q (or, as a rename may be
//	                      seen as such, a delete of P and a create or
//	                      write of Q)
//	changes P             any of writes, creates, deletes, chmods or a
//	                      rename from or to P (for tools that rewrite a
//	                      file through a temporary one)
//	exec NAME [WORD…]     a program started whose path or argv[0] is NAME
//	                      (by base name when NAME has no slash), with
//	                      every WORD among its arguments
//	lookup NAME           a name looked up; *.SUFFIX is any name under
//	                      SUFFIX
//	connect ADDR:PORT     a connect to the address and port (connect PATH
//	                      for a Unix socket); sendto likewise
//	timed_out             the command outlived the dry run's budget
//	exit N                the command's exit status was N
//
// A path P starts with "~/" (in the home directory), "./" (in the
// workspace) or "/" (absolute).
type Expect struct {
	// Verb is the first word: writes, creates, …, exit.
	Verb string
	// Arg is what the verb is about (a path, a name, an address), and
	// To the rename's destination.
	Arg, To string
	// Words are exec's required arguments.
	Words []string
	// text is the expectation as written.
	text string
}

// String returns the expectation as written.
func (e Expect) String() string { return e.text }

var pathVerbs = []string{"writes", "creates", "deletes", "chmods", "reads", "changes"}

// ParseExpect reads one expected effect (see Expect).
func ParseExpect(s string) (Expect, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Expect{}, fmt.Errorf("empty")
	}
	e := Expect{Verb: f[0], text: s}
	args := f[1:]
	checkPath := func(p string) error {
		if !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "/") {
			return fmt.Errorf("path %q: want ~/…, ./… or /…", p)
		}
		return nil
	}
	switch {
	case slices.Contains(pathVerbs, e.Verb):
		if len(args) != 1 {
			return e, fmt.Errorf("%s takes one path", e.Verb)
		}
		e.Arg = args[0]
		return e, checkPath(e.Arg)
	case e.Verb == "renames":
		if len(args) != 3 || args[1] != "->" {
			return e, fmt.Errorf("want renames FROM -> TO")
		}
		e.Arg, e.To = args[0], args[2]
		if err := checkPath(e.Arg); err != nil {
			return e, err
		}
		return e, checkPath(e.To)
	case e.Verb == "exec":
		if len(args) == 0 {
			return e, fmt.Errorf("exec takes a program name")
		}
		e.Arg, e.Words = args[0], args[1:]
	case e.Verb == "lookup", e.Verb == "connect", e.Verb == "sendto":
		if len(args) != 1 {
			return e, fmt.Errorf("%s takes one destination", e.Verb)
		}
		e.Arg = args[0]
		if e.Verb != "lookup" && !strings.HasPrefix(e.Arg, "/") {
			if _, _, err := splitHostPort(e.Arg); err != nil {
				return e, err
			}
		}
	case e.Verb == "timed_out":
		if len(args) != 0 {
			return e, fmt.Errorf("timed_out takes nothing")
		}
	case e.Verb == "exit":
		if len(args) != 1 {
			return e, fmt.Errorf("exit takes a status")
		}
		if _, err := strconv.Atoi(args[0]); err != nil {
			return e, fmt.Errorf("exit %q: want a number", args[0])
		}
		e.Arg = args[0]
	default:
		return e, fmt.Errorf("unknown effect %q", e.Verb)
	}
	return e, nil
}

func splitHostPort(s string) (string, int, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, fmt.Errorf("destination %q: want ADDR:PORT", s)
	}
	port, err := strconv.Atoi(s[i+1:])
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("destination %q: bad port", s)
	}
	return strings.Trim(s[:i], "[]"), port, nil
}

// resolve turns a path of an expectation into an absolute path of w.
func (w World) resolve(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(w.Home, p[2:])
	case strings.HasPrefix(p, "./"):
		return filepath.Join(w.Work, p[2:])
	}
	return filepath.Clean(p)
}

// under reports whether path is p or lies under p.
func under(path, p string) bool {
	path = filepath.Clean(path)
	return path == p || strings.HasPrefix(path, p+"/")
}

func anyUnder(list []string, p string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return under(s, p) })
}

// Named reports whether r, the report of a dry run in w, shows e.
func (e Expect) Named(r *effect.Report, w World) bool {
	switch e.Verb {
	case "writes":
		return anyUnder(r.Writes, w.resolve(e.Arg))
	case "creates":
		return anyUnder(r.Creates, w.resolve(e.Arg))
	case "deletes":
		return anyUnder(r.Deletes, w.resolve(e.Arg))
	case "reads":
		return anyUnder(r.Reads, w.resolve(e.Arg))
	case "chmods":
		p := w.resolve(e.Arg)
		return slices.ContainsFunc(r.Chmods, func(c effect.Chmod) bool { return under(c.Path, p) })
	case "changes":
		p := w.resolve(e.Arg)
		return anyUnder(r.Writes, p) || anyUnder(r.Creates, p) || anyUnder(r.Deletes, p) ||
			slices.ContainsFunc(r.Chmods, func(c effect.Chmod) bool { return under(c.Path, p) }) ||
			slices.ContainsFunc(r.Renames, func(rn effect.Rename) bool { return under(rn.From, p) || under(rn.To, p) })
	case "renames":
		from, to := w.resolve(e.Arg), w.resolve(e.To)
		if slices.ContainsFunc(r.Renames, func(rn effect.Rename) bool { return under(rn.From, from) && under(rn.To, to) }) {
			return true
		}
		return anyUnder(r.Deletes, from) && (anyUnder(r.Creates, to) || anyUnder(r.Writes, to))
	case "exec":
		return slices.ContainsFunc(r.Execs, func(x effect.Exec) bool { return e.execMatches(x) })
	case "lookup":
		return slices.ContainsFunc(r.Network, func(d effect.Dest) bool {
			return d.Op == "lookup" && nameMatches(d.Name, e.Arg)
		})
	case "connect", "sendto":
		return slices.ContainsFunc(r.Network, func(d effect.Dest) bool {
			if d.Op != e.Verb {
				return false
			}
			if strings.HasPrefix(e.Arg, "/") {
				return d.Address == e.Arg
			}
			host, port, _ := splitHostPort(e.Arg)
			return d.Address == host && d.Port == port
		})
	case "timed_out":
		return r.TimedOut
	case "exit":
		n, _ := strconv.Atoi(e.Arg)
		return !r.TimedOut && r.Exit == n
	}
	return false
}

func (e Expect) execMatches(x effect.Exec) bool {
	name := func(s string) bool {
		if strings.Contains(e.Arg, "/") {
			return s == e.Arg
		}
		return filepath.Base(s) == e.Arg
	}
	if !name(x.Path) && (len(x.Argv) == 0 || !name(x.Argv[0])) {
		return false
	}
	for _, w := range e.Words {
		if len(x.Argv) < 2 || !slices.Contains(x.Argv[1:], w) {
			return false
		}
	}
	return true
}

// nameMatches reports whether a name looked up is want (case aside, with
// or without the final dot), or lies under SUFFIX when want is *.SUFFIX.
func nameMatches(got, want string) bool {
	got = strings.ToLower(strings.TrimSuffix(got, "."))
	want = strings.ToLower(strings.TrimSuffix(want, "."))
	if suffix, ok := strings.CutPrefix(want, "*."); ok {
		return strings.HasSuffix(got, "."+suffix)
	}
	return got == want
}

// Unnamed returns the case's expected effects that r, the report of its
// dry run in w, does not show; nil when it shows them all.
func (c *Case) Unnamed(r *effect.Report, w World) []string {
	var out []string
	for _, e := range c.expects {
		if !e.Named(r, w) {
			out = append(out, e.String())
		}
	}
	return out
}
