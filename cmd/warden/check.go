package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/rules"
)

const checkUsage = `usage: warden check TASK.yaml... [flags of warden run]

Validates task files with everything warden run would resolve for them: the
task's keys, its policies (files, registered names, inline entries), exec
rules files, the model (a scripted model's file; the API key of openai/ and
anthropic/), the sandbox settings and who decides boundary requests (with
the auto-review policy). Nothing is run and nothing is created: no working
directory, transcript or key. Each problem prints as file:line:col: message;
what is accepted but should be written another way (an approver's old name,
such as rules for first_pass) prints as a warning without failing the task.
An allow rule on a bare shell or interpreter (["python3"], ["bash"]) in the
exec rules is warned of on stderr: it allows far more than it seems.
Exit codes: 0 every task is valid, 2 otherwise.
`

// checkCmd implements `warden check`: task.Load and the preparation of a
// run (task.Task.Check), stopping before anything is created.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden check", checkUsage, stderr)
	var opts task.Options
	pf := prepareFlags(c.fs, &opts)
	pos, code, ok := c.parseSome(args, stdout, "TASK.yaml")
	if !ok {
		return code
	}
	if !pf.finish(stderr) {
		return exitUsage
	}
	code = exitOK
	for _, path := range pos {
		if isHookConfig(path) {
			code = max(code, checkHookConfig(path, stdout, stderr))
			continue
		}
		t, err := task.Load(path)
		if err == nil {
			for _, w := range t.Warnings(opts) {
				fmt.Fprintln(stderr, "warning: "+w)
			}
			err = t.Check(opts)
		}
		if err != nil {
			for _, e := range flatten(err) {
				fmt.Fprintln(stderr, e)
			}
			code = exitUsage
			continue
		}
		warnBroadRules(stderr, append(append([]string{}, t.Rules...), opts.Rules...))
		fmt.Fprintf(stdout, "%s: ok (%s)\n", path, checkSummary(t, opts))
	}
	return code
}

// warnBroadRules prints, on w, a warning for each allow rule of the exec
// rules files that allows far more than it seems (rules.Set.Broad). The
// files loaded when the task was checked; a warning is never an error.
func warnBroadRules(w io.Writer, files []string) {
	if len(files) == 0 {
		return
	}
	set, err := rules.Load(files...)
	if err != nil {
		return // reported by the check itself
	}
	for _, m := range set.Broad() {
		fmt.Fprintln(w, m)
	}
}

// flatten lists the errors err joins (errors.Join), or err alone.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// checkSummary says in a few words what a valid task runs with.
func checkSummary(t *task.Task, opts task.Options) string {
	model := opts.Model
	if model == "" {
		model = t.Model
	}
	parts := []string{"model " + model, plural(len(t.Tools), "tool")}
	if n := len(t.Agents); n > 0 {
		parts = append(parts, plural(n, "sub-agent"))
	}
	if opts.Sandbox != "" {
		parts = append(parts, "sandbox "+opts.Sandbox)
	} else if t.Sandbox != nil && t.Sandbox.Mode != "" {
		parts = append(parts, "sandbox "+t.Sandbox.Mode)
	}
	return strings.Join(parts, ", ")
}

// plural renders n things: "1 tool", "2 tools".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
