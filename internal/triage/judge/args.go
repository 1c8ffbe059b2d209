package judge

import (
	"slices"
	"strings"
)

// More helpers reading command lines, beside those of package shell.

// Sub returns the index of the first word of args[1:] that is not an
// option (a subcommand), skipping the options in withArg that take a
// value; len(args) when there is none.
func Sub(args []string, withArg ...string) int {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return i + 1
		}
		if !strings.HasPrefix(a, "-") {
			return i
		}
		if strings.IndexByte(a, '=') < 0 && slices.Contains(withArg, a) {
			i++
		}
	}
	return len(args)
}

// ClusterValues returns the values of the short option letter, which may
// end a cluster (-aG wheel) or have its value attached (-Gwheel);
// argLetters are the letters that take a value.
func ClusterValues(args []string, letter byte, argLetters string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(argLetters, a[j]) < 0 && a[j] != letter {
				continue
			}
			val := a[j+1:]
			if val == "" && i+1 < len(args) {
				i++
				val = args[i]
			}
			if a[j] == letter {
				out = append(out, val)
			}
			break
		}
	}
	return out
}

// Set returns the set of names.
func Set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
