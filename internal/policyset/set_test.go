package policyset

import (
	"testing"

	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// TestP2_ArgumentOrderCannotSkipDenyPatternInSet: a deny pattern on the
// first parameter of a tool matches through a compiled set, pooled
// targets and all, however the model orders the keys.
func TestP2_ArgumentOrderCannotSkipDenyPatternInSet(t *testing.T) {
	order := tool.Order{"cmd", "sandbox_permissions", "justification"}
	deny, err := policy.CompileList([]string{"bash(cmd='rm"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := policy.CompileList([]string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet([]policy.Rule[string]{{Name: "deny", Match: deny, Handler: "reject"}, {Name: "all", Match: all, Handler: "approve"}})
	c := tool.NewCall("c1", "bash", `{"justification":"needed","cmd":"rm -rf ~"}`)
	if i := s.First(&c, order); i != 0 {
		t.Errorf("First = %d, want the deny rule", i)
	}
}
