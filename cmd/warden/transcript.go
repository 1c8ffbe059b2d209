package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/render"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/toolbox"
)

const transcriptUsage = "usage: warden transcript show FILE\n       warden transcript verify FILE...\n\nshow renders a JSONL transcript readably, with a summary at the end. A last\nline cut short by a crash is skipped with a warning (exit 0).\n" + transcriptVerifyHelp

const transcriptVerifyUsage = "usage: warden transcript verify FILE...\n\n" + transcriptVerifyHelp

const transcriptVerifyHelp = `verify checks, offline, that a transcript is as warden wrote it (SPEC L8):
each line's MAC under this machine's warden key ($WARDEN_HOME/keys), the
chain of each run, and warden's head record of each run, so that no line was
changed, removed, inserted or moved, and none of the last removed. It prints
"FILE: OK" (exit 0), or "FILE:LINE: why" for the first bad line (exit 2). A
last line cut short by a crash is reported as a warning (exit 0): a resume
removes it.
`

// transcriptShow renders a JSONL transcript readably.
func transcriptShow(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, transcriptUsage)
		return exitOK
	}
	if len(args) != 1 {
		fmt.Fprint(stderr, transcriptUsage)
		return exitUsage
	}
	f, err := os.Open(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	tw := render.NewTextWriter(stdout)
	tw.SetOrders(toolbox.Orders()) // calls as policy patterns see them (SPEC P2)
	stats := &render.Stats{}
	err = event.Read(f, func(e event.Event) error {
		stats.Add(e)
		return tw.Write(e)
	})
	var cut *event.CutLineError
	if errors.As(err, &cut) {
		// A crash cut the last write short: everything before it is shown.
		fmt.Fprintf(stderr, "warden: warning: %s: %v\n", args[0], err)
		err = nil
	}
	if err != nil {
		fmt.Fprintf(stderr, "warden: %s: %v\n", args[0], err)
		return exitError
	}
	fmt.Fprintf(stdout, "\n%s\n", stats)
	return exitOK
}

// transcriptVerify checks the chain of MACs of transcripts (SPEC L8).
func transcriptVerify(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden transcript verify", transcriptVerifyUsage, stderr)
	files, code, ok := c.parseSome(args, stdout, "FILE: the transcripts to verify")
	if !ok {
		return code
	}
	code = exitOK
	for _, name := range files {
		s, err := task.VerifyTranscript(name)
		var cut *event.CutLineError
		switch {
		case errors.As(err, &cut):
			fmt.Fprintf(stderr, "warden: warning: %s:%d: the last line is cut short (a crash while it was written); a resume removes it\n", name, cut.Line)
		case err != nil:
			fmt.Fprintf(stderr, "warden: %v\n", err)
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "%s: OK (%s, %s)\n", name, plural(s.Lines, "line"), plural(len(s.Runs), "run"))
	}
	return code
}
