package shell

import "github.com/wardenhq/warden/internal/command"

// The readers of a simple command's argv live in package command, below
// this one, so that what a program's options mean is read in one place
// (command.Firewall, command.Does) with the same word readers the shell
// walker and the judges use. These forward to them, for the callers that
// read words with package shell.

// HasShort is command.HasShort: whether an option cluster before "--"
// holds flag (a letter of argShort takes an argument).
func HasShort(args []string, flag byte, argShort string) bool {
	return command.HasShort(args, flag, argShort)
}

// HasLong is command.HasLong: whether one of the long options appears
// before "--".
func HasLong(args []string, names ...string) bool { return command.HasLong(args, names...) }

// HasWord is command.HasWord: whether one of the words appears among
// args[1:].
func HasWord(args []string, words ...string) bool { return command.HasWord(args, words...) }

// HasPrefixWord is command.HasPrefixWord: whether a word of args[1:]
// starts with one of the prefixes.
func HasPrefixWord(args []string, prefixes ...string) bool {
	return command.HasPrefixWord(args, prefixes...)
}

// Operands is command.Operands: the words of args[1:] that are not
// options or option arguments.
func Operands(args []string, argShort string, argLong ...string) []string {
	return command.Operands(args, argShort, argLong...)
}

// OptValues is command.OptValues: the values of an option.
func OptValues(args []string, short string, long ...string) []string {
	return command.OptValues(args, short, long...)
}
