package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/review"
)

const policyUsage = "usage: warden policy check FILE...\n\nValidates approval and review policy files; errors print as file:line:col.\n"

// policyCheck validates approval and review policy files: syntax, patterns,
// registered names and their parameters. Errors print as file:line:col; an
// approver's old name (rules for first_pass) is accepted with a warning.
func policyCheck(files []string, stdout, stderr io.Writer) int {
	if wantsHelp(files) {
		fmt.Fprint(stdout, policyUsage)
		return exitOK
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, policyUsage)
		return exitUsage
	}
	code := exitOK
	for _, path := range files {
		f, err := policyfile.LoadFile(path)
		if err == nil {
			if f.Kind == policyfile.Approval {
				_, err = approval.Compile(f.Entries)
			} else {
				_, err = review.Compile(f.Entries)
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			if _, terr := task.Load(path); terr == nil {
				fmt.Fprintf(stderr, "%s: this is a task file, not a policy file: check it with warden check %s\n", path, path)
			}
			code = exitUsage
			continue
		}
		if f.Kind == policyfile.Approval {
			for _, e := range f.Entries {
				if now, ok := approval.Renamed(e.Name); ok {
					fmt.Fprintf(stderr, "warning: %s: %s\n", e.Pos, approvalsreviewer.RenameWarning(e.Name, now))
				}
			}
		}
		fmt.Fprintf(stdout, "%s: ok (%s)\n", path, entries(len(f.Entries), f.Kind))
	}
	return code
}

// entries renders n entries of a policy file of kind k: "1 reviewer",
// "2 approvers".
func entries(n int, k policyfile.Kind) string {
	name := strings.TrimSuffix(string(k), "s")
	if n == 1 {
		return "1 " + name
	}
	return fmt.Sprintf("%d %ss", n, name)
}
