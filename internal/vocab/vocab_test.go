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
