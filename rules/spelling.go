package rules

import (
	"slices"

	"github.com/wardenhq/warden/internal/command"
)

// maxForms bounds how many argv a pattern with alternatives expands to for
// matching by meaning; a pattern with more is matched by spelling only.
const maxForms = 64

// spelledForms reads the pattern with its program's option grammar (see
// package internal/command), one Parsed value per combination of
// alternatives. It returns nil when the program's grammar is not known or
// the pattern has too many combinations.
func spelledForms(p [][]string) []command.Parsed {
	if len(p) < 2 {
		return nil
	}
	n := 1
	for _, alts := range p {
		n *= len(alts)
		if n > maxForms {
			return nil
		}
	}
	var out []command.Parsed
	argv := make([]string, len(p))
	var walk func(i int)
	walk = func(i int) {
		if i == len(p) {
			if parsed, ok := command.Parse(argv); ok {
				out = append(out, parsed)
			}
			return
		}
		for _, a := range p[i] {
			argv[i] = a
			walk(i + 1)
		}
	}
	walk(0)
	return out
}

// sameMeaning reports whether the command c, read with its program's
// grammar, does what the pattern form pat says: the same program and
// subcommands (after global options), every option of the pattern (in any
// spelling, with the same value when the pattern gives one), and the
// pattern's operands first among the command's.
func sameMeaning(pat, c *command.Parsed) bool {
	if len(c.Path) < len(pat.Path) || !slices.Equal(c.Path[:len(pat.Path)], pat.Path) {
		return false
	}
	if len(pat.Operands) > 0 && len(c.Path) != len(pat.Path) {
		return false
	}
	for _, o := range pat.Options {
		found := false
		for _, x := range c.Options {
			if x.Name == o.Name && (!o.HasValue || x.HasValue && x.Value == o.Value) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if len(c.Operands) < len(pat.Operands) {
		return false
	}
	return slices.Equal(c.Operands[:len(pat.Operands)], pat.Operands)
}

// spelledMatch reports whether a prompt or forbidden rule matches argv by
// meaning rather than spelling. forms are the rule's spelled forms; parsed
// caches argv's reading across rules (nil until needed).
func spelledMatch(forms []command.Parsed, argv []string, parsed **command.Parsed) bool {
	if len(forms) == 0 || len(argv) == 0 {
		return false
	}
	if *parsed == nil {
		p, ok := command.Parse(argv)
		if !ok {
			return false
		}
		*parsed = &p
	}
	for i := range forms {
		if sameMeaning(&forms[i], *parsed) {
			return true
		}
	}
	return false
}
