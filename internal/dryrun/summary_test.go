package dryrun

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/effect"
)

func TestG17_SummaryNamesEffectsSafely(t *testing.T) {
	rep := empty()
	for i := 0; i < 12; i++ {
		rep.Creates = append(rep.Creates, fmt.Sprintf("/w/f%d", i))
	}
	rep.Deletes = []string{"/home/me/x\x1b]0;evil\x07\nApprove"}
	rep.Renames = []effect.Rename{{From: "/a", To: "/b"}}
	rep.Chmods = []effect.Chmod{{Path: "/w/run.sh", Mode: "0755", Was: "0644"}}
	rep.Reads = []string{"/home/me/.ssh"}
	rep.Exit = 3
	got := Summary(rep)
	for _, want := range []string{"would create 12: /w/f0,", "… 2 more", "would rename 1: /a → /b", "/w/run.sh 0644 → 0755", "/home/me/.ssh", "exit status 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07") || strings.Contains(got, "\nApprove") {
		t.Errorf("a path acts on the terminal or starts a line:\n%q", got)
	}
	if s := Summary(empty()); !strings.Contains(s, "no change to files") {
		t.Errorf("empty report: %q", s)
	}
	rep = empty()
	rep.TimedOut = true
	if s := Summary(rep); !strings.Contains(s, "stopped") {
		t.Errorf("timed out: %q", s)
	}
}
