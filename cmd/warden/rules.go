package main

import (
	"fmt"
	"io"

	"github.com/wardenhq/warden/rules"
)

const rulesUsage = "usage: warden rules check [--rules FILE]... -- CMD...\n\nJudges CMD (one argument: a shell script; several: an argv) against exec rules.\nAn allow rule on a bare shell or interpreter ([\"python3\"], [\"bash\"]) is warned of on stderr.\nExit codes: 0 allow, 10 prompt, 11 forbidden, 2 a rules file does not load.\n"

// rulesCheck judges a command against exec rules files: one argument is a
// shell script, several are an argv run directly. It prints the decision,
// the simple commands found and the rules that matched, and exits 0 for
// allow, 10 for prompt, 11 for forbidden and 2 when a rules file does not
// load. An allow rule on a bare shell or interpreter is warned of on stderr
// (rules.Set.Broad); the warning changes no decision.
func rulesCheck(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden rules check", rulesUsage, stderr)
	var files stringList
	c.fs.Var(&files, "rules", "exec rules `FILE`: Codex .rules (Starlark) or YAML; a directory loads every rules file in it (repeatable)")
	cmd, code, ok := c.parse(args, false, stdout)
	if !ok {
		return code
	}
	if len(cmd) == 0 {
		return c.fail("no command given")
	}
	set := &rules.Set{}
	if len(files) > 0 {
		var err error
		if set, err = rules.Load(files...); err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			return exitUsage
		}
		for _, w := range set.Broad() {
			fmt.Fprintln(stderr, w)
		}
	}
	var res rules.Result
	if len(cmd) == 1 {
		res = rules.Evaluate(set, cmd[0])
	} else {
		res = rules.EvaluateArgv(set, cmd)
	}
	fmt.Fprint(stdout, res.Report())
	return rules.ExitCode(res.Decision)
}
