package triage

import (
	"slices"
	"strings"
)

// Helpers reading GNU-style command lines (args[0] is the program).

// operandsOf returns the words of args[1:] that are neither options nor
// option arguments: letters of argShort and long options in argLong take an
// argument (attached or the next word); "--" ends the options.
func operandsOf(args []string, argShort string, argLong ...string) []string {
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

// hasShort reports whether a short option cluster before "--" holds flag.
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

// hasLong reports whether one of the long options appears before "--".
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

// hasWord reports whether one of words is among args[1:].
func hasWord(args []string, words ...string) bool {
	for _, a := range args[1:] {
		if slices.Contains(words, a) {
			return true
		}
	}
	return false
}

// optValues returns the values of an option given as -X VALUE, -XVALUE,
// --long VALUE or --long=VALUE (short "" or long "" to skip one form).
func optValues(args []string, short string, long ...string) []string {
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

// sub returns the index of the first word of args[1:] that is not an
// option (a subcommand), skipping the options in withArg that take a
// value; len(args) when there is none.
func sub(args []string, withArg ...string) int {
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

// words returns the lower-case word parts of a name, split at anything
// that is not a letter or digit and at lower-to-upper case changes:
// "get_pull-requestFiles" → get pull request files.
func words(name string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		boundary := !isAlnum || (i > 0 && start >= 0 && c >= 'A' && c <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z')
		if boundary && start >= 0 {
			out = append(out, strings.ToLower(name[start:i]))
			start = -1
		}
		if isAlnum && start < 0 {
			start = i
		}
	}
	return out
}

// clusterValues returns the values of the short option letter, which may
// end a cluster (-aG wheel) or have its value attached (-Gwheel);
// argLetters are the letters that take a value.
func clusterValues(args []string, letter byte, argLetters string) []string {
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
