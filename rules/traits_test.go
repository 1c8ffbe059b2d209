package rules

import (
	"testing"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// TestG14_TraitsAreTheNameSets checks that the one-lookup table of a
// program's traits says exactly what the name sets it gathers say, for
// every name in them and for names in none.
func TestG14_TraitsAreTheNameSets(t *testing.T) {
	names := map[string]bool{"": true, "ls2": true, "python3.12": true, "pythonx": true, "pypy3": true, "py": true, "p": true,
		"gitx": true, "-rf": true, "./...": true, "status": true}
	for n := range traits() {
		names[n] = true
	}
	for n := range names {
		want := trait(0)
		set := func(tr trait, in bool) {
			if in {
				want |= tr
			}
		}
		set(tShell, shell.IsShell(n) && n != "" && shell.Base(n) == n)
		set(tInterpreter, interpreters[n])
		set(tPython, n != "" && command.IsPython(n))
		set(tScriptInterpreter, scriptInterpreters[n])
		set(tHidesCode, codeHiders[n] || shell.IsShell(n) && n != "" || n != "" && command.IsPython(n))
		set(tLeavesWordsAlone, leavesWordsAlone[n])
		set(tAlwaysSafe, alwaysSafe[n])
		set(tDownloader, downloaders[n])
		if got := traitsOf(n); got != want {
			t.Errorf("traitsOf(%q) = %b, the sets say %b", n, got, want)
		}
	}
}
