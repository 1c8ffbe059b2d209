package main

import (
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/render"
)

const transcriptUsage = "usage: warden transcript show FILE\n\nRenders a JSONL transcript readably, with a summary at the end.\n"

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
	stats := &render.Stats{}
	err = event.Read(f, func(e event.Event) error {
		stats.Add(e)
		return tw.Write(e)
	})
	if err != nil {
		fmt.Fprintf(stderr, "warden: %s: %v\n", args[0], err)
		return exitError
	}
	fmt.Fprintf(stdout, "\n%s\n", stats)
	return exitOK
}
