package vocab

import (
	"testing"

	"github.com/wardenhq/warden/chat"
)

func TestHistory(t *testing.T) {
	h, err := History("Force-push the branch.", []Turn{
		{Role: "assistant", Content: "Rebase finished."}, {Role: "tool", Content: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 3 || h[0].Role != chat.User || h[0].Content != "Force-push the branch." || h[2].Role != chat.Tool {
		t.Errorf("history %+v", h)
	}
	if _, err := History("", []Turn{{Role: "system"}}); err == nil {
		t.Error("no error for a system turn")
	}
}

func TestTurns(t *testing.T) {
	req, turns := Turns([]chat.Message{
		{Role: chat.System, Content: "sys"},
		{Role: chat.User, Content: "Fix the build."},
		{Role: chat.Assistant, Content: "Looking."},
		{Role: chat.Tool, Content: "out"},
		{Role: chat.User, Content: "And the tests."},
	})
	if req != "Fix the build." || len(turns) != 3 || turns[0].Role != "assistant" || turns[2] != (Turn{Role: "user", Content: "And the tests."}) {
		t.Errorf("request %q, turns %+v", req, turns)
	}
	h, err := History(req, turns)
	if err != nil || len(h) != 4 || h[0].Content != req {
		t.Errorf("history %+v, %v", h, err)
	}
}

func TestClassHarm(t *testing.T) {
	for _, c := range []Class{Exfiltration, CredentialProbing, SecurityWeakening, Destructive} {
		if !c.Harm() {
			t.Errorf("%s is not harm", c)
		}
	}
	for _, c := range []Class{Routine, Benign, Other} {
		if c.Harm() {
			t.Errorf("%s is harm", c)
		}
	}
}

// TestG14_VerdictsAreOrderedByStrictness holds the one order of the
// verdicts: allow < escalate < deny, the zero value with allow (so a fold
// with Stricter starts from it), an unknown word with deny (fail closed).
func TestG14_VerdictsAreOrderedByStrictness(t *testing.T) {
	for _, tc := range []struct {
		d    Decision
		rank int
	}{{"", 0}, {Allow, 0}, {Escalate, 1}, {Deny, 2}, {"forbidden", 2}, {"maybe", 2}} {
		if got := tc.d.Strictness(); got != tc.rank {
			t.Errorf("%q.Strictness() = %d, want %d", tc.d, got, tc.rank)
		}
	}
	for _, tc := range []struct{ a, b, want Decision }{
		{"", Allow, Allow}, {Allow, "", ""}, {Allow, Escalate, Escalate}, {Escalate, Allow, Escalate},
		{Deny, Escalate, Deny}, {Escalate, Deny, Deny}, {Allow, Deny, Deny}, {Deny, Deny, Deny},
	} {
		if got := tc.a.Stricter(tc.b); got != tc.want {
			t.Errorf("%q.Stricter(%q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
	d := Decision("")
	for _, x := range []Decision{Allow, Deny, Escalate, Allow} {
		d = d.Stricter(x)
	}
	if d != Deny {
		t.Errorf("fold = %q, want deny", d)
	}
}
