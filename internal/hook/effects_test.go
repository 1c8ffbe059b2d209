package hook

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/effect"
)

// TestG17_HookQuestionNamesTheEffects: the reason a host shows the person
// it asks about a boundary request carries what a dry run of the command
// observed, when the first pass dry-ran it, and only the reason otherwise.
func TestG17_HookQuestionNamesTheEffects(t *testing.T) {
	rep := effect.Report{Deletes: []string{"/home/ann/notes"}}
	b := &boundary.Request{Permission: boundary.Exec, Command: "./clean.sh", Reason: "escalated",
		Effects: &effect.Observed{Report: &rep, Summary: rep.Summary([]string{"/home/ann/proj"}, 0)}}
	got := withEffects(b.Reason, b)
	if !strings.HasPrefix(got, "escalated; effects seen in a dry run") || !strings.Contains(got, "would delete 1 file outside the writable roots: /home/ann/notes") {
		t.Errorf("the question's reason: %q", got)
	}
	for _, none := range []*boundary.Request{nil, {Reason: "escalated"}, {Reason: "escalated", Effects: &effect.Observed{Unavailable: "unsupported"}}} {
		if got := withEffects("escalated", none); got != "escalated" {
			t.Errorf("without a dry run: %q", got)
		}
	}
}
