package human

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// Issue 18 item 9 (SPEC P2): a pattern copied from the console's request
// (the line under "call:") matches the call that runs: the console shows
// the arguments in the tool's schema order, then sorted, as policy
// patterns see them, whatever order the model sent them in.
func TestP2_PatternCopiedFromTheConsoleMatches(t *testing.T) {
	ed, err := editor.New(editor.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	order := tool.OrderOf(ed)
	call := tool.NewCall("c1", editor.Name, `{"path":"a.txt","file_text":"x","zz":1,"command":"create","aa":2}`)
	_, _, scr := decideAsPerson(t, &approval.Request{Call: call, Tool: ed, Order: order})
	at := strings.Index(scr, "call:\n"+contentGutter)
	if at < 0 {
		t.Fatalf("no call on the screen:\n%s", scr)
	}
	line := scr[at+len("call:\n"+contentGutter):]
	line = line[:strings.IndexByte(line, '\n')]
	p, err := policy.Compile(line)
	if err != nil {
		t.Fatalf("pattern %q: %v", line, err)
	}
	if !p.Match(policy.NewTarget(&call, order)) {
		t.Errorf("pattern %q copied from the console does not match the call (policy sees %s)", line, call.TextIn(order))
	}
	if want := "text_editor(command='create', path='a.txt', file_text='x', aa=2, zz=1)"; line != want {
		t.Errorf("console shows %s, want %s", line, want)
	}
}
