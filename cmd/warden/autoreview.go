package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/task"
)

const autoReviewUsage = "usage: warden auto-review policy\n       warden auto-review approve DENIAL_ID --run RUN_ID [--note TEXT] [--transcript PATH]\n"

// autoReviewCmd runs `warden auto-review policy`, which prints the
// reviewer's resolved policy and where each part came from (SPEC G8), and
// `warden auto-review approve`, a person's override of one denial of a
// stored run (SPEC G12).
func autoReviewCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "approve" {
		return autoReviewApprove(args[1:], stdout, stderr)
	}
	if len(args) != 1 || args[0] != "policy" {
		fmt.Fprint(stderr, autoReviewUsage)
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

// autoReviewApprove lets a stored run retry exactly the action of one of its
// denials, once, when it resumes.
func autoReviewApprove(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warden auto-review approve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runID := fs.String("run", "", "the run the denial belongs to")
	note := fs.String("note", "", "why the person approves the retry")
	path := fs.String("transcript", "", "the run's transcript (default $WARDEN_HOME/runs/RUN_ID.jsonl)")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 1 || *runID == "" {
		fmt.Fprint(stderr, autoReviewUsage)
		return exitUsage
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
