package override

import (
	"context"
	"testing"
)

// TestG12_OverrideAppliesToTheExactActionOnly: an override travels in the
// context it was put in, and applies to the same JSON action whatever its
// key order, whitespace and escapes — never to another action, and never
// when there is no override.
func TestG12_OverrideAppliesToTheExactActionOnly(t *testing.T) {
	denied := []byte(`{"tool":"shell","command":["git","push","--tags"]}`)
	ctx := With(context.Background(), &Override{DenialID: "r1-d1", Action: denied})
	o := From(ctx)
	if o == nil || From(context.Background()) != nil {
		t.Fatalf("From: %v with an override, %v without", o, From(context.Background()))
	}
	for action, want := range map[string]bool{
		`{ "command": ["git", "push", "--tags"], "tool": "shell" }`:    true,
		`{"tool":"shell","command":["git","push","--tag\u0073"]}`:      true,
		`{"tool":"shell","command":["git","push","--force"]}`:          false,
		`{"tool":"shell","command":["git","push","--tags"],"cwd":"/"}`: false,
		`not json`: false,
	} {
		if got := o.Applies([]byte(action)); got != want {
			t.Errorf("Applies(%s) = %v, want %v", action, got, want)
		}
	}
	var none *Override
	if none.Applies(denied) {
		t.Error("a nil override applies")
	}
	if !(&Override{DenialID: "r1-d2"}).Applies([]byte(`{"tool":"shell"}`)) {
		t.Error("an override without an action does not apply")
	}
}
