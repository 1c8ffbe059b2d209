package command

import (
	"strings"
	"testing"
)

// TestG14_HistoryKnowledge checks the one meaning of turning shell history
// off that the exec rules and the first pass share (SPEC G7, G14):
// emptying or nulling HISTFILE, a size of 0 and unsetting the variables
// or `set +o history` disable it; HISTCONTROL and HISTIGNORE that skip
// commands hide some; ordinary values keep it.
func TestG14_HistoryKnowledge(t *testing.T) {
	// Each assignment as a script writes it, NAME=value.
	for assign, want := range map[string]History{
		"HISTFILE=":                         HistoryDisabled,
		"HISTFILE=/dev/null":                HistoryDisabled,
		"HISTFILE=/home/u/.bash_history":    HistoryKept,
		"HISTSIZE=0":                        HistoryDisabled,
		"HISTFILESIZE=":                     HistoryDisabled,
		"SAVEHIST=0":                        HistoryDisabled,
		"HISTSIZE=1000":                     HistoryKept,
		"HISTCONTROL=ignoreboth":            HistoryHidden,
		"HISTCONTROL=ignorespace:erasedups": HistoryHidden,
		"HISTIGNORE=*":                      HistoryHidden,
		"HISTCONTROL=erasedups":             HistoryKept,
		"PATH=":                             HistoryKept,
	} {
		name, v, _ := strings.Cut(assign, "=")
		if got := HistoryAssign(name, v); got != want {
			t.Errorf("%s: %d, want %d", assign, got, want)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want History
	}{
		{"unset", []string{"unset", "HISTFILE"}, HistoryDisabled},
		{"unset", []string{"unset", "-v", "HISTSIZE"}, HistoryDisabled},
		{"unset", []string{"unset", "FOO"}, HistoryKept},
		{"set", []string{"set", "+o", "history"}, HistoryDisabled},
		{"set", []string{"set", "-e", "+o", "history"}, HistoryDisabled},
		{"set", []string{"set", "-o", "history"}, HistoryKept},
		{"set", []string{"set", "+o"}, HistoryKept},
		{"export", []string{"export", "HISTFILE"}, HistoryKept},
		{"set", nil, HistoryKept},
	} {
		if got := HistoryBuiltin(tc.name, tc.args); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.args, got, tc.want)
		}
	}
}
