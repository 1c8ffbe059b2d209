package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/render"
	"github.com/wardenhq/warden/toolbox"
)

const transcriptUsage = "usage: warden transcript show FILE\n\nRenders a JSONL transcript readably, with a summary at the end. A last line\ncut short by a crash is skipped with a warning (exit 0).\n"

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
