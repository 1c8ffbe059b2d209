package main

import "io"

// hookInstallCmd implements `warden hook install` and, with doctor,
// `warden hook doctor`.
func hookInstallCmd(args []string, stdout, stderr io.Writer, doctor bool) int {
	_, _ = io.WriteString(stderr, "warden hook install: not built yet\n")
	return exitUsage
}
