package human

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/effect"
)

// TestG17_PersonSeesTheEffects: the console prompt of a boundary request
// the first pass dry-ran shows the person the effects — the same summary
// the reviewer reads — with a terminal escape in a file name the command
// chose shown as text, never sent to the terminal.
func TestG17_PersonSeesTheEffects(t *testing.T) {
	rep := effect.Report{
		Creates: []string{"/home/ann/.config/evil\x1b[2Jname"},
		Network: []effect.Dest{{Op: "lookup", Name: "exfil.example"}},
		Execs:   []effect.Exec{{Path: "/usr/bin/python3", Argv: []string{"python3", "-c", "print(2)"}}},
	}
	req := bashRequest("./install.sh")
	req.Boundary = &boundary.Request{Permission: boundary.Exec, Command: "./install.sh", Escalated: true, Reason: "escalated",
		Effects: &effect.Observed{Report: &rep, Summary: rep.Summary([]string{"/home/ann/proj"}, 0)}}
	_, _, screen := decideAsPerson(t, req)
	// Long lines wrap at the terminal's width, each continuation marked.
	screen = regexp.MustCompile(`\n *┆ `).ReplaceAllString(screen, "")
	for _, want := range []string{"effects seen in a dry run", "would look up exfil.example", "would run: python3 -c print(2)", "would create 1 file outside the writable roots"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the person was not shown %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "\x1b[2J") {
		t.Error("a terminal escape from a file name reached the terminal")
	}
}
