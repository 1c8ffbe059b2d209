package main

import (
	"fmt"
	"io"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
)

// policyCheck validates approval and review policy files: syntax, patterns,
// registered names and their parameters. Errors print as file:line:col.
func policyCheck(files []string, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprint(stderr, "usage: warden policy check FILE...\n")
		return exitUsage
	}
	code := exitOK
	for _, path := range files {
		f, err := policy.LoadFile(path)
		if err == nil {
			if f.Kind == policy.Approval {
				_, err = approval.Compile(f.Entries)
			} else {
				_, err = review.Compile(f.Entries)
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d %s)\n", path, len(f.Entries), f.Kind)
	}
	return code
}
