package rules

import (
	"slices"
	"strings"
)

// Helpers reading GNU-style command lines: short option clusters (-rf),
// long options (--force, --output=x), "--" ending the options.

// hasShort reports whether an option cluster before "--" holds flag. In
// a cluster, a letter of argShort takes the rest of the cluster as its
// argument, or the next word when it ends the cluster.
func hasShort(args []string, flag byte, argShort string) bool {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return false
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			if a[j] == flag {
				return true
			}
			if strings.IndexByte(argShort, a[j]) >= 0 {
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return false
}

// hasLong reports whether one of the long options (names without dashes)
// appears before "--", alone or as --name=value.
func hasLong(args []string, names ...string) bool {
	for _, a := range args[1:] {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, _ := strings.Cut(a[2:], "=")
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// hasArg reports whether one of the words appears among args[1:].
func hasArg(args []string, words ...string) bool {
	for _, a := range args[1:] {
		if slices.Contains(words, a) {
			return true
		}
	}
	return false
}

// hasPrefixArg reports whether a word of args[1:] starts with one of the
// prefixes.
func hasPrefixArg(args []string, prefixes ...string) bool {
	for _, a := range args[1:] {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				return true
			}
		}
	}
	return false
}

// operands returns the words of args[1:] that are not options or option
// arguments: argShort letters and argLong names take an argument.
func operands(args []string, argShort string, argLong ...string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			out = append(out, a)
			continue
		}
		if a[1] == '-' {
			if strings.IndexByte(a, '=') < 0 && slices.Contains(argLong, a[2:]) {
				i++
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(argShort, a[j]) >= 0 {
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return out
}

// unquote removes the quotes of the source text of a non-literal word.
func unquote(s string) string {
	if strings.ContainsAny(s, `"'`) {
		return strings.NewReplacer(`"`, "", `'`, "").Replace(s)
	}
	return s
}
