package command

import (
	"slices"
	"strings"
)

// The functions below read the argv of a simple command (args[0] is the
// program) the way GNU-style tools parse it: short option clusters (-rf),
// long options (--force, --output=x), and "--" ending the options.

// HasShort reports whether an option cluster before "--" holds flag. In
// a cluster, a letter of argShort takes the rest of the cluster as its
// argument, or the next word when it ends the cluster.
func HasShort(args []string, flag byte, argShort string) bool {
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

// HasLong reports whether one of the long options (names without dashes)
// appears before "--", alone or as --name=value.
func HasLong(args []string, names ...string) bool {
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

// HasWord reports whether one of the words appears among args[1:].
func HasWord(args []string, words ...string) bool {
	for _, a := range args[1:] {
		if slices.Contains(words, a) {
			return true
		}
	}
	return false
}

// HasPrefixWord reports whether a word of args[1:] starts with one of the
// prefixes.
func HasPrefixWord(args []string, prefixes ...string) bool {
	for _, a := range args[1:] {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				return true
			}
		}
	}
	return false
}

// Operands returns the words of args[1:] that are not options or option
// arguments: argShort letters and argLong names take an argument.
func Operands(args []string, argShort string, argLong ...string) []string {
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

// OptValues returns the values of an option given as -X VALUE, -XVALUE,
// --long VALUE or --long=VALUE (short "" or long "" to skip one form).
func OptValues(args []string, short string, long ...string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, has := strings.Cut(a[2:], "=")
			if slices.Contains(long, name) {
				if has {
					out = append(out, val)
				} else if i+1 < len(args) {
					out = append(out, args[i+1])
					i++
				}
			}
			continue
		}
		if short != "" && strings.HasPrefix(a, short) {
			if len(a) > len(short) {
				out = append(out, a[len(short):])
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out
}
