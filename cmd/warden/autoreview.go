package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/task"
)

const autoReviewUsage = "usage: warden auto-review policy\n       warden auto-review approve DENIAL_ID --run RUN_ID [--note TEXT] [--transcript PATH]\n"

const autoReviewPolicyUsage = "usage: warden auto-review policy\n\nPrints the reviewer's resolved policy and where each part came from.\n"

const autoReviewApproveUsage = `usage: warden auto-review approve DENIAL_ID --run RUN_ID [--note TEXT] [--transcript PATH]

Lets stored run RUN_ID retry the action of denial DENIAL_ID once, when it resumes.
`

// autoReviewCmd runs `warden auto-review policy`, which prints the
// reviewer's resolved policy and where each part came from (SPEC G8), and
// `warden auto-review approve`, a person's override of one denial of a
// stored run (SPEC G12).
func autoReviewCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "approve" {
		return autoReviewApprove(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "policy" {
		return autoReviewPolicy(args[1:], stdout, stderr)
	}
	if wantsHelp(args) {
		fmt.Fprint(stdout, autoReviewUsage)
		return exitOK
	}
	fmt.Fprint(stderr, autoReviewUsage)
	return exitUsage
}

// autoReviewPolicy prints the reviewer's resolved policy.
func autoReviewPolicy(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden auto-review policy", autoReviewPolicyUsage, stderr)
	if code, ok := c.parseNone(args, stdout); !ok {
		return code
	}
	res, err := autoreview.ResolvePolicy(autoreview.DefaultPolicySources())
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(stdout, res.Describe())
	return exitOK
}

// autoReviewApprove lets a stored run retry exactly the action of one of its
// denials, once, when it resumes.
func autoReviewApprove(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden auto-review approve", autoReviewApproveUsage, stderr)
	runID := c.fs.String("run", "", "the run the denial belongs to (`RUN_ID`, required)")
	note := c.fs.String("note", "", "why the person approves the retry")
	path := c.fs.String("transcript", "", "the run's transcript (default $WARDEN_HOME/runs/RUN_ID.jsonl)")
	pos, code, ok := c.parse(args, true, stdout)
	switch {
	case !ok:
		return code
	case *runID == "":
		return c.fail("missing --run RUN_ID: the run the denial belongs to")
	case len(pos) == 0:
		return c.fail("missing DENIAL_ID")
	case len(pos) > 1:
		return c.fail("one DENIAL_ID at a time, got %d", len(pos))
	}
	if *path == "" {
		*path = task.TranscriptPath(*runID)
	}
	by := os.Getenv("USER")
	if by == "" {
		by = "console"
	}
	if err := task.ApproveStored(context.Background(), *path, pos[0], by, *note); err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "approved one retry of %s; it takes effect when run %s resumes\n", pos[0], *runID)
	return exitOK
}
