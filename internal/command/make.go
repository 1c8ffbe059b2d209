package command

import "strings"

// MakefileFromInput reports, for a make command line, a makefile read from
// standard input, a device or a substitution (make -f /dev/stdin, -f -),
// or makefile text given with --eval: recipes the words do not show.
func MakefileFromInput(args []string) string {
	g, ok := Lookup("make")
	if !ok || len(args) == 0 {
		return ""
	}
	p := g.Parse(args)
	for _, f := range p.Values("file") {
		if f == "-" || strings.HasPrefix(f, "/dev/") || strings.HasPrefix(f, "/proc/") || strings.ContainsAny(f, "$`<(") {
			return "make runs a makefile from standard input or a substitution (" + f + ")"
		}
	}
	if len(p.Values("eval")) > 0 {
		return "make --eval runs makefile text given on the command line"
	}
	return ""
}
