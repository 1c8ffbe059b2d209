package command

import "strings"

// History is what a shell command does to the shell's history of commands:
// the exec rules and the first pass both judge turning it off as security
// weakening (SPEC G7, G14).
type History int

// The effects on shell history.
const (
	// HistoryKept: the history is written as before.
	HistoryKept History = iota
	// HistoryDisabled: no more history is written (HISTFILE emptied or
	// sent to /dev/null, a history size of 0, set +o history, the
	// variables unset).
	HistoryDisabled
	// HistoryHidden: some commands are left out of it (HISTCONTROL or
	// HISTIGNORE told to skip commands).
	HistoryHidden
)

// HistoryAssign returns what assigning v to the shell variable name does to
// shell history.
func HistoryAssign(name, v string) History {
	switch name {
	case "HISTFILE":
		if v == "" || v == "/dev/null" {
			return HistoryDisabled
		}
	case "HISTSIZE", "HISTFILESIZE", "SAVEHIST":
		if v == "0" || v == "" {
			return HistoryDisabled
		}
	case "HISTCONTROL", "HISTIGNORE":
		if strings.Contains(v, "ignorespace") || strings.Contains(v, "ignoreboth") || strings.Contains(v, "*") {
			return HistoryHidden
		}
	}
	return HistoryKept
}

// HistoryBuiltin returns what the builtin name (unset or set) run with
// args (args[0] the command word, args[1:] its words) does to shell
// history: unsetting a history variable or `set +o history` disables it.
func HistoryBuiltin(name string, args []string) History {
	if len(args) == 0 {
		return HistoryKept
	}
	switch name {
	case "unset":
		if HasWord(args, "HISTFILE", "HISTSIZE", "HISTFILESIZE") {
			return HistoryDisabled
		}
	case "set":
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "+o" && args[i+1] == "history" {
				return HistoryDisabled
			}
		}
	}
	return HistoryKept
}
