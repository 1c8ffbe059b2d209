package sandboxtest

import (
	"os"
	"strconv"
	"strings"
)

// Processes lists the processes, as "PID: ARGV", whose command line
// contains mark: what a test's sandboxed command left running (give it a
// mark no other process has, such as sleep 100.4242).
func Processes(mark string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), mark) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
