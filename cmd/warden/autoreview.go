package main

import (
	"fmt"
	"io"

	"github.com/wardenhq/warden/autoreview"
)

// autoReviewCmd runs `warden auto-review policy`: it prints the reviewer's
// resolved policy and where each part came from (SPEC G8).
func autoReviewCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "policy" {
		fmt.Fprint(stderr, "usage: warden auto-review policy\n")
		return exitUsage
	}
	res, err := autoreview.ResolvePolicy(autoreview.DefaultPolicySources())
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(stdout, res.Describe())
	return exitOK
}
