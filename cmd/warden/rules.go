package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/wardenhq/warden/rules"
)

// rulesCheck judges a command against exec rules files: one argument is a
// shell script, several are an argv run directly. It prints the decision,
// the simple commands found and the rules that matched, and exits 0 for
// allow, 10 for prompt, 11 for forbidden and 2 when a rules file does not
// load.
func rulesCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warden rules check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files stringList
	fs.Var(&files, "rules", "exec rules file: Codex .rules (Starlark) or YAML; a directory loads every rules file in it (repeatable)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	cmd := fs.Args()
	if len(cmd) == 0 {
		fmt.Fprint(stderr, "usage: warden rules check [--rules FILE]... -- CMD...\n")
		return exitUsage
	}
	set := &rules.Set{}
	if len(files) > 0 {
		var err error
		if set, err = rules.Load(files...); err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			return exitUsage
		}
	}
	var res rules.Result
	if len(cmd) == 1 {
		res = rules.Evaluate(set, cmd[0])
	} else {
		res = rules.EvaluateArgv(set, cmd)
	}
	fmt.Fprint(stdout, res.Report())
	return res.Decision.ExitCode()
}
